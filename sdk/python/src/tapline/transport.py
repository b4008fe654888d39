"""The HTTP exchange, behind one small interface so that tests (and unusual networks) can
replace it: a Transport takes a Request and answers a Response, or raises OSError when no answer
came. The default one is urllib's, with no dependency."""

from __future__ import annotations

import urllib.error
import urllib.request
from dataclasses import dataclass, field
from email.message import Message
from typing import IO, Callable, Dict, Optional


@dataclass(frozen=True)
class Request:
    method: str
    url: str
    headers: Dict[str, str]
    body: Optional[bytes]
    #: Seconds.
    timeout: float


@dataclass(frozen=True)
class Response:
    status: int
    #: Lower-case names.
    headers: Dict[str, str] = field(default_factory=lambda: {})
    body: bytes = b""


Transport = Callable[[Request], Response]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """The API never redirects; a redirect would resend credentials elsewhere."""

    def redirect_request(
        self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str, headers: Message, newurl: str
    ) -> Optional[urllib.request.Request]:
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def urllib_transport(request: Request) -> Response:
    """Sends the request with urllib; 4xx and 5xx are answers too, not exceptions."""
    prepared = urllib.request.Request(request.url, data=request.body, headers=request.headers, method=request.method)
    try:
        with _opener.open(prepared, timeout=request.timeout) as answer:
            return Response(answer.status, {name.lower(): value for name, value in answer.headers.items()}, answer.read())
    except urllib.error.HTTPError as error:
        with error:
            return Response(error.code, {name.lower(): value for name, value in error.headers.items()}, error.read())
