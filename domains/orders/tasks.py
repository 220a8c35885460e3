"""The order pages' background tasks (django-tasks; run by `manage.py run_worker`): the order sync, renewal
reminders and auto-renew. Each is idempotent: running one twice, or two at once, does the work
once. Failures raise, so the task result shows them to staff (admin: Task results), after a retry with backoff has
been enqueued where it helps.
"""

from __future__ import annotations

from typing import Any

from django_tasks import task
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from domains.orders import auto_renew, reminders, sync
from storefront.background.scheduler import job_schedule
from storefront.queues import BULK, DEFAULT


@task(queue_name=BULK)
def sync_orders() -> dict[str, Any]:
    """Plan the order sync's next pass (domains/orders/sync.py) and enqueue it as tasks that any worker takes: near
    orders first, then the listings due. Nothing is planned while the last pass's tasks are still waiting or running,
    so a slow pass is never planned twice."""
    unfinished = DBTaskResult.objects.filter(
        task_path=_BATCH_PATH, status__in=(TaskResultStatus.READY, TaskResultStatus.RUNNING)
    )
    if unfinished.exists():
        return {"planned": 0, "waiting": unfinished.count()}
    plan = sync.orders_sync_plan()
    for customer_pks, order_pks in plan.batches:
        sync_orders_batch.enqueue(customer_pks=customer_pks, order_pks=order_pks)
    return {"planned": len(plan.batches), "walks": plan.walks, "near_orders": plan.near_orders, "calls": plan.calls}


@task(queue_name=BULK)
def sync_orders_batch(*, customer_pks: list[int], order_pks: list[int]) -> dict[str, Any]:
    """One share of a pass: these near orders, then these customers' listings (a long one goes on in a new task)."""
    report = sync.orders_sync_batch(customer_pks=customer_pks, order_pks=order_pks)
    if report.continued and not report.stopped_for_outage:
        sync_orders_batch.enqueue(customer_pks=report.continued, order_pks=[])
    return report.as_dict()


_BATCH_PATH = sync_orders_batch.module_path


@task(queue_name=DEFAULT)
def auto_renew_domains() -> dict[str, int]:
    """Renew the domains on auto-renew that are due (daily): each charged and renewed once (domains/auto_renew.py)."""
    return auto_renew.auto_renew_all()


@task(queue_name=BULK)
def send_renewal_reminders() -> dict[str, int]:
    """Record the reminders due now, each with its email queued (the outbox sends them, with retries)."""
    # Domains on auto-renew with a saved card get none (reminders.reminder_due); a renewal's new expiry ends
    # the old ones by itself.
    return {"recorded": reminders.reminders_record()}


job_schedule("order-sync", "*/15 * * * *", sync_orders)
# Hourly: a reminder is due on its day; the unique row keeps it to one.
job_schedule("renewal-reminders", "7 * * * *", send_renewal_reminders)
# Daily: domains on auto-renew are charged and renewed AUTO_RENEW_DAYS_BEFORE days before expiry.
job_schedule("auto-renew", auto_renew.AUTO_RENEW_CRON, auto_renew_domains)
