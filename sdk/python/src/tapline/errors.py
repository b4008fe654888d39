"""Every failure the client reports is a TaplineError.

An answer of the API carries the server's ``{error, code, details}``: ``code`` is the stable
snake_case name of the rule that failed (``insufficient_funds``, ``session_not_pending``), the
thing to branch on; the message is for people.
"""

from __future__ import annotations

import email.utils
import math
import time
from typing import Any, Dict, List, Mapping, Optional, Type, cast


class TaplineError(Exception):
    """A failure: the API's error code, or ``connection_error`` / ``timeout`` when no answer came."""

    def __init__(
        self,
        message: str,
        *,
        code: str,
        status: Optional[int] = None,
        details: Optional[List[Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.details = details
        self.headers: Dict[str, str] = {name.lower(): value for name, value in (headers or {}).items()}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, message={self.message!r})"


class ApiError(TaplineError):
    """The API answered 4xx or 5xx."""


class InvalidRequestError(ApiError):
    """400, 413, 415: the request is invalid (validation_failed, invalid_json, idempotency_key_required...)."""


class AuthenticationError(ApiError):
    """401: the credential is missing, malformed, unknown, revoked or expired."""


class PermissionDeniedError(ApiError):
    """403: the credential is valid but not allowed (credential_not_allowed, wrong_pin, pin_required...)."""


class NotFoundError(ApiError):
    """404: unknown, another merchant's, or of the other mode."""


class ConflictError(ApiError):
    """409: the state does not allow it (session_not_pending), or the same Idempotency-Key still runs."""


class GoneError(ApiError):
    """410: expired (session_expired, quote_expired)."""


class UnprocessableError(ApiError):
    """422: a business rule refused it (insufficient_funds, rail_unavailable, idempotency_key_reused)."""


class RateLimitError(ApiError):
    """429: too many requests; ``retry_after_seconds`` says when to try again."""

    @property
    def retry_after_seconds(self) -> Optional[int]:
        return retry_after_seconds(self.headers)


class ServerError(ApiError):
    """5xx: the server failed; a retry with the same Idempotency-Key is safe."""


class APIConnectionError(TaplineError):
    """No answer: the connection failed or timed out. The request may or may not have run."""


_CLASS_BY_STATUS: Dict[int, Type[ApiError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    410: GoneError,
    413: InvalidRequestError,
    415: InvalidRequestError,
    422: UnprocessableError,
    429: RateLimitError,
}


def error_from_answer(status: int, headers: Mapping[str, str], body: Any) -> ApiError:
    """The error of an answer: its class from the status, its code and message from the body."""
    fields: Mapping[str, Any] = cast(Mapping[str, Any], body) if isinstance(body, dict) else {}
    code: Any = fields.get("code")
    message: Any = fields.get("error")
    details: Any = fields.get("details")
    error_class = _CLASS_BY_STATUS.get(status, ServerError if status >= 500 else ApiError)
    return error_class(
        message if isinstance(message, str) else f"HTTP {status}",
        code=code if isinstance(code, str) else ("server_error" if status >= 500 else "http_error"),
        status=status,
        details=cast(List[Any], details) if isinstance(details, list) else None,
        headers=headers,
    )


def retry_after_seconds(headers: Mapping[str, str], now: Optional[float] = None) -> Optional[int]:
    """Retry-After in seconds, from either form it may take: seconds, or an HTTP date."""
    value = {name.lower(): text for name, text in headers.items()}.get("retry-after", "").strip()
    if not value:
        return None
    if value.isdigit():
        return int(value)
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    seconds = at.timestamp() - (time.time() if now is None else now)
    return max(0, math.ceil(seconds))
