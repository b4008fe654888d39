"""Webhook signatures.

``x-service-signature`` is the lower-case hex HMAC-SHA256 of the raw body, keyed with the
merchant's webhook secret; POS callbacks send the same digest as ``sha256=<hex>``. Verify the
raw bytes as received, before parsing them: JSON re-serialised by a framework is not the signed
text. The comparison is ``hmac.compare_digest``, in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from datetime import datetime, timezone
from typing import Any, Dict, Optional, Union

from .errors import TaplineError

SIGNATURE_HEADER = "x-service-signature"
_HEX_DIGEST = re.compile(r"^[0-9a-f]{64}$")


class WebhookSignatureError(TaplineError):
    """The signature does not match (``signature_invalid``) or the event is too old (``timestamp_outside_tolerance``)."""


def _bytes(payload: Union[bytes, bytearray, str]) -> bytes:
    return payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)


def sign_webhook_payload(secret: str, payload: Union[bytes, bytearray, str], signature_format: str = "hex") -> str:
    """The signature the server sends for a body: lower-case hex, or ``sha256=<hex>`` for POS callbacks."""
    digest = hmac.new(secret.encode("utf-8"), _bytes(payload), hashlib.sha256).hexdigest()
    return digest if signature_format == "hex" else f"sha256={digest}"


def is_valid_webhook_signature(payload: Union[bytes, bytearray, str], signature: Optional[str], secret: str) -> bool:
    """True when the signature (either form) matches the raw body and the secret."""
    received = (signature or "").strip()
    if received.startswith("sha256="):
        received = received[len("sha256=") :]
    if not _HEX_DIGEST.match(received):
        return False
    return hmac.compare_digest(sign_webhook_payload(secret, payload), received)


def verify_webhook(
    payload: Union[bytes, bytearray, str],
    signature: Optional[str],
    secret: str,
    *,
    tolerance_seconds: Optional[float] = None,
    now: Optional[datetime] = None,
) -> Dict[str, Any]:
    """Checks a webhook or POS callback and answers its event, parsed.

    ``tolerance_seconds`` refuses an event whose signed ``timestamp`` is further than that from
    now (a replayed old event). It is off by default: a delivery retried after 1 min, 5 min,
    30 min, 2 h and 24 h keeps its event's original timestamp, so a tolerance shorter than about
    27 hours refuses late retries. Deduplicate on the event ``id`` either way.

    Raises WebhookSignatureError (``signature_invalid`` or ``timestamp_outside_tolerance``).
    """
    if not is_valid_webhook_signature(payload, signature, secret):
        raise WebhookSignatureError("The webhook signature does not match its body and secret", code="signature_invalid")
    event: Dict[str, Any] = json.loads(_bytes(payload).decode("utf-8"))
    if tolerance_seconds is not None:
        stamp = event.get("timestamp")
        try:
            at = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
        except ValueError:
            at = None
        current = now or datetime.now(timezone.utc)
        if at is None or abs((current - at).total_seconds()) > tolerance_seconds:
            raise WebhookSignatureError(
                f"The event's timestamp is more than {tolerance_seconds:g} seconds from now",
                code="timestamp_outside_tolerance",
            )
    return event
