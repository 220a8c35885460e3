"""The worker's side: a first attempt on the default queue as soon as the event's transaction commits (a reseller's
system is waiting on it, like a customer email); retries, swept every minute, on the bulk queue, so an endpoint that
hangs for its whole timeout never holds up paid or default work."""

from __future__ import annotations

from django_tasks import task

from reseller_webhooks.sending import deliveries_due, delivery_send
from storefront.background.scheduler import job_schedule
from storefront.queues import BULK, DEFAULT


@task(queue_name=DEFAULT)
def send_delivery(*, delivery_id: int) -> str:
    return delivery_send(delivery_id=delivery_id)


@task(queue_name=BULK)
def send_due_deliveries() -> int:
    """Enqueue each delivery that is due (a retry whose wait is over, a lost first enqueue); sending claims each, so
    one enqueued twice is sent once."""
    due = deliveries_due()
    for delivery_id, attempts in due:
        queue = BULK if attempts else DEFAULT
        send_delivery.using(queue_name=queue).enqueue(delivery_id=delivery_id)
    return len(due)


job_schedule("webhook-deliveries", "* * * * *", send_due_deliveries)
