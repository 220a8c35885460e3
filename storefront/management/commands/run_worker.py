"""Run the task worker (the Procfile's `worker`): django-tasks-db's `db_worker`, with task leases (a task whose
worker died runs again) and a loop that waits out a database outage instead of exiting (storefront/worker.py).
It takes db_worker's options."""

from __future__ import annotations

from typing import Any

from django_tasks_db.management.commands.db_worker import Command as DbWorkerCommand

from storefront.worker import LeasingWorker, worker_run


class Command(DbWorkerCommand):
    help = "Run background tasks (with leases: a task whose worker died runs again)."

    def handle(self, *, verbosity: int, queue_name: str, exclude_queues: str, **options: Any) -> None:
        self.configure_logging(verbosity)
        options.pop("reload", None)  # always as in production: a reload would abandon the running task
        for unused in ("settings", "pythonpath", "traceback", "no_color", "force_color", "skip_checks"):
            options.pop(unused, None)
        worker = LeasingWorker(
            queue_names=queue_name.split(","),
            excluded_queue_names=exclude_queues.split(",") if exclude_queues else [],
            **options,
        )
        worker.configure_signals()
        worker_run(worker)
