"""The Python SDK against a real server (started here, see server.py): a sandbox payment whose
answer is lost and retried without a second charge, polled to completed, its webhook verified; a
POS session paid by a tag tap; pages iterated; a 429 waited out after its Retry-After; typed
errors carrying the API's code."""

from __future__ import annotations

import itertools
import json
import os
import threading
import time
import unittest
import urllib.request
from typing import Any, Dict, List, Optional

from tapline import (
    AuthenticationError,
    ConflictError,
    NotFoundError,
    RateLimitError,
    Request,
    Response,
    RetryEvent,
    RetryPolicy,
    Tapline,
    WebhookSignatureError,
    urllib_transport,
    verify_webhook,
)

from .server import ADMIN_TOKEN, HELD_BILLER_ENTRY, Receiver, TestServer

# Every limit is 1 per 2-second window, so one merchant meets 429s; the others get a multiplier.
SERVER_ENV = {
    "SANDBOX_STEP_MS": "100",
    "SCHEDULER_POLL_MS": "20",
    "WEBHOOK_POLL_MS": "50",
    "RATE_LIMIT_WINDOW_SECONDS": "2",
    "RATE_LIMIT_SCALE": "0.001",
}
FAST_RETRIES = RetryPolicy(initial_delay=0.02, max_delay=0.2)
_counter = itertools.count(1)

server: Optional[TestServer] = None
receiver = Receiver()


def setUpModule() -> None:  # noqa: N802 (the name unittest calls)
    global server
    # The server with one addition, a bill-payment provider the 409 test can hold in flight
    # (test/sdk/held-biller-server.ts); everything else is `npm run server`'s app.
    server = TestServer(SERVER_ENV, entry=HELD_BILLER_ENTRY)
    receiver.start()


def tearDownModule() -> None:  # noqa: N802
    receiver.stop()
    if server is not None:
        server.stop()


def base_url() -> str:
    assert server is not None
    return server.url


def admin() -> Tapline:
    return Tapline(base_url(), token=f"admin.{ADMIN_TOKEN}")


def unique(prefix: str) -> str:
    return f"{prefix}_py{os.getpid()}_{next(_counter)}"


def merchant(webhook_url: Optional[str] = None, room: bool = True) -> Dict[str, Any]:
    """A test merchant; with room, its key is not slowed by the server's tiny rate limits."""
    body: Dict[str, Any] = {"name": "Mama Put Kitchen", "handle": unique("shop"), "country": "NG", "currency": "NGN"}
    if webhook_url:
        body["webhookUrl"] = webhook_url
    created: Dict[str, Any] = admin().request("POST", "/api/admin/merchants", body=body)
    if room:
        admin().request("PATCH", "/api/admin/merchants/{id}", params={"id": created["id"]}, body={"rateLimitMultiplier": 1000})
    return created


def minor_balance(client: Tapline, currency: str = "NGN") -> int:
    answer = client.request("GET", "/api/merchant/balance")
    for balance in answer["balances"]:
        if balance["currency"] == currency:
            return round(balance["available"] * 100)
    return 0


