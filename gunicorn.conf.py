"""Gunicorn's own settings, read from the working directory by every `gunicorn` the Procfile starts.

Metrics (storefront/observability/metrics.py): with METRICS_TOKEN set, every worker writes its figures to
PROMETHEUS_MULTIPROC_DIR (the same default as settings.py, set here before any worker starts so all of them share it); a
worker that exits has its live gauges forgotten (child_exit), and files left by processes that no longer run are removed
at start.
"""

import os
import tempfile
from pathlib import Path

if os.environ.get("METRICS_TOKEN"):
    os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(Path(tempfile.gettempdir()) / "storefront-metrics"))
    Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).mkdir(parents=True, exist_ok=True)

# Gunicorn logs its own lines (booting, worker timeouts, crashes) through handlers of its own with a plain-text
# format; these send them out as one JSON object per line, like the storefront's (settings.LOGGING).

logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        }
    },
    "handlers": {
        "stdout": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stdout"},
        "nowhere": {"class": "logging.NullHandler"},
    },
    "root": {"handlers": ["stdout"]},
    # No levels here: `--log-level` keeps deciding. Not propagated, or Django's root handler would write each
    # line a second time.
    "loggers": {
        "gunicorn.error": {"handlers": ["stdout"], "propagate": False},
        # A log config turns gunicorn's access log on; it stays off. The storefront writes its own request line
        # (storefront.requests.middleware), with the route rather than the raw path, which can carry one-time secrets.
        "gunicorn.access": {"handlers": ["nowhere"], "propagate": False},
    },
}


def post_worker_init(worker: object) -> None:
    """Once a worker has loaded the application: its log lines are written by a thread of their own instead of by
    each request's thread (storefront/observability/log_handlers.py says why). Then the URLs and every view module are
    loaded as the first request would (all but the staff API's: its first request loads them,
    reseller_api/middleware.py), and all of it is moved out of the garbage collector's sight (gc.freeze). What a
    process loads at start lives as long as the process, yet each full collection walked it again: measured over
    cached searches in one process (bench/profile_search.py's setup), a full collection took 56 ms before and 15 ms
    after."""
    import gc

    from django.urls import get_resolver

    from storefront.observability.log_handlers import write_lines_from_a_thread

    write_lines_from_a_thread()
    get_resolver().url_patterns  # noqa: B018 - the attribute's loading is the point
    gc.collect()
    gc.freeze()


def on_starting(server: object) -> None:
    """Forget the live gauges of processes that no longer run (a previous run of this host killed outright)."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directory:
        return
    from prometheus_client import multiprocess

    for path in Path(directory).glob("*_*.db"):
        pid = path.stem.rpartition("_")[2]
        if pid.isdigit() and not _running(int(pid)):
            multiprocess.mark_process_dead(int(pid))


def child_exit(server: object, worker: object) -> None:
    """A web worker exited: its live gauges (the breakers it saw open) no longer count."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined]


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
