"""Run the periodic-job scheduler: every few seconds, enqueue the jobs whose period has begun.

Safe to run in several processes at once (each period is enqueued once, see storefront/background/scheduler.py). The
jobs themselves run in the worker (`manage.py run_worker`).
"""

import logging
import signal
import time
from types import FrameType

from django.core.management.base import BaseCommand
from django.db import DatabaseError, close_old_connections

from storefront.background.scheduler import scheduler_tick

logger = logging.getLogger("storefront.background.scheduler")


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
        try:
            enqueued = scheduler_tick()
        except DatabaseError as err:
            # The database is away for a while (a restart, a failover): the next tick tries again; a period missed
            # meanwhile is enqueued then, since each job's current period is.
            logger.warning("scheduler: database unavailable (%s); trying again next tick", type(err).__name__)
            close_old_connections()
            return
        for name in enqueued:
            self.stdout.write(f"enqueued {name}")
