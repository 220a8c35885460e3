"""The periodic jobs, and the tick that enqueues each one once per period (run by `manage.py run_scheduler`).

Any number of scheduler processes may run (two dynos, a restart overlapping the old one): each period of each
job is a row of `ScheduledRun` under a unique constraint, inserted in the same transaction as the enqueued task,
so only the first process to tick in a period enqueues it. Periods are cron expressions (croniter), in UTC.

Jobs name their task by dotted path: the storefront package imports no app.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from croniter import croniter
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from storefront.models import ScheduledRun

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Job:
    name: str
    cron: str
    task: str


# Overridable with settings.SCHEDULED_JOBS (a list of (name, cron, task path)).
DEFAULT_JOBS = [
    Job("reconcile-registrations", "*/5 * * * *", "domains.tasks.reconcile_registrations"),
    Job("checkout-emails", "*/5 * * * *", "domains.tasks.send_pending_checkout_emails"),
    Job("order-sync", "*/15 * * * *", "domains.tasks.sync_orders"),
    # Hourly, so a reminder whose send failed goes out within the hour; the unique row keeps it to one.
    Job("renewal-reminders", "7 * * * *", "domains.tasks.send_renewal_reminders"),
    # Daily: domains on auto-renew are charged and renewed AUTO_RENEW_DAYS_BEFORE days before expiry.
    Job("auto-renew", "37 5 * * *", "domains.tasks.auto_renew_domains"),
    Job("staff-alerts", "0 */6 * * *", "domains.tasks.send_staff_alerts"),
    # Receipts and credit notes whose email failed or whose enqueue was lost.
    Job("billing-emails", "*/5 * * * *", "billing.tasks.send_pending_billing_emails"),
    # Hourly: an authorisation lapses 7 days after it was made; staff hear of it once, days before.
    Job("authorisation-expiry", "37 * * * *", "billing.tasks.alert_expiring_authorisations"),
    # Daily, at a quiet hour: the provider changes its prices rarely, and a failure mails ADMINS.
    Job("price-sync", "23 4 * * *", "pricing.tasks.sync_prices"),
]


def jobs() -> list[Job]:
    configured = getattr(settings, "SCHEDULED_JOBS", None)
    return [Job(*job) for job in configured] if configured is not None else DEFAULT_JOBS


def period_start(*, cron: str, now: dt.datetime) -> dt.datetime:
    """The start of the period of `cron` that `now` falls in (a time matching the expression counts as the
    start of its own period)."""
    base = now.replace(second=0, microsecond=0) + dt.timedelta(seconds=1)
    return croniter(cron, base).get_prev(dt.datetime)


def scheduler_tick(*, now: dt.datetime | None = None) -> list[str]:
    """Enqueue every job whose current period has not been enqueued yet. Returns the names enqueued."""
    now = now or timezone.now()
    enqueued = []
    for job in jobs():
        start = period_start(cron=job.cron, now=now)
        try:
            with transaction.atomic():
                run = ScheduledRun.objects.create(job=job.name, period_start=start)
                result = import_string(job.task).enqueue()
                run.task_result_id = str(result.id)
                run.save(update_fields=["task_result_id"])
        except IntegrityError:
            continue  # another scheduler enqueued this period
        logger.info("scheduled %s for the period from %s", job.name, start.isoformat())
        enqueued.append(job.name)
    return enqueued
