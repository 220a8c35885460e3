"""Tasks about the whole domains app (django-tasks): the staff alerts, mailed to ADMINS by the worker, and the
registrant verification reminders."""

from __future__ import annotations

from django_tasks import task

from domains import alerts, expiring_events, verification
from storefront.background.scheduler import job_schedule
from storefront.queues import BULK


@task(queue_name=BULK)
def send_staff_alerts() -> int:
    return alerts.staff_alerts_send()


job_schedule("staff-alerts", "0 */6 * * *", send_staff_alerts)


@task(queue_name=BULK)
def send_verification_reminders() -> dict[str, int]:
    """Remind customers on days 7 and 12 to confirm the registrant's email address (domains/verification.py); each
    reminder is queued once (its outbox key), so a second run the same day sends nothing."""
    return {"queued": verification.verification_reminders_send()}


# Daily: the reminders are due on a day, not an hour.
job_schedule("verification-reminders", "23 9 * * *", send_verification_reminders)


@task(queue_name=BULK)
def emit_domains_expiring() -> dict[str, int]:
    """`domain.expiring` webhooks, 30 and 7 days before each domain expires (domains/expiring_events.py)."""
    return {"emitted": expiring_events.domains_expiring_emit()}


job_schedule("webhooks-domain-expiring", "31 6 * * *", emit_domains_expiring)
