"""The client's own rules, without a server: signatures, Retry-After, which failures are
retried, one Idempotency-Key per POST across its attempts, path and query encoding."""

from __future__ import annotations

import email.utils
import hashlib
import hmac
import json
import unittest
from datetime import datetime, timezone
from typing import Dict, List, Optional

from tapline import (
    APIConnectionError,
    InvalidRequestError,
    Request,
    Response,
    RetryPolicy,
    Tapline,
    WebhookSignatureError,
    is_valid_webhook_signature,
    retry_after_seconds,
    sign_webhook_payload,
    verify_webhook,
)
from tapline.errors import TaplineError, error_from_answer
from tapline.retry import backoff, retry_delay

SECRET = "whsec_0123456789abcdef"
BODY = json.dumps({"id": "evt_1", "event": "payment.completed", "paymentId": "pay_1", "timestamp": "2026-11-24T10:15:03.000Z"})


def server_signature(body: str, signature_format: str = "hex") -> str:
    """What the server's dispatcher sends (shared/src/webhook-signature.ts)."""
    digest = hmac.new(SECRET.encode(), body.encode(), hashlib.sha256).hexdigest()
    return digest if signature_format == "hex" else f"sha256={digest}"


class WebhookTest(unittest.TestCase):
    def test_accepts_what_the_server_signs_in_both_forms_and_nothing_else(self) -> None:
        self.assertEqual(sign_webhook_payload(SECRET, BODY), server_signature(BODY))
        self.assertEqual(sign_webhook_payload(SECRET, BODY, "sha256="), server_signature(BODY, "sha256="))
        self.assertTrue(is_valid_webhook_signature(BODY, server_signature(BODY), SECRET))
        self.assertTrue(is_valid_webhook_signature(BODY.encode(), server_signature(BODY, "sha256="), SECRET))
        wrong: List[Optional[str]] = [None, "", "sha256=", sign_webhook_payload("other", BODY), server_signature(BODY + " "), server_signature(BODY).upper(), server_signature(BODY) + "00"]
        for signature in wrong:
            self.assertFalse(is_valid_webhook_signature(BODY, signature, SECRET), signature)
        self.assertEqual(verify_webhook(BODY, server_signature(BODY), SECRET)["paymentId"], "pay_1")
        with self.assertRaises(WebhookSignatureError) as refused:
            verify_webhook(BODY, "nonsense", SECRET)
        self.assertEqual(refused.exception.code, "signature_invalid")

    def test_checks_the_signed_timestamp_only_when_asked(self) -> None:
        signature = server_signature(BODY)
        verify_webhook(BODY, signature, SECRET, tolerance_seconds=300, now=datetime(2026, 11, 24, 10, 19, tzinfo=timezone.utc))
        verify_webhook(BODY, signature, SECRET, now=datetime(2030, 1, 1, tzinfo=timezone.utc))
        for now in (datetime(2026, 11, 24, 10, 20, 4, tzinfo=timezone.utc), datetime(2026, 11, 24, 10, 10, tzinfo=timezone.utc)):
            with self.assertRaises(WebhookSignatureError) as late:
                verify_webhook(BODY, signature, SECRET, tolerance_seconds=300, now=now)
            self.assertEqual(late.exception.code, "timestamp_outside_tolerance")


def answer(status: int, code: str, headers: Optional[Dict[str, str]] = None) -> TaplineError:
    return error_from_answer(status, headers or {}, {"error": "x", "code": code})


