"""A real HTTP receiver on loopback (the deliveries go over the wire, signed), and endpoints pointed at it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from reseller_webhooks.events import EVENT_TYPES
from reseller_webhooks.models import Endpoint


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    url: str
    received: list[Received] = field(default_factory=list)
    # The statuses to answer, in turn; 200 once they run out.
    answers: list[int] = field(default_factory=list)

    def of_type(self, event_type: str) -> list[Received]:
        import json

        return [each for each in self.received if json.loads(each.body)["type"] == event_type]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            state.received.append(Received(self.path, dict(self.headers.items()), body))
            self.send_response(state.answers.pop(0) if state.answers else 200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/store"
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture
def endpoint(receiver, db) -> Endpoint:
    """An active endpoint taking every event type."""
    return Endpoint.objects.create(url=receiver.url, events=list(EVENT_TYPES))


@pytest.fixture(autouse=True)
def _deliveries_sent_at_once(request, monkeypatch) -> None:
    """As the outbox's (tests/conftest.py): a test inside one transaction never commits, so the worker's task
    (immediate backend) is run at once instead of after the commit."""
    marker = request.node.get_closest_marker("django_db")
    if marker is not None and (marker.kwargs.get("transaction") or marker.kwargs.get("serialized_rollback")):
        return
    from reseller_webhooks import events
    from reseller_webhooks.tasks import send_delivery

    monkeypatch.setattr(
        events, "_send_after_commit", lambda delivery_id: send_delivery.enqueue(delivery_id=delivery_id)
    )
