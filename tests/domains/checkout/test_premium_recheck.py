"""Premium names are never sold at the standard price: MetaSearch, as documented, marks no premium name, so the
checkout review asks the availability endpoint (whose `premium` flag is documented) before the payment page."""

from __future__ import annotations

import uuid

import pytest

from storefront.gateway import DomainResult
from tests.domains.checkout.test_checkout import review
from tests.domains.conftest import cart_of

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def buyer(client, customer):
    client.force_login(customer.user)
    return customer


def test_a_name_metasearch_called_available_but_premium_is_removed_before_paying(
    client, buyer, seeded_partner, fake_gateway, provider_calls
):
    name = f"pr{uuid.uuid4().hex[:10]}.com"
    assert client.post("/cart/add/", {"domain_name": name}).status_code in (200, 302)
    assert name in cart_of(client)
    # The registry prices it as premium; the search answer still fresh in the cache says available, unmarked.
    fake_gateway.reserve(name, kind="premium", partner=seeded_partner)
    provider_calls.clear()

    response = review(client)

    html = response.content.decode()
    assert f"{name} is now a premium name, which cannot be bought here, so we removed it from your cart." in html
    assert name not in cart_of(client)
    assert 'name="checkout_id"' not in html  # no payment page for it
    assert [call[0] for call in provider_calls] == ["domain_availability"]


def test_available_at_a_premium_price_is_premium_whatever_available_says(client, buyer, seeded_partner, fake_gateway):
    """The availability page: `premium: true` with `available: true` is "available at a premium price", which
    `register` refuses; it is not sold here."""
    name = f"pa{uuid.uuid4().hex[:10]}.com"
    assert client.post("/cart/add/", {"domain_name": name}).status_code in (200, 302)
    label = name.partition(".")[0]
    premium_row = DomainResult(domain_name=name, sld=label, tld="com", available=True, premium=True)
    fake_gateway.domain_availability = lambda **kwargs: [premium_row]

    html = review(client).content.decode()

    assert f"{name} is now a premium name" in html
    assert name not in cart_of(client)
