"""The task worker (`manage.py run_worker`): django-tasks-db's tasks, taken most urgent queue first, with leases, a
heartbeat, and a loop that outlives its database.

Built on django-tasks-db's public interface only (its model's `ready()`, `get_locked()`, `claim()`,
`set_successful()`, `set_failed()`, and django-tasks' signals), not on the worker class inside its management
command: each time it looks for work it asks its queues in order (storefront/queues.py: paid, then default, then
bulk) and takes the first ready task it finds, so paid work never waits behind queued bulk work.

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
import random
import signal
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from types import FrameType

from django.conf import settings
from django.db import DatabaseError, OperationalError, close_old_connections, transaction
from django.utils import timezone
from django_tasks import TaskContext
from django_tasks.signals import task_finished, task_started
from django_tasks_db.models import DBTaskResult
from django_tasks_db.utils import exclusive_transaction, is_locked_database_exception

from storefront.background.outbox import email_queue_admins
from storefront.models import TaskLease, WorkerBeat
from storefront.observability.metrics import process_exited

logger = logging.getLogger("storefront.background.worker")

# A task whose workers died this many times is not run again: staff look at it.
TASK_RUNS_MAX = 3
# How often a worker looks for abandoned tasks (any worker may; the requeue is a conditional update); at least once a
# lease.
REAP_EVERY_SECONDS = 10.0
# The worker's waits while its database is away: 1, 2, 4 ... seconds, at most this long.
_OUTAGE_WAIT_MAX = 30.0
# How often a worker writes its heartbeat (storefront.WorkerBeat); one unseen for a day is forgotten.
BEAT_EVERY_SECONDS = 10.0
_BEATS_KEPT = dt.timedelta(days=1)


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


class LeasingWorker:
    """Runs ready tasks, most urgent queue first, each under a lease renewed by a thread of its own."""

    def __init__(
        self,
        *,
        queues: Sequence[str],
        worker_id: str,
        interval: float = 1.0,
        batch: bool = False,
        max_tasks: int | None = None,
        startup_delay: bool = True,
        backend_name: str = "default",
    ) -> None:
        self.queues = list(queues)
        self.worker_id = worker_id
        self.interval = interval
        self.batch = batch
        self.max_tasks = max_tasks
        self.startup_delay = startup_delay
        self.backend_name = backend_name
        self.running = True
        self.tasks_run = 0
        self._running_id: str | None = None
        self._took_task_at: dt.datetime | None = None
        self._stop = threading.Event()
        self._renewer = threading.Thread(target=self._renew_leases, name="task-lease", daemon=True)

    # Signals ------------------------------------------------------------------------------------------------

    def configure_signals(self) -> None:
        for name in ("SIGINT", "SIGTERM", "SIGQUIT"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), self.shutdown)

    def shutdown(self, signum: int, frame: FrameType | None) -> None:
        """The first stop signal: finish the running task (and release its lease), then stop; at once when idle.
        A second one while a task runs: stop now (its lease lapses and the task runs again elsewhere)."""
        if self.running and self._running_id is not None:
            logger.warning("Received %s - stopping after the current task.", signal.strsignal(signum))
            self.running = False
            return
        logger.warning("Received %s - stopping.", signal.strsignal(signum))
        self.running = False
        sys.exit(0 if self._running_id is None else 1)

    # The loop -----------------------------------------------------------------------------------------------

    def next_task(self) -> tuple[DBTaskResult | None, bool]:
        """Claim the first ready task of the most urgent queue that has one, and whether every queue was asked
        (False: the database was busy, SQLite's lock held by another worker: try again after the interval)."""
        for queue in self.queues:
            ready = DBTaskResult.objects.ready().filter(backend_name=self.backend_name, queue_name=queue)
            try:
                with exclusive_transaction(ready.db):
                    row = ready.get_locked()
                    if row is not None:
                        row.claim(self.worker_id)
                        return row, True
            except OperationalError as err:
                if not is_locked_database_exception(err):
                    raise
                return None, False
        return None, True

    def run(self) -> None:
        logger.info("Starting worker worker_id=%s queues=%s", self.worker_id, ",".join(self.queues))
        self.beat()
        if self.startup_delay and self.interval:
            time.sleep(random.random())  # noqa: S311 - spreads workers started together
        while self.running:
            close_old_connections()
            row, asked_all = self.next_task()
            if row is not None:
                self.run_task(row)
            close_old_connections()
            if self.max_tasks is not None and self.tasks_run >= self.max_tasks:
                return
            if row is None:
                if self.batch and asked_all:
                    return
                if self.running:
                    time.sleep(self.interval)

    def run_task(self, row: DBTaskResult) -> None:
        task_id = str(row.pk)
        self._running_id = task_id  # from here a stop signal waits for the task and its lease's release
        self._took_task_at = row.started_at
        expires_at = timezone.now() + dt.timedelta(seconds=lease_seconds())
        TaskLease.objects.update_or_create(
            task_id=task_id, defaults={"worker_id": self.worker_id, "expires_at": expires_at}
        )
        try:
            self._execute(row)
        finally:
            self._running_id = None
            self.tasks_run += 1
            try:
                TaskLease.objects.filter(task_id=task_id, worker_id=self.worker_id).delete()
            except DatabaseError:  # the database went away meanwhile: the lease lapses by itself
                logger.warning("task %s: its lease could not be released (database unavailable)", task_id)

    def _execute(self, row: DBTaskResult) -> None:
        """Run the task and record its outcome, sending django-tasks' started and finished signals as its own
        worker does."""
        try:
            task = row.task
            result = row.task_result
            backend = task.get_backend()
            task_started.send(sender=type(backend), task_result=result)
            if task.takes_context:
                value = task.call(TaskContext(task_result=result), *result.args, **result.kwargs)
            else:
                value = task.call(*result.args, **result.kwargs)
            row.set_successful(value)
            task_finished.send(sender=type(backend), task_result=row.task_result)
        except BaseException as err:  # recorded as the task's failure, whatever it is
            row.set_failed(err)
            try:
                task_finished.send(sender=type(row.task.get_backend()), task_result=row.task_result)
            except Exception:  # the task's path no longer names a task: only logged
                logger.exception("Task id=%s failed unexpectedly", row.pk)
            if isinstance(err, KeyboardInterrupt | SystemExit):
                raise

    # The lease and heartbeat thread -------------------------------------------------------------------------

    def start_renewing(self) -> None:
        self._renewer.start()

    def stop_renewing(self) -> None:
        self._stop.set()
        try:
            WorkerBeat.objects.filter(worker_id=self.worker_id).delete()
        except DatabaseError:  # forgotten a day after its last beat instead
            pass

    def beat(self) -> None:
        now = timezone.now()
        defaults = {"queues": ",".join(self.queues), "seen_at": now, "started_at": now}
        beat, created = WorkerBeat.objects.get_or_create(worker_id=self.worker_id, defaults=defaults)
        if not created:
            WorkerBeat.objects.filter(pk=beat.pk).update(seen_at=now, took_task_at=self._took_task_at)

    def _renew_leases(self) -> None:
        """Every third of a lease: renew the running task's lease; every BEAT_EVERY_SECONDS: the heartbeat; every
        REAP_EVERY_SECONDS: requeue abandoned tasks. A database error is logged and tried again next time."""
        next_reap = 0.0
        next_beat = time.monotonic() + BEAT_EVERY_SECONDS  # the loop wrote the first beat (run)
        while not self._stop.wait(max(0.5, lease_seconds() / 3 if self._running_id else 1.0)):
            try:
                running = self._running_id
                if running is not None:
                    expires_at = timezone.now() + dt.timedelta(seconds=lease_seconds())
                    TaskLease.objects.filter(task_id=running, worker_id=self.worker_id).update(expires_at=expires_at)
                if time.monotonic() >= next_beat:
                    next_beat = time.monotonic() + BEAT_EVERY_SECONDS
                    self.beat()
                if time.monotonic() >= next_reap:
                    next_reap = time.monotonic() + min(REAP_EVERY_SECONDS, lease_seconds())
                    tasks_abandoned_requeue()
                    WorkerBeat.objects.filter(seen_at__lt=timezone.now() - _BEATS_KEPT).delete()
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
        process_exited()
