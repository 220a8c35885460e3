"""The `error_200_message` fault: any endpoint answers 200 with a refusal body, which a careful client must read
as a refusal (the provider's docs do not say it never happens)."""

import pytest
from django.urls import reverse

from sandbox.faults import inject
from sandbox.models import DomainOrder, Fault

pytestmark = pytest.mark.django_db

MESSAGE = "Request could not be processed"


def test_any_endpoint_answers_200_with_status_error(api, customer_id):
    with inject(error_200_message=MESSAGE):
        hello = api.get("/api/v1/hello")
        orders = api.get("/api/v1/domains/orders", {"customer_id": customer_id})
        availability = api.get("/api/v1/domains/availability", {"search_term": "coffee"})
    for response in (hello, orders, availability):
        assert response.status_code == 200
        assert response.json() == {"status": "ERROR", "message": MESSAGE}


def test_metasearch_answers_200_with_error(api):
    with inject(error_200_message=MESSAGE):
        response = api.get("/metasearch/v1/search", {"search_term": "coffee"})
    assert response.status_code == 200
    assert response.json() == {"error": MESSAGE}


def test_the_work_is_not_done(api, customer_id):
    with inject(error_200_message="Unable to process", scope="register"):
        response = api.post(
            "/api/v1/domains/register", {"customer_id": customer_id, "domain_name": "refused.com", "duration": 1}
        )
    assert response.status_code == 200
    assert response.json()["status"] == "ERROR"
    assert not DomainOrder.objects.filter(domain_name="refused.com").exists()


def test_scope_limits_it(api, customer_id):
    with inject(error_200_message=MESSAGE, scope="dns"):
        assert api.get("/api/v1/hello").json()["message"] == "Authorized"
        activate = api.post("/api/v1/dns/activate", {"order_id": 123456789})
        assert activate.json() == {"status": "ERROR", "message": MESSAGE}


def test_switched_on_in_the_admin(admin_client, api, partner):
    form = {
        "partner": partner.pk,
        "latency_ms": 0,
        "error_rate": 0,
        "hang_seconds": 0,
        "scope": "",
        "error_200_message": "Refused by the registry",
        "ai_latency_ms": 0,
    }
    response = admin_client.post(reverse("admin:sandbox_fault_add"), form)
    assert response.status_code == 302, response.content
    assert Fault.objects.get(partner=partner).error_200_message == "Refused by the registry"
    answer = api.get("/api/v1/hello")
    assert (answer.status_code, answer.json()) == (200, {"status": "ERROR", "message": "Refused by the registry"})