class PaymentTest(unittest.TestCase):
    def test_lost_answer_is_retried_without_a_second_charge_then_polled_and_its_webhook_verified(self) -> None:
        shop = merchant(receiver.url)
        sent_keys: List[str] = []
        lost: Dict[str, Any] = {}

        # The first POST /api/pay reaches the server and is answered, but the answer never comes
        # back: the connection drops, as a mobile network does.
        def losing_transport(request: Request) -> Response:
            answer = urllib_transport(request)
            if request.method == "POST" and request.url.endswith("/api/pay"):
                sent_keys.append(request.headers["idempotency-key"])
                if not lost:
                    lost["body"] = answer.body
                    raise ConnectionResetError("connection reset by peer")
            return answer

        retries: List[RetryEvent] = []
        client = Tapline(base_url(), api_key=shop["testKey"], transport=losing_transport, retry=FAST_RETRIES, on_retry=retries.append)
        before = minor_balance(client)
        answer = client.raw(
            "POST",
            "/api/pay",
            body={"fromCode": "NG", "toCode": "NG", "rail": "mobile_money", "amount": 2500, "currency": "NGN", "receiver": "+2348012345678", "reference": "py-order-1"},
        )
        self.assertEqual(answer.status, 201)
        self.assertEqual(answer.attempts, 2)
        self.assertEqual(answer.headers.get("idempotent-replayed"), "true")
        self.assertEqual([event.error.code for event in retries], ["connection_error"])
        self.assertEqual(len(sent_keys), 2)
        self.assertEqual(sent_keys[0], sent_keys[1], "the retry carries the same Idempotency-Key")
        payment = answer.data
        self.assertIn(payment["id"].encode(), lost["body"], "the retry answers the payment the lost answer carried")
        self.assertEqual(before - minor_balance(client), round((payment["amount"] + payment["fee"]) * 100), "charged once")
        self.assertEqual(client.payments.list()["total"], 1)

        updates: List[str] = []
        completed = client.payments.wait_for_outcome(payment["id"], interval=0.05, timeout=60, on_update=lambda p: updates.append(p["status"]))
        self.assertEqual(completed["status"], "completed")
        self.assertEqual([entry["status"] for entry in completed["timeline"]], ["pending", "processing", "completed"])
        self.assertEqual(updates[-1], "completed")

        delivery = receiver.wait_for((payment["id"], '"payment.completed"'), path="/hooks")
        signature = delivery.headers["x-service-signature"]
        event = verify_webhook(delivery.body, signature, shop["webhookSecret"], tolerance_seconds=300)
        self.assertEqual(event["event"], "payment.completed")
        self.assertEqual(event["paymentId"], payment["id"])
        self.assertTrue(event["id"].startswith("evt_"))
        self.assertEqual(client.verify_webhook(delivery.body.decode(), signature, shop["webhookSecret"])["id"], event["id"])
        tampered = delivery.body.replace(b'"completed"', b'"failed"')
        with self.assertRaises(WebhookSignatureError) as refused:
            verify_webhook(tampered, signature, shop["webhookSecret"])
        self.assertEqual(refused.exception.code, "signature_invalid")
        with self.assertRaises(WebhookSignatureError):
            verify_webhook(delivery.body, signature, "whsec_not_the_secret")


