import pytest
from django.test import override_settings

from storefront.gateway import Unavailable, gateway
from storefront.gateway.client import ResellerGateway
from storefront.observability.provider_state import provider_forget


@pytest.fixture(autouse=True)
def _fresh_process():
    """What the provider was last seen doing is per process: each test starts as a new one."""
    provider_forget()
    yield
    provider_forget()


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
    assert response.json()["provider"] == {"main": "unreachable", "metasearch": "unreachable"}
    assert response.json()["checks"] == {"database": "ok", "cache": "ok"}


@pytest.mark.django_db(transaction=True)
def test_readyz_probed_ten_times_in_a_minute_asks_the_provider_at_most_once_per_service(
    client, sandbox_url, sandbox_partner, monkeypatch, django_assert_max_num_queries
):
    sent: list[str] = []
    exchange = ResellerGateway._exchange

    def counted(self, method, url, **kwargs):
        sent.append(url)
        return exchange(self, method, url, **kwargs)

    monkeypatch.setattr(ResellerGateway, "_exchange", counted)
    assert client.get("/readyz").json()["provider"] == {"main": "ok", "metasearch": "ok"}  # probes, logs its calls
    for _ in range(9):
        with django_assert_max_num_queries(1):  # SELECT 1: the database's check, nothing else
            response = client.get("/readyz")
        assert response.status_code == 200
        assert response.json()["provider"] == {"main": "ok", "metasearch": "ok"}
    assert len(sent) == 2  # one probe of the main interface, one of MetaSearch


@pytest.mark.django_db(transaction=True)
def test_readyz_reports_the_last_real_call_without_asking_again(client, sandbox_url, sandbox_partner, monkeypatch):
    gateway().hello()  # a page's call: the main interface is up
    dead = "http://127.0.0.1:9"
    with override_settings(RESELLER_METASEARCH_URL=dead, RESELLER_GET_RETRIES=0):
        gateway.cache_clear()
        with pytest.raises(Unavailable):  # the failure is what readiness must report
            gateway().metasearch(search_term="example", autosuggest=False, aisuggest=False)
        sent: list[str] = []
        monkeypatch.setattr(ResellerGateway, "_exchange", lambda self, method, url, **kwargs: sent.append(url))
        response = client.get("/readyz")
    gateway.cache_clear()
    assert response.json()["provider"] == {"main": "ok", "metasearch": "unreachable"}
    assert sent == []


@pytest.mark.django_db
def test_readyz_asks_the_provider_again_once_its_last_state_is_a_minute_old(client, monkeypatch):
    dead = "http://127.0.0.1:9"
    with override_settings(
        RESELLER_BASE_URL=dead, RESELLER_METASEARCH_URL=dead, RESELLER_GET_RETRIES=0, READYZ_PROVIDER_PROBE_SECONDS=60
    ):
        gateway.cache_clear()
        now = [1000.0]
        monkeypatch.setattr("storefront.observability.provider_state.time.monotonic", lambda: now[0])
        monkeypatch.setattr("storefront.observability.health.time.monotonic", lambda: now[0])
        sent: list[str] = []
        exchange = ResellerGateway._exchange

        def counted(self, method, url, **kwargs):
            sent.append(url)
            return exchange(self, method, url, **kwargs)

        monkeypatch.setattr(ResellerGateway, "_exchange", counted)
        client.get("/readyz")
        now[0] += 59
        client.get("/readyz")
        assert len(sent) == 2
        now[0] += 1
        client.get("/readyz")
        assert len(sent) == 4
    gateway.cache_clear()
