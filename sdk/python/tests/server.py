"""A real Tapline server for the tests: ``node --import tsx <entry>`` from the repository (by default
sync-server/src/main.ts, as ``npm run server``; the suite uses HELD_BILLER_ENTRY, the same app with a
bill-payment provider it can hold in flight), on PostgreSQL when TAPLINE_TEST_DATABASE_URL names a (fresh) database, else on the
embedded PGlite in a temporary DATA_DIR. It listens on a free port; its admin token is known."""

from __future__ import annotations

import http.server
import os
import queue
import re
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

REPOSITORY = Path(__file__).resolve().parents[3]
ADMIN_TOKEN = "python-sdk-tests-admin-token-0123456789"


#: The server with a bill-payment provider whose next payment can be held in flight (its control
#: listener: POST /hold, GET /entered, POST /release, GET /calls), for the 409 idempotency_in_progress test.
HELD_BILLER_ENTRY = "test/sdk/held-biller-server.ts"


class TestServer:
    def __init__(self, env: Dict[str, str], entry: str = "sync-server/src/main.ts") -> None:
        self.data_dir = tempfile.mkdtemp(prefix="tapline-python-sdk-")
        database_url = os.environ.get("TAPLINE_TEST_DATABASE_URL")
        self.database = "postgres" if database_url else "pglite"
        environment = {
            **os.environ,
            "PORT": "0",
            "HOST": "127.0.0.1",
            "ADMIN_TOKEN": ADMIN_TOKEN,
            "SECRETS_KEY": "7e57" * 16,
            "LOG_LEVEL": "warn",
            "DATA_DIR": self.data_dir,
            **env,
        }
        environment.pop("DATABASE_URL", None)
        if database_url:
            environment["DATABASE_URL"] = database_url
        self.process = subprocess.Popen(
            ["node", "--import", "tsx", entry],
            cwd=REPOSITORY,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.output: List[str] = []
        lines: "queue.Queue[str]" = queue.Queue()

        def drain() -> None:
            assert self.process.stdout is not None
            for line in self.process.stdout:
                self.output.append(line)
                lines.put(line)

        threading.Thread(target=drain, daemon=True).start()
        # Generous: on a busy machine the first start (migrations on PGlite) can take a minute or more.
        deadline = time.monotonic() + 180
        self.url = ""
        #: The held biller's control listener (HELD_BILLER_ENTRY only).
        self.control_url = ""
        while not self.url:
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.stop()
                raise RuntimeError("the server did not start:\n" + "".join(self.output))
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                continue
            control = re.search(r"held biller control on (http://\S+)", line)
            if control:
                self.control_url = control.group(1)
            match = re.search(r"listening on (http://\S+) \(database: (\w+)", line)
            if match:
                self.url = match.group(1)
                # The database the server says it runs on, so a suite meant for PostgreSQL cannot
                # quietly run on PGlite.
                if match.group(2) != ("PostgreSQL" if database_url else "embedded"):
                    self.stop()
                    raise RuntimeError(f"the server runs on {match.group(2)}, not {self.database}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.data_dir, ignore_errors=True)


@dataclass
class Received:
    path: str
    headers: Dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """A webhook receiver on a free loopback port: records every request's raw body."""

    received: List[Received] = field(default_factory=lambda: [])
    server: Optional[http.server.ThreadingHTTPServer] = None

    @property
    def url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/hooks"

    def start(self) -> "Receiver":
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
                length = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(length)
                receiver.received.append(Received(self.path, {name.lower(): value for name, value in self.headers.items()}, body))
                self.send_response(200)
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
                return

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def wait_for(self, predicate_text: Tuple[str, ...], path: Optional[str] = None, timeout: float = 60) -> Received:
        """The first request whose body contains every text (and whose path is `path`)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for request in list(self.received):
                text = request.body.decode("utf-8", errors="replace")
                if all(part in text for part in predicate_text) and (path is None or request.path == path):
                    return request
            time.sleep(0.05)
        raise AssertionError(f"no request with {predicate_text} arrived")

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
