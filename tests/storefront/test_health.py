import pytest
from django.test import override_settings

from storefront.gateway import gateway


@pytest.mark.django_db
def test_healthz_answers_without_the_provider(client):
    with override_settings(RESELLER_BASE_URL="http://127.0.0.1:9"):
        gateway.cache_clear()
        response = client.get("/healthz")
    gateway.cache_clear()
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db(transaction=True)
def test_readyz_is_ready_with_the_sandbox(client, sandbox_url, sandbox_partner):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["checks"] == {"database": "ok", "cache": "ok"}
    assert response.json()["provider"] == {"main": "ok", "metasearch": "ok"}


@pytest.mark.django_db
def test_readyz_stays_ready_and_reports_a_provider_that_is_unreachable(client):
    # A provider outage must not take every instance out of the load balancer: it is reported, not failed on.
    dead = "http://127.0.0.1:9"
    with override_settings(RESELLER_BASE_URL=dead, RESELLER_METASEARCH_URL=dead, RESELLER_GET_RETRIES=0):
        gateway.cache_clear()
        response = client.get("/readyz")
    gateway.cache_clear()
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert response.json()["provider"] == {"main": "Unavailable", "metasearch": "Unavailable"}
    assert response.json()["checks"] == {"database": "ok", "cache": "ok"}
