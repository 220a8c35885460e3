"""What an operator watches, as Prometheus metrics (prometheus-client), served at /metrics (metrics_scrape.py).

Two kinds:
- Observed by each process as it works: provider calls (duration by service and outcome, in the gateway's one HTTP
  call path), requests (duration by route and status), breakers (open or not). With PROMETHEUS_MULTIPROC_DIR set
  (settings.py sets it whenever METRICS_TOKEN is), every gunicorn worker and every task worker on the host writes
  its figures there and a scrape adds them up (prometheus-client's multiprocess mode; gunicorn.conf.py forgets a
  dead worker's gauges).
- Read from the database at scrape time, so the same whichever process answers: the queues (tasks ready, the oldest's
  age), the workers' heartbeats, and what apps register with `scrape_gauge` (payments needing attention,
  registrations unknown).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from prometheus_client import Gauge, Histogram, multiprocess

PROVIDER_SECONDS = Histogram(
    "storefront_provider_request_duration_seconds",
    "Provider calls by service and outcome (ok, refused, rate_limited, unavailable, unreachable).",
    ["service", "outcome"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
REQUEST_SECONDS = Histogram(
    "storefront_request_duration_seconds",
    "Requests by route (the URL pattern, never the path) and status.",
    ["route", "status"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
BREAKER_OPEN = Gauge(
    "storefront_breaker_open",
    "1 while a service's circuit breaker is open in some live process (calls fail fast), else 0.",
    ["service"],
    multiprocess_mode="livemax",
)

# Read at each scrape (storefront/observability/metrics_scrape.py).
scrape_gauges: list[tuple[str, str, Callable[[], float]]] = []


def scrape_gauge(name: str, documentation: str, read: Callable[[], float]) -> None:
    """Add a gauge read at each scrape (an app's own figure, such as payments needing attention)."""
    if name not in {known for known, _, _ in scrape_gauges}:
        scrape_gauges.append((name, documentation, read))


def provider_call_observed(*, service: str, outcome: str, seconds: float) -> None:
    PROVIDER_SECONDS.labels(service=service, outcome=outcome).observe(seconds)


def request_observed(*, route: str, status: int, seconds: float) -> None:
    REQUEST_SECONDS.labels(route=route, status=str(status)).observe(seconds)


def breaker_observed(*, service: str, is_open: bool) -> None:
    BREAKER_OPEN.labels(service=service).set(1 if is_open else 0)


def process_exited() -> None:
    """A task worker stops: its live gauges no longer count (gunicorn.conf.py does this for web workers)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(os.getpid())
