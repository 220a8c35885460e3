"""The billing app's background tasks (django-tasks; run by `manage.py run_worker`): settling payments, processing
Stripe's events, collecting registered-unpaid payments, the reconciler, and the staff alert about authorisations
close to lapsing. Each is idempotent: run twice, or by two workers at once, it does the work once. Receipts and
credit notes are emailed through the outbox (billing/documents/emails.py)."""

from __future__ import annotations

from django_tasks import task

from billing.alerts import authorisation_expiry_alerts_send
from billing.errors import PaymentUnavailable
from billing.jobs import jobs_register
from billing.models import Payment, PaymentLine
from billing.payment_fees import book_missing_payment_fees
from billing.payments.collection import payment_collect
from billing.payments.reconcile import payments_reconcile
from billing.payments.services import payment_advance, payment_settle_asked
from billing.payments.webhooks import webhook_event_process
from storefront.background.retries import retry_later
from storefront.background.scheduler import job_schedule
from storefront.queues import BULK, DEFAULT, PAID


@task(queue_name=PAID)
def settle_payment(*, payment_id: int, attempt: int = 1) -> str:
    """Register a paid payment's lines and capture (asked by the return page and the webhook). Its status."""
    try:
        payment = payment_advance(payment=Payment.objects.get(pk=payment_id))
    except PaymentUnavailable:
        payment_settle_asked(payment_id=payment_id)
        retry_later(settle_payment, attempt=attempt, kwargs={"payment_id": payment_id})
        raise
    if payment.status == Payment.Status.AUTHORISED and payment.lines.filter(status=PaymentLine.Status.PENDING).exists():
        # A line waits for the provider (away, its breaker open): tried again in seconds (the paid queue's retries),
        # so it is registered within a minute of the provider coming back, not at the reconciler's next pass.
        retry_later(settle_payment, attempt=attempt, kwargs={"payment_id": payment_id})
    return payment.status


@task(queue_name=PAID)
def process_stripe_event(*, event_id: str, attempt: int = 1) -> str:
    """Act on one stored Stripe event (the webhook stored it and answered at once). Its outcome."""
    try:
        return webhook_event_process(event_id=event_id)
    except PaymentUnavailable:
        retry_later(process_stripe_event, attempt=attempt, kwargs={"event_id": event_id})
        raise


@task(queue_name=PAID)
def collect_payment(*, payment_id: int, again: bool = False, attempt: int = 1) -> str:
    """Collect a registered-unpaid payment: the saved card once, else the payment link by email. Its status."""
    try:
        return payment_collect(payment=Payment.objects.get(pk=payment_id), again=again).status
    except PaymentUnavailable:
        retry_later(collect_payment, attempt=attempt, kwargs={"payment_id": payment_id, "again": again})
        raise


@task(queue_name=DEFAULT)
def reconcile_payments() -> dict[str, int]:
    """Ask Stripe about every payment still waiting and every event not processed (billing/payments/reconcile.py)."""
    return payments_reconcile()


@task(queue_name=BULK)
def alert_expiring_authorisations() -> int:
    """Tell staff, once per payment, about authorisations still not captured PAYMENT_CAPTURE_ALERT_HOURS before
    their deadline."""
    return authorisation_expiry_alerts_send()


# The services ask for these through billing/jobs.py (they cannot import this module: it imports them).
jobs_register(settle_payment, process_stripe_event, collect_payment)

# Every few minutes: a customer who paid and closed the tab while the webhook was lost waits this long at most.
job_schedule("reconcile-payments", "*/5 * * * *", reconcile_payments)
# Daily: the fee of a capture or refund whose task gave up while Stripe was away is read again.
job_schedule("payment-fees", "23 4 * * *", book_missing_payment_fees)
# Hourly: an authorisation lapses days after it was made; staff hear of it once, before it does.
job_schedule("authorisation-expiry", "37 * * * *", alert_expiring_authorisations)