class InProgressRetryTest(unittest.TestCase):
    """A request still running when its retry arrives: the server answers the retry 409
    idempotency_in_progress, the SDK waits and retries with the same key until the first request's
    answer is there, and the bill is paid (and charged) once. The first request is held in flight by
    a bill-payment provider the test controls (test/sdk/held-biller-server.ts)."""

    def control(self, method: str, path: str) -> Dict[str, Any]:
        assert server is not None and server.control_url, "the held server prints its control URL"
        with urllib.request.urlopen(urllib.request.Request(server.control_url + path, method=method, data=b"" if method == "POST" else None), timeout=30) as answer:
            decoded: Dict[str, Any] = json.loads(answer.read())
            return decoded

    def test_a_409_idempotency_in_progress_is_retried_with_the_same_key_and_charged_once(self) -> None:
        url = base_url()
        shop = merchant()
        admin().request("POST", "/api/admin/wallets/{handle}/credit", params={"handle": shop["handle"].lstrip("@")}, body={"amount": 5000, "currency": "KES", "mode": "live"})
        calls_before = self.control("GET", "/calls")["calls"]
        self.control("POST", "/hold")

        sent: List[Dict[str, Any]] = []
        first: Dict[str, Any] = {}

        # The first attempt reaches the server, which claims its Idempotency-Key and waits on the
        # biller; the client gives up on it (its connection drops) while it is still running.
        def dropping_transport(request: Request) -> Response:
            is_bill = request.method == "POST" and request.url.endswith("/api/bills/pay")
            if is_bill and not first:
                sent.append({"key": request.headers["idempotency-key"], "status": None})

                def run_first() -> None:
                    first["answer"] = urllib_transport(request)

                thread = threading.Thread(target=run_first)
                thread.start()
                first["thread"] = thread
                self.assertTrue(self.control("GET", "/entered")["entered"])
                raise ConnectionResetError("connection reset by peer")
            answer = urllib_transport(request)
            if is_bill:
                code = json.loads(answer.body).get("code") if answer.status == 409 else None
                sent.append({"key": request.headers["idempotency-key"], "status": answer.status, "code": code})
            return answer

        retries: List[RetryEvent] = []

        def on_retry(event: RetryEvent) -> None:
            retries.append(event)
            # The first attempt finishes once its retry has been told it is still in progress.
            if event.error.code == "idempotency_in_progress":
                self.control("POST", "/release")

        client = Tapline(url, api_key=shop["liveKey"], transport=dropping_transport, retry=RetryPolicy(max_retries=8, initial_delay=0.02, max_delay=0.2), on_retry=on_retry)
        answer = client.raw("POST", "/api/bills/pay", body={"billType": "electricity", "billerId": "kplc-prepaid", "accountRef": "14123456789", "amount": 1000})
        first["thread"].join(timeout=30)

        self.assertEqual(answer.status, 201)
        self.assertEqual(answer.headers.get("idempotent-replayed"), "true", "the retry answers the first request's result")
        codes = [event.error.code for event in retries]
        self.assertEqual(codes[0], "connection_error")
        # One or more 409s: the first attempt may take a moment to finish once released.
        self.assertGreaterEqual(len(codes), 2, codes)
        self.assertTrue(all(code == "idempotency_in_progress" for code in codes[1:]), codes)
        self.assertEqual(answer.attempts, len(codes) + 1)
        self.assertEqual([(attempt["status"], attempt.get("code")) for attempt in sent], [(None, None)] + [(409, "idempotency_in_progress")] * (len(codes) - 1) + [(201, None)])
        self.assertEqual(len({attempt["key"] for attempt in sent}), 1, "every attempt carries the same Idempotency-Key")
        original = first["answer"]
        self.assertEqual(original.status, 201)
        bill = json.loads(original.body)
        self.assertEqual(answer.data["id"], bill["id"])
        self.assertEqual(answer.data["status"], "completed")
        # Charged once: the biller was asked once, the wallet debited amount + fee once.
        self.assertEqual(self.control("GET", "/calls")["calls"] - calls_before, 1)
        self.assertEqual(minor_balance(client, "KES"), round((5000 - 1000 - answer.data["fee"]) * 100))


class PosTest(unittest.TestCase):
    def test_a_session_paid_by_a_tag_tap_by_polling_and_by_the_signed_callback(self) -> None:
        shop = merchant()
        handle = unique("ada")
        admin().request("POST", "/api/admin/wallets", body={"handle": handle, "displayName": "Ada", "country": "NG", "currency": "NGN", "pin": "4829"})
        admin().request("POST", "/api/admin/wallets/{handle}/credit", params={"handle": handle}, body={"amount": 100, "currency": "NGN"})
        client = Tapline(base_url(), api_key=shop["testKey"], key_header="authorization", retry=FAST_RETRIES)
        tag = client.request("POST", "/api/wearables", body={"handle": handle, "tagType": "ring", "displayName": "Ada ring"})
        self.assertRegex(tag["tagId"], r"^TG[0-9A-F]{8}$")

        taps: List[threading.Thread] = []
        outcomes: List[str] = []

        def reader_sees_the_ring(session: Dict[str, Any]) -> None:
            # The terminal's reader sees the ring while charge() polls.
            tap = threading.Thread(target=client.pos.tap, args=(session["sessionId"], tag["tagId"]))
            tap.start()
            taps.append(tap)

        session = client.pos.charge(
            {"amount": 12.5, "currency": "NGN", "description": "Suya", "callbackUrl": f"{receiver.url}/pos"},
            on_created=lambda created: reader_sees_the_ring(dict(created)),
            on_outcome=lambda ended: outcomes.append(ended["status"]),
            interval=0.05,
            timeout=30,
        )
        for tap in taps:
            tap.join()
        self.assertEqual(session["status"], "completed")
        self.assertEqual(session.get("payerHandle"), f"@{handle}")
        self.assertEqual(outcomes, ["completed"])

        callback = receiver.wait_for((session["sessionId"],), path="/hooks/pos")
        signature = callback.headers["x-service-signature"]
        self.assertRegex(signature, r"^sha256=[0-9a-f]{64}$")
        event = verify_webhook(callback.body, signature, shop["webhookSecret"])
        self.assertEqual(event["event"], "pos.session.completed")
        self.assertEqual(event["sessionId"], session["sessionId"])

        with self.assertRaises(ConflictError) as conflict:
            client.pos.tap(session["sessionId"], "TG00000000")
        self.assertEqual(conflict.exception.code, "session_not_pending")
        self.assertEqual(conflict.exception.status, 409)


