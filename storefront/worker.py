"""The task worker (`manage.py run_worker`): django-tasks-db's, with leases, and a loop that outlives its database.

django-tasks-db marks a task RUNNING when a worker claims it and leaves it so if that worker dies mid-task (killed,
out of memory, its machine gone): nothing would ever run it again. Here every task a worker runs has a lease
(storefront.TaskLease), renewed every few seconds by a thread of the worker while the task runs. A task RUNNING
whose lease lapsed (or that has none and began longer ago than a lease: a worker without leases) was abandoned:
`tasks_abandoned_requeue` puts it back in the queue, once (a conditional update), and any worker runs it again.
Every task is idempotent (docs/deployment.md), so a second run does the work once. A task whose workers died
TASK_RUNS_MAX times is marked failed instead, and staff are told: it may be what kills them.

The worker's own loop survives its database going away for a while (a restart, a failover): it logs, waits and
carries on, where django-tasks-db's would exit. A task interrupted that way is left RUNNING; its lease lapses and it
runs again.
"""

from __future__ import annotations

import datetime as dt
import logging
import signal
import threading
import time
import traceback
from types import FrameType
from typing import Any

from django.conf import settings
from django.db import DatabaseError, close_old_connections, transaction
from django.utils import timezone
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from storefront.models import TaskLease
from storefront.outbox import email_queue_admins

logger = logging.getLogger("storefront.worker")

# A task whose workers died this many times is not run again: staff look at it.
TASK_RUNS_MAX = 3
# How often a worker looks for abandoned tasks (any worker may; the requeue is a conditional update); at least once a
# lease.
REAP_EVERY_SECONDS = 30.0
# The worker's waits while its database is away: 1, 2, 4 ... seconds, at most this long.
_OUTAGE_WAIT_MAX = 30.0


class WorkerLost(Exception):
    """The worker running this task died (its lease lapsed) too many times: recorded as the task's failure."""


def lease_seconds() -> float:
    return float(settings.TASK_LEASE_SECONDS)


def tasks_abandoned_requeue(*, now: dt.datetime | None = None) -> dict[str, int]:
    """Put back in the queue every RUNNING task whose lease lapsed (its worker died), or fail it when its workers
    died TASK_RUNS_MAX times. Safe in any number of processes at once: each change is a conditional update."""
    now = now or timezone.now()
    lease = dt.timedelta(seconds=lease_seconds())
    counts = {"requeued": 0, "failed": 0}
    held = TaskLease.objects.filter(expires_at__gt=now).values("task_id")
    abandoned = DBTaskResult.objects.running().filter(started_at__lt=now - lease).exclude(id__in=held)
    for row in abandoned.only("id", "started_at", "worker_ids", "task_path")[:200]:
        same_run = DBTaskResult.objects.filter(pk=row.pk, status="RUNNING", started_at=row.started_at)
        with transaction.atomic():
            if len(row.worker_ids) >= TASK_RUNS_MAX:
                changed = same_run.update(
                    status="FAILED",
                    finished_at=now,
                    exception_class_path=f"{WorkerLost.__module__}.{WorkerLost.__qualname__}",
                    traceback=f"WorkerLost: the workers running this task died {len(row.worker_ids)} times "
                    f"({', '.join(row.worker_ids)}); it is not run again.\n",
                )
                if changed:
                    counts["failed"] += 1
                    _tell_staff(row)
            elif changed := same_run.update(status="READY"):
                counts["requeued"] += 1
                logger.warning("task %s (%s): its worker died; queued to run again", row.pk, row.task_path)
            if changed:
                # Only the lapsed run's lease: when another worker claimed the task since we looked, the lease is
                # that run's and stays.
                TaskLease.objects.filter(task_id=row.pk).delete()
    return counts


def _tell_staff(row: DBTaskResult) -> None:
    logger.error("task %s (%s): its workers died %d times; failed", row.pk, row.task_path, len(row.worker_ids))
    email_queue_admins(
        "A background task keeps killing its worker",
        f"The task {row.task_path} ({row.pk}) was running when its worker died, {len(row.worker_ids)} times. It is "
        "marked failed and not run again: see Task results in the admin (its Retry action runs it once more).",
        key=f"task-worker-lost:{row.pk}",
    )


class LeasingWorker(Worker):
    """django-tasks-db's worker, holding a lease on the task it runs (renewed by a thread of its own)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._running_id: str | None = None
        self._stop = threading.Event()
        self._renewer = threading.Thread(target=self._renew_leases, name="task-lease", daemon=True)

    def shutdown(self, signum: int, frame: FrameType | None) -> None:
        """The first stop signal while a task or its lease's release is under way: finish both, then stop.

        django-tasks-db's handler exits at once when no task is running, and its task ends before our `run_task`
        releases the lease: a stop signal in between would leave the lease behind."""
        if self.running and self._running_id is not None:
            logger.warning("Received %s - stopping after the current task.", signal.strsignal(signum))
            self.running = False
            return
        super().shutdown(signum, frame)

    def start_renewing(self) -> None:
        self._renewer.start()

    def stop_renewing(self) -> None:
        self._stop.set()

    def run_task(self, db_task_result: DBTaskResult) -> None:
        task_id = str(db_task_result.pk)
        self._running_id = task_id  # from here a stop signal waits for the lease's release (see shutdown)
        expires_at = timezone.now() + dt.timedelta(seconds=lease_seconds())
        TaskLease.objects.update_or_create(
            task_id=task_id, defaults={"worker_id": self.worker_id, "expires_at": expires_at}
        )
        try:
            super().run_task(db_task_result)
        finally:
            self._running_id = None
            try:
                TaskLease.objects.filter(task_id=task_id, worker_id=self.worker_id).delete()
            except DatabaseError:  # the database went away meanwhile: the lease lapses by itself
                logger.warning("task %s: its lease could not be released (database unavailable)", task_id)

    def _renew_leases(self) -> None:
        """Every third of a lease: renew the running task's lease; every REAP_EVERY_SECONDS: requeue abandoned
        tasks. A database error is logged and tried again next time."""
        next_reap = 0.0
        while not self._stop.wait(max(0.5, lease_seconds() / 3 if self._running_id else 1.0)):
            try:
                running = self._running_id
                if running is not None:
                    expires_at = timezone.now() + dt.timedelta(seconds=lease_seconds())
                    TaskLease.objects.filter(task_id=running, worker_id=self.worker_id).update(expires_at=expires_at)
                if time.monotonic() >= next_reap:
                    next_reap = time.monotonic() + min(REAP_EVERY_SECONDS, lease_seconds())
                    tasks_abandoned_requeue()
            except DatabaseError as err:
                logger.warning("task leases not renewed: database unavailable (%s)", type(err).__name__)
            except Exception:  # noqa: BLE001 - this thread must outlive any one failure
                logger.error("task leases: %s", traceback.format_exc())
            finally:
                close_old_connections()


def worker_run(worker: LeasingWorker) -> None:
    """Run the worker's loop until it stops, waiting out database outages instead of exiting."""
    worker.start_renewing()
    wait = 1.0
    try:
        while True:
            try:
                worker.run()
                return
            except DatabaseError as err:
                if not worker.running:
                    return
                logger.warning("worker: database unavailable (%s); trying again in %.0f s", type(err).__name__, wait)
                close_old_connections()
                time.sleep(wait)
                wait = min(wait * 2, _OUTAGE_WAIT_MAX)
    finally:
        worker.stop_renewing()
