"""The job that notices a feature arriving (a capability switched on in the settings) and tells who asked."""

from __future__ import annotations

from django_tasks import task

from demand.services import demand_arrivals_check
from storefront.background.scheduler import job_schedule
from storefront.queues import BULK


@task(queue_name=BULK)
def check_arrivals() -> dict[str, int]:
    return demand_arrivals_check()


# Hourly: settings change with a deploy or a restart, and the first tick after it notices.
job_schedule("demand-arrivals", "17 * * * *", check_arrivals)
