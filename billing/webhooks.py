"""Stripe's webhook: the second door to `payment_settle`. Each event is stored by its id and processed once."""

from __future__ import annotations

import logging
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from billing.errors import PaymentUnavailable, UnknownSession
from billing.models import WebhookEvent
from billing.services import payment_settle

logger = logging.getLogger(__name__)

# The events that move a payment; each leads to the same idempotent settle step, which reads the session back.
SETTLING_EVENTS = {
    "checkout.session.completed",
    "checkout.session.async_payment_succeeded",
    "checkout.session.async_payment_failed",
    "checkout.session.expired",
}


def webhook_event_record(*, event: dict[str, Any]) -> WebhookEvent:
    """Store a verified event (a redelivery only counts one more delivery)."""
    try:
        with transaction.atomic():
            return WebhookEvent.objects.create(event_id=event["id"], type=event["type"], payload=event)
    except IntegrityError:
        WebhookEvent.objects.filter(event_id=event["id"]).update(deliveries=F("deliveries") + 1)
        return WebhookEvent.objects.get(event_id=event["id"])


def webhook_event_process(*, record: WebhookEvent) -> bool:
    """Act on the event unless that was done; False when Stripe should deliver it again later (we could not
    reach Stripe to read the session back)."""
    if record.processed_at is not None:
        return True
    if record.type in SETTLING_EVENTS:
        session_id = record.payload["data"]["object"]["id"]
        try:
            payment_settle(session_id=session_id)
        except UnknownSession:
            # Another integration's session on the same Stripe account: nothing of ours to do.
            logger.info("webhook %s: session %s is not one of our payments", record.event_id, session_id)
        except PaymentUnavailable as err:
            WebhookEvent.objects.filter(pk=record.pk).update(error=err.detail[:1000])
            return False
    WebhookEvent.objects.filter(pk=record.pk, processed_at__isnull=True).update(processed_at=timezone.now(), error="")
    return True
