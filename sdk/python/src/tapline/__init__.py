"""The Python client of the Tapline API (standard library only, Python 3.9+).

    from tapline import Tapline

    tapline = Tapline("https://api.example.com", api_key=os.environ["TAPLINE_KEY"])
    payment = tapline.payments.create({"fromCode": "NG", "toCode": "KE", "rail": "mobile_money",
                                       "amount": 25000, "currency": "NGN", "receiver": "+254712345678"})
    settled = tapline.payments.wait_for_outcome(payment["id"])
"""

from .client import RawAnswer, Tapline
from .errors import (
    APIConnectionError,
    ApiError,
    AuthenticationError,
    ConflictError,
    GoneError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    TaplineError,
    UnprocessableError,
    retry_after_seconds,
)
from .resources import FINAL_PAYMENT_STATUSES, FINAL_POS_STATUSES
from .retry import RetryEvent, RetryPolicy
from .transport import Request, Response, Transport, urllib_transport
from .types import ErrorBody, Page, Payment, PosSession
from .webhooks import SIGNATURE_HEADER, WebhookSignatureError, is_valid_webhook_signature, sign_webhook_payload, verify_webhook

__version__ = "0.1.0"

__all__ = [
    "APIConnectionError",
    "ApiError",
    "AuthenticationError",
    "ConflictError",
    "ErrorBody",
    "FINAL_PAYMENT_STATUSES",
    "FINAL_POS_STATUSES",
    "GoneError",
    "InvalidRequestError",
    "NotFoundError",
    "Page",
    "Payment",
    "PermissionDeniedError",
    "PosSession",
    "RateLimitError",
    "RawAnswer",
    "Request",
    "Response",
    "RetryEvent",
    "RetryPolicy",
    "SIGNATURE_HEADER",
    "ServerError",
    "Tapline",
    "TaplineError",
    "Transport",
    "UnprocessableError",
    "WebhookSignatureError",
    "is_valid_webhook_signature",
    "retry_after_seconds",
    "sign_webhook_payload",
    "urllib_transport",
    "verify_webhook",
]
