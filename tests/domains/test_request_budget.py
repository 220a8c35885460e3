"""A request that would ask the provider more than its bound is cut short, unsent."""

from __future__ import annotations

import uuid

import pytest
from django.test import override_settings

from storefront.gateway import ResellerGateway
from tests.domains.conftest import line, put_in_cart

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def seeded_partner(sandbox_seeded) -> str:
    """This module tests what comes over HTTP: the real client and the sandbox, not the in-memory provider."""
    return sandbox_seeded


@pytest.fixture
def sent(monkeypatch) -> list[str]:
    """The URLs the gateway sends requests to, from here on."""
    urls: list[str] = []
    real = ResellerGateway._exchange

    def exchange(self, method, url, **kwargs):
        urls.append(url)
        return real(self, method, url, **kwargs)

    monkeypatch.setattr(ResellerGateway, "_exchange", exchange)
    return urls


def test_a_review_of_twenty_lines_asks_the_provider_once(client, customer, sent):
    client.force_login(customer.user)
    names = [f"budget{uuid.uuid4().hex[:8]}.{tld}" for tld in ("com", "net", "org", "io") for _ in range(5)]
    put_in_cart(client, *(line(name) for name in names))

    response = client.get("/checkout/")

    assert [url.rsplit("/", 1)[-1] for url in sent] == ["availability"]
    assert response.status_code == 200
    assert response.context["can_buy"] is True
    assert sorted(line.domain_name for line in response.context["lines"]) == sorted(names)


@override_settings(REQUEST_PROVIDER_CALLS_MAX=2)
def test_a_search_needing_more_calls_than_allowed_stops_unsent(client, seeded_partner, sandbox_control, sent):
    # MetaSearch fails: the fallback needs the partner's TLDs (one call) and then availability (a third).
    with sandbox_control.fault(error_rate=1.0, scope="metasearch"):
        response = client.get("/search/", {"q": f"budget{uuid.uuid4().hex[:8]}"})

    assert len(sent) == 2  # the third call was refused before it was sent
    assert "not available right now" in response.content.decode()
