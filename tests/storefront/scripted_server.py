"""A tiny HTTP server for fault tests: answers what the test scripts (status, headers, body, delay, drop)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    status: int = 200
    body: Any = field(default_factory=dict)  # dict/list is sent as JSON, str/bytes as they are
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False  # close the connection without answering


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    client_port: int = 0


class ScriptedServer:
    def __init__(self) -> None:
        self.answers: list[Answer] = []
        self.default = Answer()
        self.seen: list[Seen] = []
        self.arrivals: list[float] = []  # wall-clock time of each request, for rate tests
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        # shutdown() waits for the serving loop's next poll: the default half second was paid by every test.
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def script(self, *answers: Answer) -> None:
        self.answers = list(answers)

    def _next_answer(self) -> Answer:
        return self.answers.pop(0) if self.answers else self.default

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                seen = Seen(self.command, self.path, dict(self.headers.items()), body, self.client_address[1])
                server.seen.append(seen)
                server.arrivals.append(time.time())
                answer = server._next_answer()
                if answer.delay:
                    time.sleep(answer.delay)
                if answer.drop:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                payload = answer.body
                if isinstance(payload, (dict, list)):
                    data = json.dumps(payload).encode()
                    content_type = "application/json"
                else:
                    data = payload.encode() if isinstance(payload, str) else payload
                    content_type = "text/html"
                try:
                    self.send_response(answer.status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

            do_GET = do_POST = do_PUT = do_DELETE = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

    @contextmanager
    def running(self) -> Iterator[ScriptedServer]:
        self._thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()
