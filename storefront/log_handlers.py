"""Where the storefront's log lines go: stdout, one JSON object per line (settings.LOGGING), written by one thread
of each process.

Each request logs a line (storefront.middleware.RequestLogMiddleware). With a plain StreamHandler, each of a web
process's threads takes the handler's lock for its write to stdout, and under load the other threads queue behind
that lock: measured with bench/search_bench.py's throughput run (gunicorn 2x16), a cached search cost about 90 µs
more CPU with its line than without, against 13 µs for the same call in a single thread. Here the request's
thread formats its line and puts it on a queue (the standard library's QueueHandler); one thread per process
(QueueListener) writes the lines, in order, and every line still queued when the process exits normally.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import sys
import threading
from logging.handlers import QueueHandler, QueueListener


class QueuedStdoutHandler(QueueHandler):
    """Formats each record in the caller's thread (with the formatter settings.LOGGING gives it) and has a
    thread of its own write the line to stdout."""

    def __init__(self) -> None:
        lines: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
        super().__init__(lines)
        stdout = logging.StreamHandler(sys.stdout)
        # The record arrives formatted (prepare below): its message is the whole line.
        stdout.setFormatter(logging.Formatter("%(message)s"))
        self.listener = QueueListener(lines, stdout)
        self._start()
        # Runs before logging's own shutdown (registered earlier, so run later): the queue is written out first.
        atexit.register(self._stop)
        # A process forked after logging was set up (gunicorn --preload) has the queue but not the writing thread.
        os.register_at_fork(after_in_child=self._start_again)

    def _start(self) -> None:
        self._switch = threading.Lock()
        self._writing = True
        self.listener.start()

    def _start_again(self) -> None:
        if self._writing:
            # A new, empty queue: the lines the parent had not written yet are the parent's to write.
            self.queue = self.listener.queue = queue.SimpleQueue()
            self._start()

    def _stop(self) -> None:
        # QueueListener.stop() may run once only; close() and the exit hook both stop.
        with self._switch:
            if self._writing:
                self._writing = False
                self.listener.stop()

    def close(self) -> None:
        # Logging set up again (dictConfig closes the handlers it replaces): their lines written, their thread ended.
        self._stop()
        super().close()

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        prepared = super().prepare(record)
        # The formatted line holds the stack already; the writer's plain formatter would add it a second time.
        prepared.stack_info = None
        return prepared
