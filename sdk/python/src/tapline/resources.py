"""Helpers of the main flows: payments and POS sessions."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, Optional, Tuple, TypeVar, cast

from .errors import TaplineError
from .types import Payment, PosSession

if TYPE_CHECKING:
    from .client import Tapline

__all__ = ["FINAL_PAYMENT_STATUSES", "FINAL_POS_STATUSES", "Payments", "Pos", "poll_until"]

#: A payment's status after which nothing changes but a reversal (completed -> reversed).
FINAL_PAYMENT_STATUSES: Tuple[str, ...] = ("completed", "failed", "reversed")
#: The states a POS session ends in.
FINAL_POS_STATUSES: Tuple[str, ...] = ("completed", "failed", "expired", "cancelled")

Item = TypeVar("Item")


def poll_until(
    read: Callable[[], Item],
    is_final: Callable[[Item], bool],
    *,
    interval: float = 1.0,
    timeout: float = 120.0,
    on_update: Optional[Callable[[Item], None]] = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Item:
    """Reads until ``is_final`` holds, every ``interval`` seconds; raises TaplineError ``wait_timeout`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        item = read()
        if on_update is not None:
            on_update(item)
        if is_final(item):
            return item
        if time.monotonic() + interval > deadline:
            raise TaplineError("Still not final when the wait ran out", code="wait_timeout")
        sleep(interval)


class Payments:
    """Payouts: POST /api/pay and the payment's status."""

    def __init__(self, client: "Tapline") -> None:
        self._client = client

    def create(self, body: Dict[str, Any], *, idempotency_key: Optional[str] = None) -> Payment:
        """Makes a payment. Its Idempotency-Key (yours, or a UUID made for this call) is kept across
        retries: a retry after a lost answer is answered the first payment, never a second charge."""
        return cast(Payment, self._client.request("POST", "/api/pay", body=body, idempotency_key=idempotency_key))

    def retrieve(self, payment_id: str) -> Payment:
        return cast(Payment, self._client.request("GET", "/api/payments/{id}", params={"id": payment_id}))

    def list(self, **query: Any) -> Dict[str, Any]:
        """One page of the merchant's payments, newest first (``limit``, ``offset``, ``status``)."""
        return cast(Dict[str, Any], self._client.request("GET", "/api/payments", query=query))

    def list_all(self, *, page_size: int = 100, **query: Any) -> Iterator[Payment]:
        """Every payment, page after page."""
        return cast(Iterator[Payment], self._client.paginate("/api/payments", query=query, page_size=page_size))

    def wait_for_outcome(
        self, payment_id: str, *, interval: float = 1.0, timeout: float = 120.0, on_update: Optional[Callable[[Payment], None]] = None
    ) -> Payment:
        """Polls the payment until it is completed, failed or reversed (sandbox: a few seconds)."""
        return poll_until(
            lambda: self.retrieve(payment_id),
            lambda payment: payment.get("status") in FINAL_PAYMENT_STATUSES,
            interval=interval,
            timeout=timeout,
            on_update=on_update,
        )


class Pos:
    """POS sessions: open one for an amount, a tag tap pays it, wait for the outcome."""

    def __init__(self, client: "Tapline") -> None:
        self._client = client

    def create_session(self, body: Dict[str, Any], *, idempotency_key: Optional[str] = None) -> PosSession:
        """Opens a session (pending for 90 seconds); its id derives from the Idempotency-Key, so a retry answers the same session."""
        return cast(PosSession, self._client.request("POST", "/api/pos/sessions", body=body, idempotency_key=idempotency_key))

    def retrieve_session(self, session_id: str) -> PosSession:
        return cast(PosSession, self._client.request("GET", "/api/pos/sessions/{sessionId}", params={"sessionId": session_id}))

    def list_sessions(self, **query: Any) -> Dict[str, Any]:
        return cast(Dict[str, Any], self._client.request("GET", "/api/pos/sessions", query=query))

    def tap(self, session_id: str, tag_id: str, *, pin: Optional[str] = None) -> PosSession:
        """A tag pays the session. Above the tag's no-PIN limits it raises PermissionDeniedError
        ``pin_required``: repeat it with the holder's ``pin``."""
        body: Dict[str, Any] = {"tagId": tag_id}
        if pin is not None:
            body["pin"] = pin
        return cast(PosSession, self._client.request("POST", "/api/pos/sessions/{sessionId}/tap", params={"sessionId": session_id}, body=body))

    def cancel(self, session_id: str) -> PosSession:
        return cast(PosSession, self._client.request("POST", "/api/pos/sessions/{sessionId}/cancel", params={"sessionId": session_id}))

    def wait_for_outcome(
        self, session_id: str, *, interval: float = 1.0, timeout: float = 120.0, on_update: Optional[Callable[[PosSession], None]] = None
    ) -> PosSession:
        """Polls the session every second until it ends: completed, failed, expired or cancelled."""
        return poll_until(
            lambda: self.retrieve_session(session_id),
            lambda session: session.get("status") in FINAL_POS_STATUSES,
            interval=interval,
            timeout=timeout,
            on_update=on_update,
        )

    def charge(
        self,
        body: Dict[str, Any],
        *,
        on_created: Optional[Callable[[PosSession], None]] = None,
        on_outcome: Optional[Callable[[PosSession], None]] = None,
        interval: float = 1.0,
        timeout: float = 120.0,
        idempotency_key: Optional[str] = None,
    ) -> PosSession:
        """Opens a session and waits for its outcome: answers the ended session and calls
        ``on_outcome`` with it. ``on_created`` gets the pending session (show its qrPayload).
        (Or give the session a callbackUrl and verify the pos.session.* event it receives.)"""
        session = self.create_session(body, idempotency_key=idempotency_key)
        if on_created is not None:
            on_created(session)
        outcome = self.wait_for_outcome(session["sessionId"], interval=interval, timeout=timeout)
        if on_outcome is not None:
            on_outcome(outcome)
        return outcome