class RetryTest(unittest.TestCase):
    policy = RetryPolicy()

    def test_reads_retry_after_as_seconds_or_as_an_http_date(self) -> None:
        self.assertEqual(retry_after_seconds({"Retry-After": "7"}), 7)
        at = datetime(2026, 11, 24, 10, 0, 30, tzinfo=timezone.utc)
        self.assertEqual(retry_after_seconds({"retry-after": email.utils.format_datetime(at, usegmt=True)}, now=at.timestamp() - 30), 30)
        self.assertIsNone(retry_after_seconds({"retry-after": "soon"}))
        self.assertIsNone(retry_after_seconds({}))

    def test_retries_lost_answers_in_progress_429_and_5xx_and_nothing_else(self) -> None:
        self.assertGreaterEqual(retry_delay(self.policy, APIConnectionError("reset", code="connection_error"), 0) or 0, 0.25)
        self.assertIsNotNone(retry_delay(self.policy, answer(409, "idempotency_in_progress"), 0))
        self.assertIsNone(retry_delay(self.policy, answer(409, "session_not_pending"), 0))
        self.assertAlmostEqual(retry_delay(self.policy, answer(429, "rate_limited", {"Retry-After": "2"}), 0) or 0, 2.05)
        self.assertIsNone(retry_delay(self.policy, answer(429, "rate_limited", {"Retry-After": "3600"}), 0))
        self.assertIsNone(retry_delay(self.policy, answer(429, "pin_attempts_exceeded", {"Retry-After": "1"}), 0))
        self.assertIsNotNone(retry_delay(self.policy, answer(503, "database_unavailable"), 0))
        for status in (400, 401, 403, 404, 410, 422):
            self.assertIsNone(retry_delay(self.policy, answer(status, "x"), 0), status)

    def test_backs_off_exponentially_up_to_its_ceiling(self) -> None:
        self.assertEqual(backoff(self.policy, 0, lambda: 0), 0.25)
        self.assertEqual(backoff(self.policy, 0, lambda: 1), 0.5)
        self.assertEqual(backoff(self.policy, 3, lambda: 1), 4.0)
        self.assertEqual(backoff(self.policy, 10, lambda: 1), 8.0)

    def test_one_idempotency_key_per_post_the_same_on_every_attempt(self) -> None:
        seen: List[Request] = []

        def failing(request: Request) -> Response:
            seen.append(request)
            raise ConnectionResetError("reset")

        client = Tapline("http://127.0.0.1:9", api_key="mk_test_" + "a" * 64, transport=failing, retry=RetryPolicy(max_retries=2, initial_delay=0.001, max_delay=0.002))
        with self.assertRaises(APIConnectionError) as failed:
            client.request("POST", "/api/pos/sessions", body={"amount": 1, "currency": "NGN"})
        self.assertEqual(failed.exception.code, "connection_error")
        self.assertEqual(len(seen), 3)
        self.assertEqual(len({request.headers["idempotency-key"] for request in seen}), 1)
        self.assertEqual(seen[0].headers["x-merchant-api-key"], "mk_test_" + "a" * 64)
        self.assertEqual(json.loads(seen[0].body or b""), {"amount": 1, "currency": "NGN"})
        with self.assertRaises(APIConnectionError):
            client.request("GET", "/api/merchant/balance")
        self.assertNotIn("idempotency-key", seen[-1].headers, "a GET carries no Idempotency-Key")

    def test_answers_and_errors_are_decoded(self) -> None:
        requests: List[Request] = []

        def fake(request: Request) -> Response:
            requests.append(request)
            if "bad" in request.url:
                return Response(400, {"content-type": "application/json"}, b'{"error":"Invalid body","code":"validation_failed","details":[{"field":"amount"}]}')
            return Response(200, {"content-type": "application/json; charset=utf-8"}, b'{"ok":true}')

        client = Tapline("http://api.example/", token="wallet." + "b" * 64, transport=fake)
        self.assertEqual(client.request("GET", "/api/payments/{id}", params={"id": "pay/1 2"}, query={"limit": 5, "status": None, "flag": True}), {"ok": True})
        self.assertEqual(requests[0].url, "http://api.example/api/payments/pay%2F1%202?limit=5&flag=true")
        self.assertEqual(requests[0].headers["authorization"], "Bearer wallet." + "b" * 64)
        with self.assertRaises(InvalidRequestError) as invalid:
            client.request("POST", "/bad", body={})
        self.assertEqual((invalid.exception.status, invalid.exception.code, invalid.exception.details), (400, "validation_failed", [{"field": "amount"}]))
        with self.assertRaises(TypeError):
            client.request("GET", "/api/payments/{id}")


if __name__ == "__main__":
    unittest.main()
