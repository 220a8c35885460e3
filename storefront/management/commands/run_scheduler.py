"""Run the periodic-job scheduler: every few seconds, enqueue the jobs whose period has begun.

Safe to run in several processes at once (each period is enqueued once, see storefront/scheduler.py). The jobs
themselves run in the worker (`manage.py db_worker`).
"""

import signal
import time
from types import FrameType

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from storefront.scheduler import scheduler_tick


class Command(BaseCommand):
    help = "Enqueue periodic jobs (reconcile, emails, order sync, reminders, staff alerts) once per period."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--interval", type=float, default=20.0, help="Seconds between ticks (default 20).")
        parser.add_argument("--once", action="store_true", help="Tick once and exit.")

    def handle(self, *args, interval: float, once: bool, **options) -> None:
        if once:
            self._tick()
            return
        self._running = True

        def stop(signum: int, frame: FrameType | None) -> None:
            self._running = False

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        while self._running:
            self._tick()
            # Sleep in short steps so a stop signal ends the process promptly.
            deadline = time.monotonic() + interval
            while self._running and time.monotonic() < deadline:
                time.sleep(min(1.0, interval))
            close_old_connections()  # a long-lived process: drop connections the database closed meanwhile

    def _tick(self) -> None:
        for name in scheduler_tick():
            self.stdout.write(f"enqueued {name}")
