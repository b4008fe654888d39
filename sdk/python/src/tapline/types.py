"""Shapes of the main answers, as TypedDicts (the OpenAPI document has every one).

Each record is two classes, the fields always present and then the optional ones, because
Python 3.9 has no NotRequired.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict

PaymentStatus = Literal["pending", "processing", "completed", "failed", "reversed"]
PosSessionStatus = Literal["pending", "tapped", "processing", "completed", "failed", "expired", "cancelled"]
Mode = Literal["test", "live"]


class _ErrorBody(TypedDict):
    error: str
    code: str


class ErrorBody(_ErrorBody, total=False):
    """The body of every failed call."""

    details: List[Any]


class _TimelineEntry(TypedDict):
    status: PaymentStatus
    at: str


class TimelineEntry(_TimelineEntry, total=False):
    note: str


class _Payment(TypedDict):
    success: bool
    id: str
    paymentId: str
    transactionId: str
    status: PaymentStatus
    amount: float
    currency: str
    destinationAmount: float
    destinationCurrency: str
    fxRate: float
    fee: float
    estimatedArrival: str
    providerReference: Optional[str]
    timeline: List[TimelineEntry]
    createdAt: str
    updatedAt: str


class Payment(_Payment, total=False):
    """POST /api/pay and GET /api/payments/{id}: amounts are decimal major units. The optional
    fields are shown to the owning merchant."""

    failureReason: str
    mode: Mode
    rail: str
    fromCode: Optional[str]
    toCode: Optional[str]
    midRate: float
    quoteId: Optional[str]
    receiver: Dict[str, str]
    receiverName: Optional[str]
    senderName: Optional[str]
    note: Optional[str]
    reference: Optional[str]
    paymentLinkId: Optional[str]


class _PosSession(TypedDict):
    sessionId: str
    status: PosSessionStatus
    amount: float
    currency: str
    description: str
    tapUrl: str
    qrPayload: str
    ttlSeconds: int
    expiresAt: str
    createdAt: str
    merchantId: str
    mode: Mode


class PosSession(_PosSession, total=False):
    """A POS session: pending for 90 seconds, then completed, failed, expired or cancelled."""

    callbackUrl: str
    payerHandle: str
    walletRef: str
    tagId: str
    completedAt: str
    endedAt: str
    errorMessage: str


class Page(TypedDict):
    """One page of a list: ``{data, total, limit, offset}``."""

    data: List[Dict[str, Any]]
    total: int
    limit: int
    offset: int
