"""A scrape of /metrics: what every process observed (storefront/observability/metrics.py) and what the database says
now (the queues, the workers' heartbeats, the figures apps registered with `scrape_gauge`)."""

from __future__ import annotations

import os
from collections.abc import Iterator

from django.utils import timezone
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from storefront.observability.metrics import scrape_gauges
from storefront.observability.queue_state import queue_states, workers_seen


class DatabaseCollector(Collector):
    """The figures read from the database at scrape time."""

    def collect(self) -> Iterator[Metric]:
        now = timezone.now()
        ready = GaugeMetricFamily("storefront_tasks_ready", "Tasks ready to run, by queue.", labels=["queue"])
        oldest = GaugeMetricFamily(
            "storefront_task_oldest_ready_seconds", "Age of the oldest task ready to run, by queue.", labels=["queue"]
        )
        for queue in queue_states(now=now):
            ready.add_metric([queue.name], queue.waiting)
            oldest.add_metric([queue.name], queue.oldest_seconds)
        yield ready
        yield oldest
        beats = workers_seen()
        seen = GaugeMetricFamily(
            "storefront_worker_last_seen_seconds",
            "Seconds since a task worker taking each queue last wrote its heartbeat (absent: no worker ever).",
            labels=["queue"],
        )
        ages: dict[str, float] = {}
        for beat in beats:
            age = max(0.0, (now - beat.seen_at).total_seconds())
            for name in beat.queues.split(","):
                ages[name] = min(age, ages.get(name, age))
        for name, age in sorted(ages.items()):
            seen.add_metric([name], age)
        yield seen
        for name, documentation, read in scrape_gauges:
            yield GaugeMetricFamily(name, documentation, value=read())


class _ThisProcess(Collector):
    """Without multiprocess mode (a development server, tests): this process's own figures."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


def _observed() -> CollectorRegistry:
    """What the processes observed: every process on the host in multiprocess mode, else this one."""
    registry = CollectorRegistry(auto_describe=False)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)
    else:
        registry.register(_ThisProcess())
    return registry


def metrics_text() -> bytes:
    registry = _observed()
    registry.register(DatabaseCollector())
    return generate_latest(registry)


def breakers_open() -> dict[str, bool]:
    """Each service's breaker: open in some live process (as storefront_breaker_open says), by service."""
    for family in _observed().collect():
        if family.name == "storefront_breaker_open":
            return {sample.labels["service"]: sample.value >= 1 for sample in family.samples}
    return {}
