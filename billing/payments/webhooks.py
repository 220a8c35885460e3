"""Stripe's events: stored by the webhook as they arrive (unique by event id; the endpoint answers 2xx at once) and
processed by the worker, once, in any order.

Processing never trusts an event's copy of an object: it reads the object back from Stripe and moves our records as
far as Stripe's state allows, through the same idempotent steps every other door uses (settling a payment,
recording a refund or a dispute, a lapsed hold). So a late, repeated or out-of-order event changes nothing a newer
one did. Events that move no money of ours are kept and marked ignored.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from billing.errors import PaymentRefused, PaymentUnavailable, UnknownSession
from billing.jobs import stripe_event_process_enqueue
from billing.models import Payment, WebhookEvent
from billing.payments import stripe_client
from billing.payments.card_setup import card_setup_settle
from billing.payments.collection import collection_settle
from billing.payments.disputes import dispute_record, payment_for_dispute
from billing.payments.refunds import refund_record, refunds_of_charge
from billing.payments.services import payment_follow, payment_settle

logger = logging.getLogger(__name__)

Outcome = WebhookEvent.Outcome
# An event being processed is left to its worker this long; past it, the worker is taken for dead.
EVENT_LEASE = dt.timedelta(minutes=10)


class NotAnEvent(ValueError):
    """A body that verified but is not a Stripe event (a list, no `id`, no object): refused before it is stored."""


def webhook_event_parse(payload: str) -> dict[str, Any]:
    """The event in a verified body. Raises NotAnEvent (with what is wrong) unless it is an object with a text `id`,
    a text `type` and a `data.object`: what storing and processing an event read."""
    event = json.loads(payload)
    if not isinstance(event, dict):
        raise NotAnEvent(f"the body is a JSON {type(event).__name__}, not an object")
    event_id = event.get("id")
    if not isinstance(event_id, str) or not event_id.strip():
        raise NotAnEvent("the body has no event id")
    if not isinstance(event.get("type"), str):
        raise NotAnEvent(f"event {event_id[:100]!r} has no type")
    data = event.get("data")
    if not isinstance(data, dict) or not isinstance(data.get("object"), dict):
        raise NotAnEvent(f"event {event_id[:100]!r} has no data.object")
    return event


def webhook_event_record(*, event: dict[str, Any], delivered: bool = True) -> tuple[WebhookEvent, bool]:
    """Store a verified event; a redelivery only counts one more delivery. The event and whether it is new."""
    try:
        with transaction.atomic():
            record = WebhookEvent.objects.create(
                event_id=event["id"],
                type=str(event.get("type", ""))[:100],
                payload=event,
                created=event.get("created"),
                deliveries=1 if delivered else 0,
            )
            return record, True
    except IntegrityError:
        if delivered:
            WebhookEvent.objects.filter(event_id=event["id"]).update(deliveries=F("deliveries") + 1)
        return WebhookEvent.objects.get(event_id=event["id"]), False


def webhook_event_receive(*, event: dict[str, Any]) -> WebhookEvent:
    """The webhook's whole work: store the event (in the request's autocommit) and hand it to the worker. A
    redelivery of an event not processed yet hands it over again."""
    record, _ = webhook_event_record(event=event)
    if record.processed_at is None:
        stripe_event_process_enqueue(event_id=record.event_id)
    return record


def webhook_event_process(*, event_id: str) -> str:
    """Act on the stored event unless that was done. Its outcome; raises PaymentUnavailable when Stripe could not
    be asked (the error is kept on the event and it is tried again).

    The event is claimed for a few minutes (a conditional update, committed at once) rather than locked: the work it
    leads to (registering paid lines) commits step by step, as every other door's does, and a worker that dies
    leaves the claim to lapse. The steps are idempotent, so a claim taken over never does the work twice.
    """
    now = timezone.now()
    claimable = Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - EVENT_LEASE)
    if not WebhookEvent.objects.filter(claimable, event_id=event_id, processed_at__isnull=True).update(claimed_at=now):
        return WebhookEvent.objects.filter(event_id=event_id).values_list("outcome", flat=True).first() or ""
    record = WebhookEvent.objects.get(event_id=event_id)
    handler = _HANDLERS.get(record.type)
    try:
        outcome = Outcome.IGNORED if handler is None else handler(record.payload["data"]["object"])
    except PaymentUnavailable as err:
        WebhookEvent.objects.filter(pk=record.pk).update(
            attempts=F("attempts") + 1, error=err.detail[:1000], claimed_at=None
        )
        raise
    except Exception as err:
        WebhookEvent.objects.filter(pk=record.pk).update(
            attempts=F("attempts") + 1, error=f"{type(err).__name__} (see the worker's log)", claimed_at=None
        )
        raise
    WebhookEvent.objects.filter(pk=record.pk, processed_at__isnull=True).update(
        processed_at=timezone.now(), outcome=outcome, attempts=F("attempts") + 1, error=""
    )
    if outcome == Outcome.NOT_OURS:
        logger.info("stripe event %s (%s): not one of our payments", record.event_id, record.type)
    return outcome


# --- Handlers: each reads Stripe's current state of the event's object and records it --------------------------


def _session(obj: dict[str, Any]) -> str:
    if obj.get("mode") == "setup":
        # A card added without buying (billing/payments/card_setup.py): it becomes the saved card, once.
        return Outcome.PROCESSED if card_setup_settle(session_id=obj["id"]) is not None else Outcome.NOT_OURS
    try:
        payment_settle(session_id=obj["id"])
    except UnknownSession:
        return Outcome.NOT_OURS  # another integration's session on the same Stripe account
    return Outcome.PROCESSED


def _payment_intent(obj: dict[str, Any]) -> str:
    """An intent authorised, captured or cancelled (a lapsed hold among them): the payment follows Stripe."""
    payment = Payment.objects.for_intent(obj["id"]) or _by_metadata(obj)
    if payment is None:
        return Outcome.NOT_OURS
    if payment.collection_intent_id == obj["id"] or payment.status == Payment.Status.UNPAID:
        collection_settle(payment=payment)
    else:
        payment_follow(payment=payment)
    return Outcome.PROCESSED


def _charge(obj: dict[str, Any]) -> str:
    """A charge refunded or expired: its refunds are recorded (those it lists), its intent followed."""
    payment = Payment.objects.for_intent(_id(obj.get("payment_intent")))
    if payment is None:
        return Outcome.NOT_OURS
    charge = stripe_client.call("charge retrieve", lambda client: client.v1.charges.retrieve(obj["id"]))
    refunds_of_charge(payment=payment, charge=charge)
    payment_follow(payment=payment)
    return Outcome.PROCESSED


def _refund(obj: dict[str, Any]) -> str:
    payment = Payment.objects.for_intent(_id(obj.get("payment_intent")))
    if payment is None:
        return Outcome.NOT_OURS
    refund = stripe_client.call("refund retrieve", lambda client: client.v1.refunds.retrieve(obj["id"]))
    refund_record(payment=payment, refund=refund)
    return Outcome.PROCESSED


def _dispute(obj: dict[str, Any]) -> str:
    dispute = stripe_client.call("dispute retrieve", lambda client: client.v1.disputes.retrieve(obj["id"]))
    payment = payment_for_dispute(dispute)
    if payment is None:
        return Outcome.NOT_OURS
    dispute_record(payment=payment, dispute=dispute)
    return Outcome.PROCESSED


def _by_metadata(obj: dict[str, Any]) -> Payment | None:
    """An off-session intent whose creation answer was lost: ours if its metadata names one of our checkouts."""
    checkout_id = stripe_client.metadata_value(obj, "checkout_id")
    try:
        return Payment.objects.filter(checkout_id=checkout_id).first() if checkout_id else None
    except (ValueError, TypeError, ValidationError):
        return None


def _id(value: Any) -> str | None:
    if isinstance(value, dict):
        return value.get("id")
    return value if isinstance(value, str) else None


def _checked(handler: Callable[[dict[str, Any]], str]) -> Callable[[dict[str, Any]], str]:
    def run(obj: dict[str, Any]) -> str:
        try:
            return handler(obj)
        except PaymentRefused as err:
            if err.code == "resource_missing":
                return Outcome.NOT_OURS  # another account's object (keys changed): nothing of ours
            raise

    return run


_HANDLERS: dict[str, Callable[[dict[str, Any]], str]] = {
    name: _checked(handler)
    for names, handler in [
        (
            (
                "checkout.session.completed",
                "checkout.session.async_payment_succeeded",
                "checkout.session.async_payment_failed",
                "checkout.session.expired",
            ),
            _session,
        ),
        (
            (
                "payment_intent.amount_capturable_updated",
                "payment_intent.succeeded",
                "payment_intent.canceled",
                "payment_intent.payment_failed",
            ),
            _payment_intent,
        ),
        (("charge.refunded", "charge.expired", "charge.captured"), _charge),
        (("refund.created", "refund.updated", "refund.failed"), _refund),
        (
            (
                "charge.dispute.created",
                "charge.dispute.updated",
                "charge.dispute.closed",
                "charge.dispute.funds_withdrawn",
                "charge.dispute.funds_reinstated",
            ),
            _dispute,
        ),
    ]
    for name in names
}
# The events that move money of ours: what the endpoint should listen to (docs/payments.md), and what the
# reconciler reads back from Stripe's list of events.
HANDLED_EVENTS = tuple(sorted(_HANDLERS))
