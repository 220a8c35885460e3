"""/metrics (storefront/observability/metrics.py): Prometheus' text format, only with the bearer token (404 otherwise);
the provider's calls by service and outcome, the breakers, requests by route, the queues and workers and the money flows
read from the database at each scrape, and figures added up across processes (multiprocess mode)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.test import override_settings
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from prometheus_client.parser import text_string_to_metric_families

from domains.models import Registration
from storefront.gateway import gateway
from storefront.models import WorkerBeat

TOKEN = "scrape-secret-123"
ROOT = Path(__file__).resolve().parents[2]


def _scrape(client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def _value(samples, name: str, **labels: str) -> float | None:
    return samples.get((name, tuple(sorted(labels.items()))))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("token", "header"),
    [
        ("", f"Bearer {TOKEN}"),  # no token set: no metrics at all
        (TOKEN, ""),
        (TOKEN, "Bearer wrong-token"),
        (TOKEN, f"Basic {TOKEN}"),
        (TOKEN, f"Bearer {TOKEN}x"),
    ],
)
def test_metrics_are_a_404_without_the_right_token(client, token, header):
    with override_settings(METRICS_TOKEN=token):
        response = client.get("/metrics", HTTP_AUTHORIZATION=header) if header else client.get("/metrics")
    assert response.status_code == 404
    assert b"storefront_" not in response.content


@pytest.mark.django_db(transaction=True)
@override_settings(METRICS_TOKEN=TOKEN)
def test_metrics_name_what_an_operator_watches(client, sandbox_url, sandbox_partner):
    gateway().hello()  # a provider call, as a page makes them
    client.get("/")
    samples = _scrape(client)
    names = {name for name, _ in samples}
    for expected in (
        "storefront_provider_request_duration_seconds_count",
        "storefront_request_duration_seconds_count",
        "storefront_breaker_open",
        "storefront_tasks_ready",
        "storefront_task_oldest_ready_seconds",
        "storefront_payments_needing_attention",
        "storefront_registrations_unknown",
    ):
        assert expected in names, expected
    assert _value(samples, "storefront_provider_request_duration_seconds_count", service="main", outcome="ok") >= 1
    assert _value(samples, "storefront_request_duration_seconds_count", route="/", status="200") >= 1
    assert _value(samples, "storefront_breaker_open", service="provider main") == 0


@pytest.mark.django_db
@override_settings(METRICS_TOKEN=TOKEN)
def test_queues_workers_and_unknown_registrations_are_read_at_scrape_time(client, customer):
    now = timezone.now()
    for minutes in (1, 7):
        DBTaskResult.objects.create(
            task_path="domains.orders.tasks.sync_orders",
            args_kwargs={"args": [], "kwargs": {}},
            backend_name="default",
            queue_name="bulk",
            run_after=now - dt.timedelta(minutes=minutes),
        )
    WorkerBeat.objects.create(
        worker_id="w1", queues="paid,default", started_at=now, seen_at=now - dt.timedelta(seconds=30)
    )
    Registration.objects.create(
        customer=customer,
        domain_name="lost-answer.com",
        duration=1,
        status=Registration.Status.UNKNOWN,
        checkout_id=uuid.uuid4(),
    )
    samples = _scrape(client)
    assert _value(samples, "storefront_tasks_ready", queue="bulk") == 2
    assert _value(samples, "storefront_tasks_ready", queue="paid") == 0
    assert 7 * 60 <= _value(samples, "storefront_task_oldest_ready_seconds", queue="bulk") < 8 * 60
    assert 30 <= _value(samples, "storefront_worker_last_seen_seconds", queue="paid") < 40
    assert _value(samples, "storefront_worker_last_seen_seconds", queue="bulk") is None  # no worker takes it
    assert _value(samples, "storefront_registrations_unknown") == 1


OBSERVE = """
import django, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
django.setup()
from storefront.observability.metrics import provider_call_observed
provider_call_observed(service="main", outcome="unavailable", seconds=0.2)
"""


@pytest.mark.django_db
@override_settings(METRICS_TOKEN=TOKEN)
def test_figures_are_added_up_across_processes(client, tmp_path, monkeypatch):
    # Two processes (two gunicorn workers, or a web worker and a task worker) each observe a provider call; the
    # scrape, answered by a third, counts both.
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    for _ in range(2):
        subprocess.run([sys.executable, "-c", OBSERVE], cwd=ROOT, env=env, check=True)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    samples = _scrape(client)
    count = _value(samples, "storefront_provider_request_duration_seconds_count", service="main", outcome="unavailable")
    assert count == 2
