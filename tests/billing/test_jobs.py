"""The services ask for billing's tasks through billing/jobs.py (they cannot import billing/tasks.py, which imports
them): each ask queues the task at its stored path, `billing.tasks.<name>`, on the paid queue."""

from __future__ import annotations

import pytest
from django_tasks_db.models import DBTaskResult

from billing.jobs import payment_collect_enqueue, payment_settle_enqueue, stripe_event_process_enqueue
from storefront.queues import PAID, QUEUES


@pytest.fixture(autouse=True)
def _database_queue(settings) -> None:
    # The production task queue (rows in our database), not the tests' immediate one: the asks are only queued.
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": list(QUEUES)}}


@pytest.mark.django_db
def test_each_ask_queues_the_task_at_its_stored_path():
    payment_settle_enqueue(payment_id=7)
    payment_collect_enqueue(payment_id=8, again=True)
    stripe_event_process_enqueue(event_id="evt_1")

    queued = {row.task_path: (row.args_kwargs["kwargs"], row.queue_name) for row in DBTaskResult.objects.all()}
    assert queued == {
        "billing.tasks.settle_payment": ({"payment_id": 7}, PAID),
        "billing.tasks.collect_payment": ({"payment_id": 8, "again": True}, PAID),
        "billing.tasks.process_stripe_event": ({"event_id": "evt_1"}, PAID),
    }
