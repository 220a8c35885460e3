"""A local capture of the error tracker's HTTP endpoint: Sentry's envelope endpoint on a loopback port, keeping what
each envelope carried, so tests see what would leave the process (and that nothing secret does)."""

from __future__ import annotations

import gzip
import json
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import brotli  # type: ignore[import-untyped]
import sentry_sdk

from storefront.observability.error_reports import sentry_init


class TrackerCapture:
    def __init__(self) -> None:
        self.bodies: list[str] = []  # each envelope, decompressed: what went over the wire
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    @property
    def dsn(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://publickey@{host!s}:{port}/42"

    @property
    def raw(self) -> str:
        with self._lock:
            return "\n".join(self.bodies)

    def events(self) -> list[dict[str, Any]]:
        """The error events received (items of type "event"), in order."""
        found = []
        for body in list(self.bodies):
            lines = body.split("\n")
            for header, payload in zip(lines[1::2], lines[2::2], strict=False):
                if json.loads(header).get("type") == "event":
                    found.append(json.loads(payload))
        return found

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        capture = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                encoding = self.headers.get("Content-Encoding", "")
                if encoding == "gzip":
                    body = gzip.decompress(body)
                elif encoding == "br":
                    body = brotli.decompress(body)
                elif encoding == "deflate":
                    body = zlib.decompress(body)
                with capture._lock:
                    capture.bodies.append(body.decode())
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

    @contextmanager
    def running(self, *, environment: str = "test", release: str = "deadbeef") -> Iterator[TrackerCapture]:
        """The storefront's error tracker set up as SENTRY_DSN would, pointed here; switched off afterwards."""
        self._thread.start()
        sentry_init(dsn=self.dsn, environment=environment, release=release)
        try:
            yield self
        finally:
            sentry_sdk.flush(timeout=5)
            sentry_sdk.init(dsn=None)
            self._server.shutdown()
            self._server.server_close()

    def flushed(self) -> TrackerCapture:
        """Once every event captured so far has been sent (the SDK sends from a thread of its own)."""
        sentry_sdk.flush(timeout=10)
        return self