class PagingTest(unittest.TestCase):
    def test_pages_of_a_list_are_iterated(self) -> None:
        shop = merchant()
        gets: List[str] = []

        def counting(request: Request) -> Response:
            if request.method == "GET":
                gets.append(request.url)
            return urllib_transport(request)

        client = Tapline(base_url(), api_key=shop["testKey"], transport=counting)
        created = [client.pos.create_session({"amount": 1 + index, "currency": "NGN"})["sessionId"] for index in range(5)]
        seen = [session["sessionId"] for session in client.paginate("/api/pos/sessions", page_size=2)]
        self.assertEqual(len(gets), 3, "pages of 2, 2 and 1")
        self.assertEqual(seen, list(reversed(created)), "newest first")


class RateLimitTest(unittest.TestCase):
    def test_a_429_is_waited_out_for_its_retry_after(self) -> None:
        shop = merchant(room=False)
        retries: List[RetryEvent] = []
        client = Tapline(base_url(), api_key=shop["testKey"], on_retry=retries.append)
        started = time.monotonic()
        for _ in range(3):
            self.assertEqual(client.request("GET", "/api/merchant/balance")["handle"], shop["handle"])
        limited = [event for event in retries if event.error.status == 429]
        self.assertGreaterEqual(len(limited), 1, "the limit was met")
        for event in limited:
            self.assertEqual(event.error.code, "rate_limited")
            retry_after = int(event.error.headers["retry-after"])
            self.assertTrue(1 <= retry_after <= 2, retry_after)
            self.assertGreaterEqual(event.delay, retry_after)
        self.assertGreaterEqual(time.monotonic() - started, 1)
        try:
            client.request("GET", "/api/merchant/balance", max_retries=0)
        except RateLimitError:
            pass
        with self.assertRaises(RateLimitError) as limit:
            client.request("GET", "/api/merchant/balance", max_retries=0)
        self.assertEqual(limit.exception.code, "rate_limited")
        self.assertGreaterEqual(limit.exception.retry_after_seconds or 0, 1)


class ErrorsTest(unittest.TestCase):
    def test_typed_errors_carry_the_code_and_both_key_headers_work(self) -> None:
        shop = merchant()
        via_header = Tapline(base_url(), api_key=shop["testKey"])
        via_bearer = Tapline(base_url(), api_key=shop["testKey"], key_header="authorization")
        self.assertEqual(via_header.request("GET", "/api/merchant/balance")["handle"], shop["handle"])
        self.assertEqual(via_bearer.request("GET", "/api/merchant/balance")["handle"], shop["handle"])
        with self.assertRaises(NotFoundError) as missing:
            via_header.payments.retrieve("pay_unknown")
        self.assertEqual(missing.exception.code, "payment_not_found")
        with self.assertRaises(AuthenticationError) as stranger:
            Tapline(base_url(), api_key="mk_test_" + "0" * 64).request("GET", "/api/merchant/balance")
        self.assertEqual(stranger.exception.code, "invalid_api_key")
        # Two concurrent calls with one Idempotency-Key: one payment, the same answer to both.
        body = {"fromCode": "NG", "toCode": "NG", "rail": "mobile_money", "amount": 10, "currency": "NGN", "receiver": "+2348012345678"}
        answers: List[Dict[str, Any]] = []

        def pay(client: Tapline) -> None:
            answers.append(dict(client.payments.create(body, idempotency_key="py-concurrent-1")))

        threads = [threading.Thread(target=pay, args=(client,)) for client in (via_header, via_bearer)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(len(answers), 2)
        self.assertEqual(answers[0]["id"], answers[1]["id"])
        self.assertEqual(via_header.payments.list()["total"], 1)


if __name__ == "__main__":
    unittest.main()
