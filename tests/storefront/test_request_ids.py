"""One request id from the edge to the provider: taken from a trusted proxy or made, on the response, the request's
log lines, its provider calls (X-Request-ID, and the provider call log beside the provider's own id), the tasks it
enqueues, and the error pages customers quote it from."""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Iterator

import pytest
from django.core.management import call_command
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.test import override_settings
from django.urls import include, path
from django.utils import timezone
from django_tasks import task

from storefront.gateway import ResellerGateway, Unavailable
from storefront.models import ProviderCall
from storefront.queues import QUEUES
from storefront.tasks import prune_provider_calls
from tests.storefront.scripted_server import Answer, ScriptedServer

PROVIDER_ID = "prov-7f3a-0001"
KEY = "test_request-id-key"
ROUTER_ID = "edge-0d7c1e9a-4b2f-4c11-9a7e-1f0e2d3c4b5a"


def provider(base_url: str) -> ResellerGateway:
    return ResellerGateway(
        base_url=base_url, metasearch_url=base_url + "/ms", api_key=KEY, connect_timeout=2.0, read_timeout=5.0,
        get_retries=0,
    )  # fmt: skip


def calling_view(request: HttpRequest) -> HttpResponse:
    provider(request.GET["provider"]).hello()
    return HttpResponse("called")


def enqueueing_view(request: HttpRequest) -> HttpResponse:
    provider_task.enqueue(base_url=request.GET["provider"])
    return HttpResponse("queued")


def unavailable_view(request: HttpRequest) -> HttpResponse:
    raise Unavailable()


def database_away_view(request: HttpRequest) -> HttpResponse:
    raise DatabaseError("connection refused")


@task()
def provider_task(*, base_url: str) -> None:
    logging.getLogger("tests.task").info("task runs")
    provider(base_url).hello()


urlpatterns = [
    path("call/", calling_view),
    path("enqueue/", enqueueing_view),
    path("unavailable/", unavailable_view),
    path("database-away/", database_away_view),
    path("", include("storefront.urls")),  # the pages' own links (the error page's "home")
]
handler500 = "storefront.views.server_error"


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer().running() as running:
        running.default = Answer(body={"message": "hello"}, headers={"X-Request-Id": PROVIDER_ID})
        yield running


def test_without_a_trusted_proxy_a_clients_id_is_never_taken(client):
    response = client.get("/healthz", HTTP_X_REQUEST_ID=ROUTER_ID)
    assert re.fullmatch(r"[0-9a-f]{32}", response["X-Request-ID"])
    assert client.get("/healthz")["X-Request-ID"] != response["X-Request-ID"]


@override_settings(TRUSTED_PROXY_COUNT=1)
def test_behind_a_trusted_proxy_the_routers_id_is_kept(client):
    assert client.get("/healthz", HTTP_X_REQUEST_ID=ROUTER_ID)["X-Request-ID"] == ROUTER_ID
    forged = client.get("/healthz", HTTP_X_REQUEST_ID="two words\nand a line")["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", forged)


@pytest.mark.django_db
@pytest.mark.urls(__name__)
@override_settings(TRUSTED_PROXY_COUNT=1)
def test_the_id_reaches_the_provider_the_log_and_the_call_log(client, server, caplog, django_user_model):
    caplog.set_level(logging.INFO)
    user = django_user_model.objects.create_user("ada", "ada@example.org", "x")
    client.force_login(user)
    response = client.get(f"/call/?provider={server.url}", HTTP_X_REQUEST_ID=ROUTER_ID)

    assert response["X-Request-ID"] == ROUTER_ID
    assert server.seen[0].headers["X-Request-ID"] == ROUTER_ID
    lines = {record.name: record for record in caplog.records if getattr(record, "request_id", None) == ROUTER_ID}
    assert {"storefront.gateway", "storefront.requests"} <= set(lines)
    call = ProviderCall.objects.get()
    assert (call.request_id, call.provider_request_id) == (ROUTER_ID, PROVIDER_ID)
    assert (call.method, call.path, call.status, call.service, call.user) == ("GET", "/api/v1/hello", 200, "main", user)


@pytest.mark.django_db(transaction=True)
@pytest.mark.urls(__name__)
@override_settings(TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": list(QUEUES)}})
def test_a_task_enqueued_by_a_request_runs_under_its_id(client, server, caplog):
    caplog.set_level(logging.INFO)
    reference = client.get(f"/enqueue/?provider={server.url}")["X-Request-ID"]
    assert server.seen == []

    call_command("run_worker", "--batch", "--no-startup-delay", "-v", "0")

    assert server.seen[0].headers["X-Request-ID"] == reference
    (task_line,) = [record for record in caplog.records if record.name == "tests.task"]
    assert task_line.request_id == reference
    assert ProviderCall.objects.get().request_id == reference


@pytest.mark.django_db
def test_a_call_outside_any_request_has_an_id_of_its_own(server, caplog):
    caplog.set_level(logging.INFO)
    provider(server.url).hello()
    sent = server.seen[0].headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", sent)
    assert ProviderCall.objects.get().request_id == sent
    (line,) = [record for record in caplog.records if record.name == "storefront.gateway"]
    assert line.request_id == sent and PROVIDER_ID in line.getMessage()


@pytest.mark.django_db
def test_a_call_without_an_answer_is_recorded_too(caplog):
    with ScriptedServer().running() as server:
        server.default = Answer(drop=True)
        with pytest.raises(Unavailable):
            provider(server.url).hello()
    call = ProviderCall.objects.get()
    assert call.status is None and call.provider_request_id == ""


@pytest.mark.urls(__name__)
def test_the_error_pages_name_the_reference(client):
    client.raise_request_exception = False
    for url, status in (("/unavailable/", 503), ("/database-away/", 503)):
        response = client.get(url)
        assert response.status_code == status
        page = response.content.decode()
        assert "quote this reference" in page and response["X-Request-ID"] in page


@pytest.mark.django_db
def test_staff_find_the_calls_of_a_reference(admin_client):
    ProviderCall.objects.create(
        request_id=ROUTER_ID, provider_request_id=PROVIDER_ID, service="main", method="POST",
        path="/api/v1/domains/register", status=200, duration_ms=120,
    )  # fmt: skip
    ProviderCall.objects.create(request_id="another-request-01", service="main", method="GET", path="/x", duration_ms=1)
    listing = "/admin/storefront/providercall/"
    for term in (ROUTER_ID, PROVIDER_ID):
        page = admin_client.get(listing, {"q": term}).content.decode()
        assert "/api/v1/domains/register" in page and "another-request-01" not in page


@pytest.mark.django_db
@override_settings(PROVIDER_CALL_LOG_DAYS=30)
def test_old_provider_calls_are_pruned():
    old = ProviderCall.objects.create(request_id="old-request-1", service="main", method="GET", path="/", duration_ms=1)
    ProviderCall.objects.filter(pk=old.pk).update(created_at=timezone.now() - dt.timedelta(days=31))
    ProviderCall.objects.create(request_id="new-request-0001", service="main", method="GET", path="/", duration_ms=1)
    prune_provider_calls.enqueue()
    assert list(ProviderCall.objects.values_list("request_id", flat=True)) == ["new-request-0001"]
