"""Nothing left hanging: the periodic job (and `manage.py reconcile_payments`) that asks Stripe about every payment
still waiting and settles it the way the return page and the webhook do.

- A payment whose customer was sent to pay a few minutes ago (PAYMENT_RECONCILE_AFTER_MINUTES) and that no door
  settled: its session is read back (paid: registered and captured; expired: cancelled). It is asked less often as
  it ages, until its session expires (Stripe's sessions last a day).
- A payment authorised and not settled for a while: a worker that died mid-line left a line "registering"; once
  its lease has passed the line is taken over (the delivering side finds its own earlier work: exactly once), and
  a capture that was never confirmed is done or read back.
- An authorised payment past its capture deadline: Stripe's answer decides (a lapsed hold after registration is a
  registered-unpaid payment, collected).
- A registered-unpaid payment: its payment link's session is read (paid?), and one never tried is collected.
- Stripe's events: those stored and not processed (a worker that failed) are processed, and the events Stripe lists
  since the last one we have are read and recorded, so a webhook delivery that never arrived is not lost.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db.models import Max, Q
from django.utils import timezone

from billing.errors import PaymentError
from billing.models import Payment, WebhookEvent
from billing.payments import stripe_client
from billing.payments.collection import OUTCOME_UNKNOWN, collection_settle, payment_collect
from billing.payments.services import OFF_SESSION_UNKNOWN, STALE_CLAIM, payment_follow
from billing.payments.webhooks import HANDLED_EVENTS, webhook_event_process, webhook_event_record

if TYPE_CHECKING:  # types only: the calls go through billing.payments.stripe_client
    from stripe.params import EventListParams

logger = logging.getLogger(__name__)

# A created payment is asked about at most every quarter of its age (so every few minutes at first, hourly later),
# and no longer once its session must have expired.
_ASK_FRACTION = 4
_SESSION_LIFETIME = dt.timedelta(hours=25)
# Stripe's events are read back from a little before the newest we hold (deliveries arrive out of order).
_EVENTS_OVERLAP = dt.timedelta(hours=1)
_EVENTS_FIRST_LOOK = dt.timedelta(days=3)
_EVENT_PAGES = 10
# Stripe's limit on the event types one list call may name.
EVENT_TYPES_PER_CALL = 20
# An event stored this long ago and not processed was dropped by a worker (or Stripe could not be asked then).
_EVENT_GRACE = dt.timedelta(minutes=1)


def payments_reconcile(*, now: dt.datetime | None = None) -> dict[str, int]:
    """One pass over everything waiting. Counts of what was asked and what it came to."""
    now = now or timezone.now()
    counts: dict[str, int] = {}

    def count(name: str) -> None:
        counts[name] = counts.get(name, 0) + 1

    for payment in _waiting(now):
        Payment.objects.filter(pk=payment.pk).update(checked_at=now)
        before = payment.status
        try:
            payment = payment_follow(payment=payment)
        except PaymentError as err:
            logger.warning("reconcile payment %s: %s", payment.pk, err.detail)
            count("unavailable")
            continue
        count(f"{before}->{payment.status}" if payment.status != before else f"still_{before}")
    for payment in Payment.objects.filter(status=Payment.Status.UNPAID):
        try:
            if payment.collection_session_id:
                payment = collection_settle(payment=payment)
            elif payment.collection_card_tried_at is None or payment.collection_failure_code == OUTCOME_UNKNOWN:
                payment = payment_collect(payment=payment)
        except PaymentError as err:
            logger.warning("collecting payment %s: %s", payment.pk, err.detail)
            count("unavailable")
            continue
        count("unpaid->collected" if payment.status == Payment.Status.CAPTURED else "still_unpaid")
    counts["events_new"] = _events_catch_up(now)
    counts["events_processed"] = webhook_events_unprocessed(received_before=now - _EVENT_GRACE)
    return counts


def _waiting(now: dt.datetime) -> list[Payment]:
    """Payments not settled a few minutes after they began or were last touched (a lost webhook, a closed tab, a
    dead worker, a lapsed hold), each asked less often as it ages: at most every quarter of its age."""
    after = now - dt.timedelta(minutes=settings.PAYMENT_RECONCILE_AFTER_MINUTES)
    candidates = Payment.objects.filter(
        Q(status=Payment.Status.CREATED, created_at__gt=now - _SESSION_LIFETIME)
        & (Q(stripe_session_id__isnull=False) | ~Q(stripe_payment_intent_id="") | Q(failure_code=OFF_SESSION_UNKNOWN))
        | Q(status=Payment.Status.AUTHORISED, updated_at__lt=now - STALE_CLAIM)
        | Q(status=Payment.Status.AUTHORISED, capture_before__lt=now)
    ).filter(created_at__lt=after)
    return [
        payment
        for payment in candidates.order_by("created_at")
        if payment.checked_at is None or payment.checked_at < now - (now - payment.created_at) / _ASK_FRACTION
    ]


def webhook_events_unprocessed(*, received_before: dt.datetime) -> int:
    """Process the stored events a worker did not (it failed, or Stripe could not be asked then). Processed."""
    done = 0
    waiting = WebhookEvent.objects.filter(processed_at__isnull=True, received_at__lt=received_before)
    for event_id in waiting.order_by("created", "pk").values_list("event_id", flat=True)[:500]:
        done += _process_quietly(event_id)
    return done


def _process_quietly(event_id: str) -> bool:
    """Process one stored event; Stripe not answering leaves it for the next run (its error kept on the event)."""
    try:
        webhook_event_process(event_id=event_id)
    except PaymentError as err:
        logger.warning("stripe event %s: %s", event_id, err.detail)
        return False
    return True


def _events_catch_up(now: dt.datetime) -> int:
    """Record and process the money-moving events Stripe lists since shortly before the newest we hold (a delivery
    that never arrived). Events new to us."""
    newest = WebhookEvent.objects.aggregate(newest=Max("created"))["newest"]
    since = dt.datetime.fromtimestamp(newest, tz=dt.UTC) - _EVENTS_OVERLAP if newest else now - _EVENTS_FIRST_LOOK
    return sum(_events_of_types(types, since=since) for types in event_type_groups(HANDLED_EVENTS))


def event_type_groups(types: Sequence[str]) -> list[list[str]]:
    """The types in groups Stripe takes in one events list call (`types[]` names at most 20)."""
    return [list(types[start : start + EVENT_TYPES_PER_CALL]) for start in range(0, len(types), EVENT_TYPES_PER_CALL)]


def _events_of_types(types: list[str], *, since: dt.datetime) -> int:
    new = 0
    starting_after = ""
    for _ in range(_EVENT_PAGES):
        page = _events_page(types=types, since=since, starting_after=starting_after)
        if page is None:
            break
        for event in page.data:
            record, created = webhook_event_record(event=event.to_dict(), delivered=False)
            if created:
                new += 1
                _process_quietly(record.event_id)
        if not page.has_more or not page.data:
            break
        starting_after = page.data[-1].id
    return new


def _events_page(*, types: list[str], since: dt.datetime, starting_after: str) -> Any:
    params: EventListParams = {"types": types, "created": {"gte": int(since.timestamp())}, "limit": 100}
    if starting_after:
        params["starting_after"] = starting_after
    try:
        return stripe_client.call("event list", lambda client: client.v1.events.list(params=params))
    except PaymentError as err:
        logger.warning("reading Stripe's events: %s", err.detail)
        return None
