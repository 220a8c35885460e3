"""What the store tells endpoints, and the one call that emits it.

`webhook_event_emit(type, key=…, data=…)` is called by the service that records each thing (the same place that
writes its activity-log row or its ledger entry), in that change's transaction: the event exists exactly when the
change does (a rolled-back registration sends nothing), and the worker is asked to send it once the transaction
commits. `key` makes it once: a replay of the same change (a Stripe event delivered twice, a task run twice) emits
nothing new. Nothing is stored when no active endpoint takes the type.

The data is the caller's plain facts; keys that name a secret (a transfer code, a card number) are refused, as the
activity log refuses them, so a careless caller fails its tests instead of sending one out.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Protocol

from django.db import IntegrityError, transaction
from django.utils import timezone

from reseller_webhooks.models import Delivery, Endpoint, Event
from reseller_webhooks.sending import RETRY_FOR
from reseller_webhooks.tasks import send_delivery

logger = logging.getLogger(__name__)

CUSTOMER_CREATED = "customer.created"
DOMAIN_REGISTERED = "domain.registered"
DOMAIN_RENEWED = "domain.renewed"
DOMAIN_EXPIRING = "domain.expiring"
DOMAIN_REFUNDED = "domain.refunded"
PAYMENT_CAPTURED = "payment.captured"
PAYMENT_REFUNDED = "payment.refunded"
DISPUTE_OPENED = "dispute.opened"
DISPUTE_CLOSED = "dispute.closed"

# Each event type and when it is sent (the admin's checkboxes and docs/webhooks.md say the same).
EVENT_TYPES: dict[str, str] = {
    CUSTOMER_CREATED: "a customer signed up (their address not yet confirmed)",
    DOMAIN_REGISTERED: "a domain was registered at the provider",
    DOMAIN_RENEWED: "a domain was renewed (by its customer, or by auto-renew)",
    DOMAIN_EXPIRING: "a domain expires in 30 days, then in 7 (once each)",
    DOMAIN_REFUNDED: "a domain's payment was refunded: the store no longer renews it",
    PAYMENT_CAPTURED: "money was taken from a card",
    PAYMENT_REFUNDED: "money was given back to a card",
    DISPUTE_OPENED: "a cardholder disputed a payment",
    DISPUTE_CLOSED: "a dispute closed (won, lost or withdrawn)",
}

_SECRET_KEYS = frozenset(
    {"password", "code", "transfer_code", "auth_code", "token", "secret", "number", "card", "cvc", "key"}
)


def _plain(value: Any, *, path: str = "") -> Any:
    """JSON's types only (Decimal as a string, so no amount is rounded through a float), refusing secret keys."""
    if isinstance(value, Mapping):
        secret = _SECRET_KEYS.intersection(str(key).lower() for key in value)
        if secret:
            raise ValueError(f"a webhook never carries secrets: {sorted(secret)} in {path or 'data'}")
        return {str(key): _plain(item, path=f"{path}.{key}") for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item, path=path) for item in value]
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def webhook_event_emit(event_type: str, *, key: str, data: Mapping[str, Any]) -> Event | None:
    """Record the event and one delivery per active endpoint that takes its type, in the caller's transaction; the
    worker sends them once it commits. None when no endpoint takes it, or when `key` was emitted already."""
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown webhook event {event_type!r}")
    body = _plain(data)
    endpoints = [endpoint for endpoint in Endpoint.objects.filter(active=True) if event_type in endpoint.events]
    if not endpoints:
        return None
    now = timezone.now()
    try:
        with transaction.atomic():
            event = Event.objects.create(key=f"{event_type}:{key}"[:200], type=event_type, created_at=now, data=body)
            deliveries = Delivery.objects.bulk_create(
                Delivery(
                    event=event, endpoint=endpoint, created_at=now, retry_until=now + RETRY_FOR, next_attempt_at=now
                )
                for endpoint in endpoints
            )
    except IntegrityError:
        logger.info("webhook event %s %s was emitted already", event_type, key)
        return None
    for delivery in deliveries:
        _send_after_commit(delivery.pk)
    return event


class OrderLike(Protocol):
    """A domain as an event tells it (domains.models.Order, which this app may not import)."""

    order_id: int
    domain_name: str
    customer_id: int
    expires_at: dt.datetime | None
    auto_renew: bool


def webhook_domain_event_emit(
    event_type: str,
    *,
    key: str,
    order: OrderLike | None,
    domain_name: str = "",
    customer_id: int | None = None,
    expires_at: dt.datetime | None = None,
    facts: Mapping[str, Any] | None = None,
) -> Event | None:
    """A domain's event: `data.domain` from the order (or, before there is one, its name and customer; `expires_at`
    when the caller knows a newer expiry than the order's copy), beside the event's own `facts`."""
    domain = {
        "name": order.domain_name if order is not None else domain_name,
        "order_id": order.order_id if order is not None else None,
        "customer_id": order.customer_id if order is not None else customer_id,
        "expires_at": expires_at or (order.expires_at if order is not None else None),
        "auto_renew": order.auto_renew if order is not None else False,
    }
    return webhook_event_emit(event_type, key=key, data={"domain": domain, **(facts or {})})


def webhook_dispute_emit(*, dispute_id: str, before: str, is_open: bool, data: Mapping[str, Any]) -> None:
    """A dispute's change of state (`before`: its status before, empty when first seen): opened when first seen,
    closed when it leaves the open states (a dispute first seen closed is both, in that order)."""
    if not before:
        webhook_event_emit(DISPUTE_OPENED, key=dispute_id, data=data)
    if not is_open:
        webhook_event_emit(DISPUTE_CLOSED, key=dispute_id, data=data)


def _send_after_commit(delivery_id: int) -> None:
    """Sent once the change it reports is committed; a lost enqueue is picked up by the minute's sweep. (Tests that
    run inside one transaction replace this with a send at once: tests/reseller_webhooks/conftest.py.)"""
    transaction.on_commit(lambda: send_delivery.enqueue(delivery_id=delivery_id), robust=True)
