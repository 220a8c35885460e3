"""Log lines written by a thread of their own, in the web process (gunicorn.conf.py's post_worker_init).

Each request logs a line (storefront.requests.middleware.RequestLogMiddleware). Written by settings.LOGGING's
StreamHandler, each of a web worker's threads takes the handler's lock for its write to stdout, and under load the other
threads queue behind that lock: measured with bench/search_bench.py's throughput run (gunicorn 2x16), a cached search
cost about 90 µs more CPU with its line than without, against 13 µs for the same call in a single thread.

So in a web worker the request's thread formats its line and puts it on a queue (the standard library's
QueueHandler), and one thread (QueueListener) writes the lines, in order; those still queued are written when the
process exits normally. Other processes (management commands, the task worker, tests) keep writing directly: their
own output on stdout (print, a command's report) would otherwise be cut by a line written from another thread.
"""

from __future__ import annotations

import atexit
import logging
import queue
from logging.handlers import QueueHandler, QueueListener


class QueuedLinesHandler(QueueHandler):
    """`handler`'s lines, formatted in the caller's thread with its formatter and written by a thread of their own
    to its stream."""

    def __init__(self, handler: logging.StreamHandler) -> None:
        lines: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
        super().__init__(lines)
        self.setLevel(handler.level)
        self.setFormatter(handler.formatter)
        for log_filter in handler.filters:
            self.addFilter(log_filter)
        writer = logging.StreamHandler(handler.stream)
        # The record arrives formatted (prepare below): its message is the whole line.
        writer.setFormatter(logging.Formatter("%(message)s"))
        self.listener = QueueListener(lines, writer)
        self.listener.start()
        # Registered after logging's own shutdown, so run before it: what is queued is written before exit.
        atexit.register(self.listener.stop)

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        prepared = super().prepare(record)
        # The formatted line holds the stack already; the writer's plain formatter would add it a second time.
        prepared.stack_info = None
        return prepared


def write_lines_from_a_thread(logger: logging.Logger | None = None) -> None:
    """Puts a queue and a writing thread in front of each of the logger's stream handlers (the root logger's by
    default: settings.LOGGING's stdout handler)."""
    logger = logger or logging.getLogger()
    for handler in list(logger.handlers):
        if type(handler) is logging.StreamHandler:
            logger.removeHandler(handler)
            logger.addHandler(QueuedLinesHandler(handler))
