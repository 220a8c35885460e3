"""Paid work first (storefront/background/worker.py): a worker takes from its most urgent queue that has a task ready,
so a paid task enqueued behind thousands of bulk ones runs next; a worker's heartbeat says it is alive and when it took
a task.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from storefront.background.worker import LeasingWorker
from storefront.models import WorkerBeat
from storefront.queues import QUEUES
from tests.worker import jobs

DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": list(QUEUES)}}


@pytest.fixture(autouse=True)
def _order():
    jobs.ORDER.clear()


@pytest.mark.django_db(transaction=True)
@override_settings(TASKS=DATABASE_TASKS)
def test_a_paid_task_enqueued_after_bulk_work_runs_before_it():
    for n in range(50):
        jobs.bulk_job.enqueue(n=n)
    jobs.paid_job.enqueue(n=1)
    call_command("run_worker", "--batch", "--no-startup-delay", "--max-tasks", "1", "-v", "0")
    assert jobs.ORDER == ["paid 1"]
    call_command("run_worker", "--batch", "--no-startup-delay", "-v", "0")
    assert jobs.ORDER[1:] == [f"bulk {n}" for n in range(50)]


@pytest.mark.django_db(transaction=True)
@override_settings(TASKS=DATABASE_TASKS)
def test_a_worker_takes_only_its_queues():
    jobs.bulk_job.enqueue(n=1)
    jobs.paid_job.enqueue(n=2)
    call_command("run_worker", "--batch", "--no-startup-delay", "--queues", "paid,default", "-v", "0")
    assert jobs.ORDER == ["paid 2"]
    assert DBTaskResult.objects.ready().get().queue_name == "bulk"


def test_an_unknown_queue_is_refused():
    with pytest.raises(CommandError, match="unknown queue"):
        call_command("run_worker", "--batch", "--queues", "paid,urgent")


@pytest.mark.django_db(transaction=True)
@override_settings(TASKS=DATABASE_TASKS)
def test_the_heartbeat_says_which_queues_a_worker_takes_and_when_it_last_took_a_task():
    worker = LeasingWorker(queues=["paid", "default"], worker_id="w1", interval=0, batch=True, startup_delay=False)
    worker.beat()
    beat = WorkerBeat.objects.get()
    assert beat.queues == "paid,default" and beat.took_task_at is None
    jobs.paid_job.enqueue(n=1)
    worker.run()
    worker.beat()
    beat.refresh_from_db()
    assert beat.took_task_at is not None and timezone.now() - beat.took_task_at < dt.timedelta(seconds=5)
    worker.stop_renewing()
    assert not WorkerBeat.objects.exists()  # a worker that stops is gone from the list at once
