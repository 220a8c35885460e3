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
    assert response.json()["checks"] == {"database": "ok", "provider": "ok"}


@pytest.mark.django_db
def test_readyz_is_not_ready_when_the_provider_is_unreachable(client):
    with override_settings(RESELLER_BASE_URL="http://127.0.0.1:9", RESELLER_GET_RETRIES=0):
        gateway.cache_clear()
        response = client.get("/readyz")
    gateway.cache_clear()
    assert response.status_code == 503
    assert response.json()["checks"]["provider"] == "Unavailable"
    assert response.json()["checks"]["database"] == "ok"
