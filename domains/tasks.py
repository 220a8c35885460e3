"""The domains app's background tasks (django-tasks; run by `manage.py db_worker`, enqueued by requests and by
the scheduler, storefront/scheduler.py). Each is idempotent: running one twice, or two at once, does the work
once. Failures raise, so the task result shows them to staff (admin: Task results), after a retry with backoff
has been enqueued where it helps.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from typing import Any

from django.utils import timezone
from django_tasks import task

from accounts.models import Customer
from domains import alerts, auto_renew, reminders, sync
from domains.cart import line_from_session
from domains.emails import (
    checkout_email_send,
    checkout_order_url,
    has_news,
    queue_checkout_confirmation,
    renewal_email_send,
)
from domains.models import Registration
from domains.payments import paid_lines_resolve
from domains.registrations import registration_place, registration_reconcile, registrations_to_reconcile
from storefront.background import retry_later

logger = logging.getLogger(__name__)

# A checkout older than this gets no email from the sweep (it would be news to nobody).
_EMAIL_SWEEP_DAYS = 30
# A sync run stops starting new customers after this long, so a run never overlaps the next period's.
_SYNC_MAX_SECONDS = 10 * 60


@task()
def send_checkout_email(*, checkout_id: str, order_url: str = "", attempt: int = 1) -> int:
    """The checkout's confirmation, or its follow-up for lines settled since. Lines reported."""
    try:
        return checkout_email_send(checkout_id=uuid.UUID(checkout_id), order_url=order_url)
    except Exception:
        retry_later(send_checkout_email, attempt=attempt, kwargs={"checkout_id": checkout_id, "order_url": order_url})
        raise


@task()
def send_renewal_email(*, renewal_id: int, attempt: int = 1) -> bool:
    """The customer's confirmation of one renewal (sent once: emailed_at marks it)."""
    try:
        return renewal_email_send(renewal_id=renewal_id)
    except Exception:
        retry_later(send_renewal_email, attempt=attempt, kwargs={"renewal_id": renewal_id})
        raise


@task()
def place_checkout(
    *, customer_pk: int, checkout_id: str, lines: dict[str, Any], order_url: str = "", attempt: int = 1
) -> dict[str, str]:
    """Register the lines a customer bought (security #10: the provider is called here, not in the request).

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
    queue_checkout_confirmation(
        customer=customer, checkout_id=checkout, order_url=order_url or checkout_order_url(checkout)
    )
    return outcomes


@task()
def reconcile_checkout(*, checkout_id: str) -> int:
    """Settle this checkout's lost answers from the order listing now (its page is being watched). Settled."""
    settled = 0
    for registration in Registration.objects.filter(
        checkout_id=uuid.UUID(checkout_id), status__in=Registration.UNSETTLED_STATUSES
    ):
        if registration_reconcile(registration=registration).status not in (
            Registration.Status.UNKNOWN,
            Registration.Status.PENDING,
        ):
            settled += 1
    return settled


@task()
def send_pending_checkout_emails() -> int:
    """Enqueue the email of every recent checkout with unreported settled lines (missed or failed sends,
    lines settled by reconciling). Checkouts enqueued."""
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
    enqueued = 0
    for checkout_id in candidates:
        lines = list(Registration.objects.filter(checkout_id=checkout_id))
        if has_news(lines):
            send_checkout_email.enqueue(checkout_id=str(checkout_id), order_url=checkout_order_url(checkout_id))
            enqueued += 1
    return enqueued


@task()
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
        send_pending_checkout_emails.enqueue()
    # Paid lines held for an unknown registration: their payment captures or releases their part now.
    counts["payments_resolved"] = paid_lines_resolve()
    return counts


@task()
def sync_orders() -> dict[str, Any]:
    """Refresh due customers' orders (status, expiry) from the provider's listing, paced under its limit."""
    report = sync.orders_sync_all(max_seconds=_SYNC_MAX_SECONDS)
    return {
        "customers": report.customers,
        "failed": report.failed,
        "rate_limited": report.rate_limited,
        "orders": report.orders,
        "stopped_for_outage": report.stopped_for_outage,
    }


@task()
def auto_renew_domains() -> dict[str, int]:
    """Renew the domains on auto-renew that are due (daily): each charged and renewed once (domains/auto_renew.py)."""
    return auto_renew.auto_renew_all()


@task()
def send_auto_renew_failure(*, order_pk: int, attempt: int = 1) -> bool:
    """Tell the customer and staff that a domain's auto-renewal failed (once: auto_renew_notified_at marks it)."""
    try:
        return auto_renew.auto_renew_failure_send(order_pk=order_pk)
    except Exception:
        retry_later(send_auto_renew_failure, attempt=attempt, kwargs={"order_pk": order_pk})
        raise


@task()
def send_renewal_reminders() -> dict[str, int]:
    """Record the reminders due now and send every unsent one (a failed send is retried by the next run)."""
    # Domains on auto-renew with a saved card get none (reminders.reminder_due); a renewal's new expiry ends
    # the old ones by itself.
    recorded = reminders.reminders_record()
    sent = reminders.reminders_send()
    return {"recorded": recorded, "sent": sent}


@task()
def send_staff_alerts() -> int:
    return alerts.staff_alerts_send()
