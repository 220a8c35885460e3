"""Run the task worker (the Procfile's `worker` and `bulk`): tasks of the named queues, most urgent first, with task
leases (a task whose worker died runs again), a heartbeat, and a loop that waits out a database outage instead of
exiting (storefront/background/worker.py)."""

from __future__ import annotations

from argparse import ArgumentParser, ArgumentTypeError
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils.crypto import get_random_string

from storefront.background.worker import LeasingWorker, worker_run
from storefront.queues import QUEUES


def _positive(value: str) -> float:
    number = float(value)
    if not number >= 0:
        raise ArgumentTypeError("must be zero or more")
    return number


class Command(BaseCommand):
    help = "Run background tasks, the most urgent queue first (a task whose worker died runs again)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--queues",
            default=",".join(QUEUES),
            help="The queues to take tasks from, most urgent first, comma-separated (default: %(default)s).",
        )
        parser.add_argument(
            "--interval", type=_positive, default=1.0, help="Seconds to wait when no queue has a task (default: 1)."
        )
        parser.add_argument("--batch", action="store_true", help="Run the tasks that are ready, then exit.")
        parser.add_argument("--max-tasks", type=int, default=None, help="Exit after running this many tasks.")
        parser.add_argument(
            "--no-startup-delay",
            action="store_false",
            dest="startup_delay",
            help="Start at once (by default a worker waits up to a second, so workers started together spread out).",
        )
        parser.add_argument("--worker-id", default="", help="This worker's id, unique among the running workers.")

    def handle(self, *, queues: str, worker_id: str, **options: Any) -> None:
        names = [name.strip() for name in queues.split(",") if name.strip()]
        unknown = sorted(set(names) - set(QUEUES))
        if not names or unknown:
            raise CommandError(f"unknown queue(s) {', '.join(unknown)}: the queues are {', '.join(QUEUES)}")
        worker = LeasingWorker(
            queues=names,
            worker_id=(worker_id or get_random_string(32))[:64],
            interval=options["interval"],
            batch=options["batch"],
            max_tasks=options["max_tasks"],
            startup_delay=options["startup_delay"],
        )
        worker.configure_signals()
        worker_run(worker)
