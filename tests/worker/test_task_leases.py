"""A task whose worker died is run again after its lease (storefront/background/worker.py), once, and given up after its
workers died TASK_RUNS_MAX times (staff told); the worker waits out a database outage instead of exiting."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import OperationalError, connection
from django.test import override_settings
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from storefront.background import worker as worker_module
from storefront.background.worker import LeasingWorker, tasks_abandoned_requeue, worker_run
from storefront.models import TaskLease
from storefront.queues import QUEUES
from tests.worker.jobs import dies_the_first_time

ROOT = Path(__file__).resolve().parents[2]
DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": list(QUEUES)}}


def _running(*, started_minutes_ago: float, workers: int = 1) -> DBTaskResult:
    row = DBTaskResult.objects.create(
        task_path="tests.worker.jobs.count_run",
        args_kwargs={"args": [], "kwargs": {}},
        backend_name="default",
        run_after=timezone.now() - dt.timedelta(hours=1),
        status="RUNNING",
        started_at=timezone.now() - dt.timedelta(minutes=started_minutes_ago),
        worker_ids=[f"w{n}" for n in range(workers)],
    )
    return row


@pytest.mark.django_db
@override_settings(TASK_LEASE_SECONDS=120)
def test_a_running_task_whose_lease_lapsed_is_queued_again_once():
    dead = _running(started_minutes_ago=10)
    TaskLease.objects.create(task_id=dead.pk, worker_id="w0", expires_at=timezone.now() - dt.timedelta(seconds=1))
    alive = _running(started_minutes_ago=10)
    TaskLease.objects.create(task_id=alive.pk, worker_id="w1", expires_at=timezone.now() + dt.timedelta(seconds=60))
    young = _running(started_minutes_ago=0.5)  # no lease yet: too young to judge

    assert tasks_abandoned_requeue() == {"requeued": 1, "failed": 0}
    assert tasks_abandoned_requeue() == {"requeued": 0, "failed": 0}  # a second reaper changes nothing
    statuses = {row.pk: row.status for row in DBTaskResult.objects.all()}
    assert statuses == {dead.pk: "READY", alive.pk: "RUNNING", young.pk: "RUNNING"}
    assert not TaskLease.objects.filter(task_id=dead.pk).exists()


@pytest.mark.django_db
@override_settings(TASK_LEASE_SECONDS=120, ADMINS=[("Ops", "ops@example.org")])
def test_a_task_whose_workers_died_three_times_is_failed_and_staff_are_told(mailoutbox):
    row = _running(started_minutes_ago=10, workers=3)
    assert tasks_abandoned_requeue() == {"requeued": 0, "failed": 1}
    row.refresh_from_db()
    assert row.status == "FAILED" and row.exception_class_path == "storefront.background.worker.WorkerLost"
    assert [m.to for m in mailoutbox if "keeps killing its worker" in m.subject] == [["ops@example.org"]]


def test_the_worker_waits_out_a_database_outage_instead_of_exiting(monkeypatch):
    monkeypatch.setattr(worker_module.time, "sleep", lambda seconds: None)
    runs: list[str] = []

    def run(self):
        runs.append("run")
        if len(runs) < 3:
            raise OperationalError("connection refused")

    monkeypatch.setattr(LeasingWorker, "run", run)
    monkeypatch.setattr(LeasingWorker, "start_renewing", lambda self: None)
    monkeypatch.setattr(LeasingWorker, "stop_renewing", lambda self: None)
    worker_run(_leasing_worker())
    assert runs == ["run", "run", "run"]


def _worker_env() -> dict[str, str]:
    db = connection.settings_dict
    if connection.vendor == "postgresql":
        host = f"{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
        url = f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{host}/{db['NAME']}"
    else:
        url = f"sqlite:///{db['NAME']}"
    return {
        **os.environ,
        "DATABASE_URL": url,  # the test database pytest made
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "STOREFRONT_TEST_TASKS": "database",
        # Renewed every third of it: long enough that a worker starved of CPU on a loaded machine still renews in
        # time (at 2 s, the other worker sometimes took over a task that was still running).
        "TASK_LEASE_SECONDS": "6",
    }


def _start_worker(worker_id: str) -> subprocess.Popen:
    command = [sys.executable, "manage.py", "run_worker", "--no-startup-delay", "--interval", "0.2", "-v", "0"]
    return subprocess.Popen([*command, "--worker-id", worker_id], cwd=ROOT, env=_worker_env())


def _wait_for(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


@pytest.mark.django_db(transaction=True)
@override_settings(TASKS=DATABASE_TASKS)
def test_a_task_whose_worker_was_killed_mid_task_runs_again_after_its_lease(tmp_path):
    log = tmp_path / "runs.log"
    result = dies_the_first_time.enqueue(path=str(log))
    workers = {worker_id: _start_worker(worker_id) for worker_id in ("first", "second")}
    try:
        assert _wait_for(lambda: log.exists() and log.read_text().count("\n") >= 1, 60)
        (running,) = DBTaskResult.objects.get(pk=result.id).worker_ids
        os.kill(workers[running].pid, signal.SIGKILL)  # mid-task: the row is left RUNNING
        workers[running].wait(timeout=60)
        # The other worker finds the lease lapsed and runs it again (not checked in between: on a loaded machine the
        # takeover may already be done by the time this test looks).
        assert _wait_for(lambda: DBTaskResult.objects.get(pk=result.id).status == "SUCCESSFUL", 120)
    finally:
        for worker in workers.values():
            if worker.poll() is None:
                worker.terminate()
                worker.wait(timeout=15)
    row = DBTaskResult.objects.get(pk=result.id)
    assert row.return_value == 2  # run again once, by the other worker
    assert len(row.worker_ids) == 2 and row.worker_ids[0] != row.worker_ids[1]
    assert not TaskLease.objects.exists()


def _leasing_worker() -> LeasingWorker:
    return LeasingWorker(queues=["default"], worker_id="w", interval=0, batch=True, startup_delay=False)


def test_a_stop_signal_after_the_task_but_before_its_lease_is_released_lets_the_worker_release_it():
    worker = _leasing_worker()
    worker._running_id = "task-id"  # the task is over; run_task is releasing the lease
    worker.shutdown(signal.SIGTERM, None)
    assert worker.running is False  # the loop stops after the release
