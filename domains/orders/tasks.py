"""The order pages' background tasks (django-tasks; run by `manage.py run_worker`): the order sync, renewal
reminders and auto-renew. Each is idempotent: running one twice, or two at once, does the work
once. Failures raise, so the task result shows them to staff (admin: Task results), after a retry with backoff has
been enqueued where it helps.
"""

from __future__ import annotations

from typing import Any

from django_tasks import task

from domains.orders import auto_renew, reminders, sync
from storefront.scheduler import job_schedule

# A sync run stops starting new customers after this long, so a run never overlaps the next period's.
_SYNC_MAX_SECONDS = 10 * 60


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
def send_renewal_reminders() -> dict[str, int]:
    """Record the reminders due now, each with its email queued (the outbox sends them, with retries)."""
    # Domains on auto-renew with a saved card get none (reminders.reminder_due); a renewal's new expiry ends
    # the old ones by itself.
    return {"recorded": reminders.reminders_record()}


job_schedule("order-sync", "*/15 * * * *", sync_orders)
# Hourly: a reminder is due on its day; the unique row keeps it to one.
job_schedule("renewal-reminders", "7 * * * *", send_renewal_reminders)
# Daily: domains on auto-renew are charged and renewed AUTO_RENEW_DAYS_BEFORE days before expiry.
job_schedule("auto-renew", "37 5 * * *", auto_renew_domains)
