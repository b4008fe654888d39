"""The Tapline API client."""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.parse
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, cast

from .errors import APIConnectionError, TaplineError, error_from_answer
from .resources import Payments, Pos
from .retry import RetryEvent, RetryPolicy, retry_delay
from .transport import Request, Transport, urllib_transport
from .webhooks import verify_webhook

__all__ = ["RawAnswer", "Tapline"]


@dataclass(frozen=True)
class RawAnswer:
    """An answer with what the caller may want besides its body."""

    data: Any
    status: int
    #: Lower-case names (``idempotent-replayed``, ``x-ratelimit-remaining``...).
    headers: Dict[str, str]
    #: The Idempotency-Key sent (POST), the same on every attempt.
    idempotency_key: Optional[str]
    #: 1 when the first attempt answered.
    attempts: int


def _with_path_params(path: str, params: Optional[Mapping[str, Any]]) -> str:
    def fill(name: str) -> str:
        value = (params or {}).get(name)
        if value is None or value == "":
            raise TypeError(f"Path parameter {name} of {path} is missing")
        return urllib.parse.quote(str(value), safe="")

    result, rest = "", path
    while "{" in rest:
        before, _, after = rest.partition("{")
        name, _, rest = after.partition("}")
        result += before + fill(name)
    return result + rest


def _query_string(query: Optional[Mapping[str, Any]]) -> str:
    if not query:
        return ""
    pairs: List[Tuple[str, str]] = []
    for name, value in query.items():
        if value is None:
            continue
        items: List[Any] = list(cast(Iterable[Any], value)) if isinstance(value, (list, tuple)) else [value]
        for item in items:
            pairs.append((name, str(item).lower() if isinstance(item, bool) else str(item)))
    return f"?{urllib.parse.urlencode(pairs)}" if pairs else ""


def _decode(headers: Mapping[str, str], body: bytes) -> Any:
    if not body:
        return None
    text = body.decode("utf-8", errors="replace")
    if "json" not in headers.get("content-type", ""):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


class Tapline:
    """The Tapline API client.

    POSTs carry an Idempotency-Key kept across retries; network failures, 409
    idempotency_in_progress, 429 (after Retry-After) and 5xx are retried with backoff; failures
    raise TaplineErrors carrying the API's ``code``.

    ``api_key``: a merchant key (``mk_test_``/``mk_live_``), sent as ``x-merchant-api-key`` or,
    with ``key_header="authorization"``, as ``Authorization: Bearer``; or a publishable key.
    ``token``: ``wallet.<token>``, ``agent.<token>``, ``term.<token>`` or ``admin.<token>``.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: Optional[str] = None,
        token: Optional[str] = None,
        key_header: str = "x-merchant-api-key",
        timeout: float = 30.0,
        retry: Optional[RetryPolicy] = None,
        on_retry: Optional[Callable[[RetryEvent], None]] = None,
        transport: Optional[Transport] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not base_url:
            raise ValueError("base_url is required, e.g. https://api.example.com")
        if key_header not in ("x-merchant-api-key", "authorization"):
            raise ValueError("key_header must be x-merchant-api-key or authorization")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.token = token
        self.key_header = key_header
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.on_retry = on_retry
        self.transport: Transport = transport or urllib_transport
        self._sleep = sleep
        self.payments = Payments(self)
        self.pos = Pos(self)

    def with_options(self, **changes: Any) -> "Tapline":
        """A client with other options, e.g. another credential: ``client.with_options(token="wallet." + token)``."""
        options: Dict[str, Any] = {
            "api_key": self.api_key,
            "token": self.token,
            "key_header": self.key_header,
            "timeout": self.timeout,
            "retry": self.retry,
            "on_retry": self.on_retry,
            "transport": self.transport,
            "sleep": self._sleep,
        }
        options.update(changes)
        base_url = str(options.pop("base_url", self.base_url))
        return Tapline(base_url, **options)

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        idempotency_key: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Any:
        """One API call; answers the success body (parsed JSON). Path parameters as in the
        OpenAPI document: ``client.request("GET", "/api/payments/{id}", params={"id": payment_id})``."""
        return self.raw(
            method, path, params=params, query=query, body=body, idempotency_key=idempotency_key,
            headers=headers, timeout=timeout, max_retries=max_retries,
        ).data

    def raw(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        idempotency_key: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> RawAnswer:
        """Like request, with the status, the headers, the Idempotency-Key and the attempts."""
        verb = method.upper()
        url = f"{self.base_url}{_with_path_params(path, params)}{_query_string(query)}"
        # One key per call, made before the first attempt: every retry repeats it, so the server
        # answers the first result instead of running the call twice.
        key = idempotency_key if idempotency_key is not None else (str(uuid.uuid4()) if verb == "POST" else None)
        sent: Dict[str, str] = {"accept": "application/json", **self._credential_headers(), **(headers or {})}
        if key is not None:
            sent["idempotency-key"] = key
        data: Optional[bytes] = None
        if body is not None:
            data = json.dumps(body, separators=(",", ":")).encode("utf-8")
            sent["content-type"] = "application/json"
        retries = self.retry.max_retries if max_retries is None else max_retries
        attempt = 1
        while True:
            try:
                answer = self.transport(Request(verb, url, sent, data, self.timeout if timeout is None else timeout))
                decoded = _decode(answer.headers, answer.body)
                if 200 <= answer.status < 300:
                    return RawAnswer(decoded, answer.status, dict(answer.headers), key, attempt)
                failure: TaplineError = error_from_answer(answer.status, answer.headers, decoded)
            except (OSError, http.client.HTTPException) as error:
                code = "timeout" if isinstance(error, socket.timeout) or "timed out" in str(error) else "connection_error"
                failure = APIConnectionError(f"No answer from {verb} {path}: {error}", code=code)
                failure.__cause__ = error
            delay = None if attempt > retries else retry_delay(self.retry, failure, attempt - 1)
            if delay is None:
                raise failure
            if self.on_retry is not None:
                self.on_retry(RetryEvent(attempt, delay, failure))
            self._sleep(delay)
            attempt += 1

    def paginate(
        self,
        path: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        page_size: int = 100,
    ) -> Iterator[Dict[str, Any]]:
        """Every item of a list, page after page (``{data, total, limit, offset}``), fetched as
        the loop asks. Lists are newest first: an item created while iterating may shift the pages."""
        offset = int((query or {}).get("offset", 0))
        while True:
            page = self.request("GET", path, params=params, query={**(query or {}), "limit": page_size, "offset": offset})
            items = page["data"]
            yield from items
            offset += len(items)
            if not items or offset >= page["total"]:
                return

    def verify_webhook(
        self, payload: Any, signature: Optional[str], secret: str, *, tolerance_seconds: Optional[float] = None
    ) -> Dict[str, Any]:
        """Checks a webhook's signature on its raw body and answers the event (see tapline.verify_webhook)."""
        return verify_webhook(payload, signature, secret, tolerance_seconds=tolerance_seconds)

    def _credential_headers(self) -> Dict[str, str]:
        if self.token:
            return {"authorization": f"Bearer {self.token}"}
        if not self.api_key:
            return {}
        if self.api_key.startswith("mk_") and self.key_header != "authorization":
            return {"x-merchant-api-key": self.api_key}
        return {"authorization": f"Bearer {self.api_key}"}

