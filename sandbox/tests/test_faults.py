"""Faults switched on per partner: latency, error rate, hangs, malformed bodies, availability down, 429, scope."""

import time

import pytest
from django.core.exceptions import ValidationError

from sandbox.faults import inject
from sandbox.models import DomainOrder, Fault

pytestmark = pytest.mark.django_db

SEARCH = "/metasearch/v1/search"
AVAILABILITY = "/api/v1/domains/availability"


def test_inject_switches_faults_on_and_off(api, partner):
    with inject(error_rate=1.0) as fault:
        assert fault.partner == partner
        response = api.get("/api/v1/hello")
        assert response.status_code == 500
        assert response.json() == {"message": "Server Error."}
    assert not Fault.objects.exists()
    assert api.get("/api/v1/hello").status_code == 200


def test_inject_refuses_unknown_fields_and_bad_values(partner):
    with pytest.raises(TypeError), inject(explode=True):
        pass
    with pytest.raises(ValidationError), inject(error_rate=2):
        pass
    with pytest.raises(ValidationError), inject(scope="everything"):
        pass


def test_faults_belong_to_one_partner(api, other_api, other_partner):
    with inject(other_partner, error_rate=1.0):
        assert other_api.get("/api/v1/hello").status_code == 500
        assert api.get("/api/v1/hello").status_code == 200


def test_metasearch_internal_failure_shape(api):
    with inject(error_rate=1.0):
        response = api.get(SEARCH, {"search_term": "coffee"})
    assert response.status_code == 500
    assert response.json() == {"error": "Internal server error"}


def test_error_rate_is_deterministic(api):
    with inject(error_rate=0.5):
        codes = [api.get("/api/v1/hello").status_code for _ in range(6)]
    assert codes.count(500) == 3
    assert codes == [200, 500, 200, 500, 200, 500]


def test_latency_delays_the_answer(api):
    with inject(latency_ms=150):
        started = time.perf_counter()
        assert api.get("/api/v1/hello").status_code == 200
    assert time.perf_counter() - started >= 0.15


def test_hang_delays_before_the_work(api, customer_id):
    with inject(hang_seconds=0.2, scope="register"):
        started = time.perf_counter()
        response = api.post(
            "/api/v1/domains/register", {"customer_id": customer_id, "domain_name": "slow.com", "duration": 1}
        )
    assert time.perf_counter() - started >= 0.2
    assert response.status_code == 200


def test_hang_after_commit_does_the_work_first(api, customer_id, monkeypatch):
    seen_during_hang = []

    def fake_sleep(seconds):
        seen_during_hang.append((seconds, DomainOrder.objects.filter(domain_name="dropped.com").exists()))

    monkeypatch.setattr("sandbox.faults.time.sleep", fake_sleep)
    with inject(hang_seconds=3, hang_after_commit=True, scope="register"):
        api.post("/api/v1/domains/register", {"customer_id": customer_id, "domain_name": "dropped.com", "duration": 1})
    assert seen_during_hang == [(3, True)]


def test_malformed_answers_200_with_a_body_that_is_not_json(api, customer_id):
    with inject(malformed=True, scope="register"):
        response = api.post(
            "/api/v1/domains/register", {"customer_id": customer_id, "domain_name": "garbled.com", "duration": 1}
        )
    assert response.status_code == 200
    assert not response["Content-Type"].startswith("application/json")
    with pytest.raises(ValueError):
        response.json()
    # The work was done; only the answer is garbled.
    assert DomainOrder.objects.filter(domain_name="garbled.com", status="Active").exists()


def test_availability_down(api, customer_id):
    with inject(availability_down=True):
        response = api.get(SEARCH, {"search_term": "coffee"})
        assert response.status_code == 503
        assert response.json() == {"error": "Domain availability service unavailable"}
        response = api.get(AVAILABILITY, {"search_term": "coffee"})
        assert response.status_code == 500
        assert response.json() == {"message": "Server Error."}
        # Everything else keeps working.
        assert api.get("/api/v1/domains/orders", {"customer_id": customer_id}).status_code == 200


def test_rate_limited_answers_429_with_retry_after(api):
    with inject(rate_limited=True):
        response = api.get("/api/v1/hello")
    assert response.status_code == 429
    assert response["Retry-After"] == "2"
    assert response.json() == {"message": "Too Many Requests"}


def test_scope_limits_faults_to_endpoint_groups(api, customer_id):
    with inject(error_rate=1.0, scope="metasearch, register"):
        assert api.get(SEARCH, {"search_term": "coffee"}).status_code == 500
        body = {"customer_id": customer_id, "domain_name": "x1.com", "duration": 1}
        assert api.post("/api/v1/domains/register", body).status_code == 500
        assert api.get("/api/v1/hello").status_code == 200
        assert api.get(AVAILABILITY, {"search_term": "coffee"}).status_code == 200
        assert api.get("/api/v1/domains/orders", {"customer_id": customer_id}).status_code == 200
    with inject(error_rate=1.0, scope="domains"):
        assert api.get("/api/v1/domains/orders", {"customer_id": customer_id}).status_code == 500
        assert api.get("/api/v1/hello").status_code == 200


def test_faults_come_after_authentication(client, partner):
    with inject(error_rate=1.0):
        response = client.get("/api/v1/hello")
    assert response.status_code == 401


def test_an_unexpected_exception_is_the_providers_server_error(api, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("sandbox.views.metasearch.Catalogue", explode)
    response = api.get(SEARCH, {"search_term": "coffee"})
    assert response.status_code == 500
    assert response.json() == {"error": "Internal server error"}
    monkeypatch.setattr("sandbox.views.search.Catalogue", explode)
    response = api.get(AVAILABILITY, {"search_term": "coffee"})
    assert response.status_code == 500
    assert response.json() == {"message": "Server Error."}
