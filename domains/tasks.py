"""Tasks about the whole domains app (django-tasks): the staff alerts, mailed to ADMINS by the worker."""

from __future__ import annotations

from django_tasks import task

from domains import alerts
from storefront.queues import BULK
from storefront.scheduler import job_schedule


@task(queue_name=BULK)
def send_staff_alerts() -> int:
    return alerts.staff_alerts_send()


job_schedule("staff-alerts", "0 */6 * * *", send_staff_alerts)
