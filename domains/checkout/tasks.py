"""Checkout's background tasks (django-tasks; run by `manage.py run_worker`): registering the lines of a checkout
placed without payment, settling lost answers, and queueing the checkout's emails that are due. Each is
idempotent: running one twice, or two at once, does the work once. Failures raise, so the task result shows them
to staff (admin: Task results), after a retry with backoff has been enqueued where it helps.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from typing import Any

from django.utils import timezone
from django_tasks import task

from accounts.models import Customer
from billing.payments.services import paid_lines_resolve
from domains.cart.basket import line_from_session
from domains.checkout.emails import checkout_email_queue, checkout_order_url
from domains.checkout.registrations import registration_place, registration_reconcile, registrations_to_reconcile
from domains.models import Registration
from pricing.promotions import redemptions_release
from storefront.background.retries import retry_later
from storefront.background.scheduler import job_schedule
from storefront.queues import DEFAULT, PAID

logger = logging.getLogger(__name__)

# A checkout older than this gets no email from the sweep (it would be news to nobody).
_EMAIL_SWEEP_DAYS = 30


@task(queue_name=PAID)
def place_checkout(
    *, customer_pk: int, checkout_id: str, lines: dict[str, Any], order_url: str = "", attempt: int = 1
) -> dict[str, str]:
    """Register the lines a customer bought: the provider is called here, never in the request, so a request's
    provider calls stay bounded however many lines the cart holds.

    registration_place records each line before calling the provider and reuses a recorded one, so this task
    run twice, or twice at once, registers each line once. Then the checkout's email is queued.
    """
    customer = Customer.objects.get(pk=customer_pk)
    checkout = uuid.UUID(checkout_id)
    outcomes: dict[str, str] = {}
    try:
        for name, data in sorted(lines.items()):
            line = line_from_session(name, data)
            if line is None:
                logger.error("checkout %s: unreadable line %r", checkout_id, name)
                continue
            outcomes[name] = registration_place(customer=customer, line=line, checkout_id=checkout).status
    except Exception:
        retry_later(
            place_checkout,
            attempt=attempt,
            kwargs={"customer_pk": customer_pk, "checkout_id": checkout_id, "lines": lines, "order_url": order_url},
        )
        raise
    # A line that was not registered gives its promotion's use back (a paid line does so when billing settles it).
    failed = [
        name
        for name, status in outcomes.items()
        if status in (Registration.Status.FAILED, Registration.Status.RELEASED)
    ]
    if failed:
        redemptions_release(checkout_id=checkout, references=failed)
    checkout_email_queue(checkout_id=checkout, order_url=order_url or checkout_order_url(checkout))
    return outcomes


@task(queue_name=PAID)
def reconcile_checkout(*, checkout_id: str) -> int:
    """Settle this checkout's lost answers from the order listing now (its page is being watched), and hand what
    settled to its payment (captured, released or collected now, not at the next reconcile run). Settled."""
    settled = 0
    checkout = uuid.UUID(checkout_id)
    for registration in Registration.objects.filter(checkout_id=checkout, status__in=Registration.UNSETTLED_STATUSES):
        if registration_reconcile(registration=registration).status not in (
            Registration.Status.UNKNOWN,
            Registration.Status.PENDING,
        ):
            settled += 1
    paid_lines_resolve(checkout_id=checkout)
    return settled


@task(queue_name=DEFAULT)
def send_pending_checkout_emails() -> int:
    """Queue the email of every recent checkout with settled lines not told yet (lines settled by reconciling, a
    page that was never opened again). Checkouts with an email queued."""
    since = timezone.now() - dt.timedelta(days=_EMAIL_SWEEP_DAYS)
    candidates = (
        Registration.objects.filter(
            created_at__gt=since,
            emailed_at__isnull=True,
            status__in=(Registration.Status.REGISTERED, Registration.Status.FAILED),
        )
        .values_list("checkout_id", flat=True)
        .distinct()
    )
    return sum(1 for checkout_id in candidates if checkout_email_queue(checkout_id=checkout_id))


@task(queue_name=DEFAULT)
def reconcile_registrations() -> dict[str, int]:
    """Settle every line whose answer was lost from the order listings; email the outcomes that settled."""
    counts: dict[str, int] = {"registered": 0, "not_registered": 0, "unsettled": 0}
    for registration in registrations_to_reconcile():
        before = registration.status
        result = registration_reconcile(registration=registration)
        if result.status == Registration.Status.REGISTERED and before != Registration.Status.REGISTERED:
            counts["registered"] += 1
        elif result.status == Registration.Status.FAILED and before != Registration.Status.FAILED:
            counts["not_registered"] += 1
        elif result.status in Registration.UNSETTLED_STATUSES:
            counts["unsettled"] += 1
    if counts["registered"] or counts["not_registered"]:
        send_pending_checkout_emails.enqueue()  # what settled is told now, not at the next sweep
    # Paid lines held for an unknown registration: their payment captures or releases their part now.
    counts["payments_resolved"] = paid_lines_resolve()
    return counts


job_schedule("reconcile-registrations", "*/5 * * * *", reconcile_registrations)
# Follow-ups for lines settled later, confirmations of checkouts whose page was never opened again.
job_schedule("checkout-emails", "*/5 * * * *", send_pending_checkout_emails)
