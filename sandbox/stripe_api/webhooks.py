"""Events: recorded with every change, signed as Stripe signs them, POSTed to the configured endpoint.

Delivery happens in a thread after the change is committed, as Stripe's does after its answer; the setup's faults
delay it, send each event twice, send one step's events in reverse order, or never send them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import requests
from django.db import close_old_connections, transaction
from django.db.models import F

from sandbox.stripe_api import objects
from sandbox.stripe_api.models import Delivery, Event, Setup

logger = logging.getLogger(__name__)

DELIVERY_TIMEOUT = 10.0


def signature_header(*, payload: str, secret: str, timestamp: int | None = None) -> str:
    """Stripe's `Stripe-Signature`: `t=<unix time>,v1=<HMAC-SHA256 of "t.payload" keyed by the secret>`."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    mac = hmac.new(secret.encode(), f"{timestamp}.{payload}".encode(), hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


def payload_of(event: Event) -> str:
    return json.dumps(event.data, indent=2)


# The API request (its id and idempotency key) whose change the events being recorded come from. None: the
# sandbox's own doing (a hold lapsing, a refund settling), which Stripe's events show with `request.id` null.
_request: ContextVar[tuple[str | None, str | None]] = ContextVar("stripe_request", default=(None, None))


@contextmanager
def caused_by(request_id: str | None, idempotency_key: str | None = None) -> Iterator[None]:
    token = _request.set((request_id, idempotency_key))
    try:
        yield
    finally:
        _request.reset(token)


# One event: its type, the object, and for an `*.updated` event the changed fields' previous values.
Step = tuple[str, dict] | tuple[str, dict, dict]


def record(steps: list[Step], *, api_key: str) -> None:
    """Record the events of one step and deliver them once the step is committed."""
    request_id, idempotency_key = _request.get()
    ids = []
    for step in steps:
        type, obj = step[0], step[1]
        previous = step[2] if len(step) == 3 else None
        data = objects.event(
            type=type,
            obj=objects.public(obj),
            previous=previous,
            request_id=request_id,
            idempotency_key=idempotency_key,
        )
        Event.objects.create(id=data["id"], type=type, data=data, api_key=api_key, created=data["created"])
        ids.append(data["id"])
    transaction.on_commit(lambda: _start_delivery(ids))


def changed(before: dict, after: dict) -> dict:
    """`previous_attributes` of an update: the top-level fields whose values changed, as they were."""
    return {key: before.get(key) for key in after if not key.startswith("_") and before.get(key) != after[key]}


def _start_delivery(event_ids: list[str]) -> None:
    setup = Setup.current()
    if not setup.endpoint or setup.webhook_delivery == Delivery.NEVER:
        return
    plan = list(event_ids)
    if setup.webhook_delivery == Delivery.OUT_OF_ORDER:
        plan.reverse()
    elif setup.webhook_delivery == Delivery.DUPLICATED:
        plan = [event_id for event_id in plan for _ in range(2)]
    delay = setup.webhook_delay_seconds if setup.webhook_delivery == Delivery.DELAYED else 0.0
    thread = threading.Thread(target=_deliver_all, args=(plan, delay), daemon=True, name="stripe-webhooks")
    thread.start()


def _deliver_all(event_ids: list[str], delay: float) -> None:
    try:
        if delay:
            time.sleep(delay)
        for event_id in event_ids:
            deliver(event_id=event_id)
    finally:
        close_old_connections()


def deliver(*, event_id: str) -> int | None:
    """POST one event to the endpoint now; the endpoint's status, or None when it could not be reached."""
    setup = Setup.current()
    event = Event.objects.get(pk=event_id)
    payload = payload_of(event)
    status: int | None
    try:
        response = requests.post(
            setup.endpoint,
            data=payload.encode(),
            headers={
                "Content-Type": "application/json; charset=utf-8",
                "Stripe-Signature": signature_header(payload=payload, secret=setup.webhook_secret),
                "User-Agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
            },
            timeout=DELIVERY_TIMEOUT,
        )
        status = response.status_code
    except requests.RequestException as err:
        logger.warning("webhook %s to %s failed: %s", event_id, setup.endpoint, type(err).__name__)
        status = None
    Event.objects.filter(pk=event_id).update(deliveries=F("deliveries") + 1, last_delivery_status=status)
    return status
