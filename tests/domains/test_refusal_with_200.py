"""A 200 answer whose body says ERROR is a refusal: the customer is never told it worked.

The sandbox always refuses with 422, so these tests answer one call with a 200 `{status: ERROR}` body, as a
provider the contract allows might, and let every other call reach the sandbox.
"""

from __future__ import annotations

import json

import pytest
import requests
from django.urls import reverse

from storefront.gateway import ResellerGateway
from tests.domains.fixtures_orders import ProviderOrders
from tests.domains.orders.test_order_renew import price_shown

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def seeded_partner(sandbox_seeded) -> str:
    """This module tests what comes over HTTP: the real client and the sandbox, not the in-memory provider."""
    return sandbox_seeded


@pytest.fixture
def provider_orders(seeded_partner, sandbox_control) -> ProviderOrders:
    return ProviderOrders(sandbox_control)


@pytest.fixture
def refuse_with_200(monkeypatch):
    """Answer requests to `path` with 200 `{status: ERROR, message}`; everything else goes to the sandbox."""
    real = ResellerGateway._exchange
    refused: dict[str, str] = {}

    def exchange(self, method, url, **kwargs):
        path = requests.utils.urlparse(url).path
        if path.endswith(tuple(refused)):
            response = requests.Response()
            response.status_code = 200
            response._content = json.dumps(
                {"status": "ERROR", "message": refused[path.rsplit("/api/v1", 1)[-1]]}
            ).encode()
            response.headers["Content-Type"] = "application/json"
            return response
        return real(self, method, url, **kwargs)

    monkeypatch.setattr(ResellerGateway, "_exchange", exchange)
    return refused


def test_a_renewal_refused_with_200_never_says_renewed(signed_in, customer, provider_orders, refuse_with_200):
    order = provider_orders.register(customer, "refused200.com")
    before = provider_orders.at_provider(order).expires_at
    assert signed_in.get(reverse("order_detail", args=[order.order_id])).status_code == 200
    token = signed_in.session["renew_tokens"][str(order.order_id)][-1]
    refuse_with_200["/domains/renew"] = "Failed to renew the domain order"
    shown = int(before.timestamp())
    form = {"duration": 1, "renew_token": token, "expiry_timestamp": shown, "confirm": "on", **price_shown(order, 1)}

    response = signed_in.post(reverse("order_renew", args=[order.order_id]), form, follow=True)

    html = response.content.decode()
    assert "Renewed until" not in html
    assert "refused this renewal; you have not been charged" in html
    assert provider_orders.at_provider(order).expires_at == before


def test_a_dns_activation_refused_with_200_is_not_reported_as_done(
    signed_in, customer, provider_orders, refuse_with_200
):
    order = provider_orders.register(customer, "refused200dns.com")
    refuse_with_200["/dns/activate"] = "Invalid order ID"

    response = signed_in.post(reverse("dns_activate", args=[order.order_id]), follow=True)

    html = response.content.decode()
    assert "DNS is active" not in html
    assert "The domain service has no record of this." in html
    order.refresh_from_db()
    assert not order.dns_active
