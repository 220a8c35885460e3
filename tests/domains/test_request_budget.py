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


@override_settings(REQUEST_PROVIDER_CALLS_MAX=2)
def test_a_review_needing_more_calls_than_allowed_stops_and_offers_no_buy(client, customer, monkeypatch):
    client.force_login(customer.user)
    put_in_cart(client, *(line(f"budget{uuid.uuid4().hex[:8]}.com") for _ in range(3)))
    sent: list[str] = []
    real = ResellerGateway._exchange

    def exchange(self, method, url, **kwargs):
        sent.append(url)
        return real(self, method, url, **kwargs)

    monkeypatch.setattr(ResellerGateway, "_exchange", exchange)

    response = client.get("/checkout/")

    assert len(sent) == 2  # the third line's check was refused before it was sent
    assert response.status_code == 503
    assert response.context["can_buy"] is False
