"""Add to cart and the checkout review ask the provider, so each is limited per address like search."""

import pytest
from django.conf import settings
from django.test import override_settings

pytestmark = pytest.mark.django_db


def _limits(**scopes: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
    return {**settings.RATE_LIMITS, **scopes}


def test_add_to_cart_is_limited_per_address(client):
    with override_settings(RATE_LIMITS=_limits(cart=(2, 60))):
        for _ in range(2):
            assert client.post("/cart/add/", {"domain_name": ""}).status_code != 429
        response = client.post("/cart/add/", {"domain_name": "coffee.com"})
        assert response.status_code == 429
        assert "Please wait" in response.content.decode()
        other = client.post("/cart/add/", {"domain_name": ""}, REMOTE_ADDR="198.51.100.7")
        assert other.status_code != 429


def test_the_checkout_review_is_limited_per_address(client):
    with override_settings(RATE_LIMITS=_limits(checkout=(2, 60))):
        for _ in range(2):
            assert client.get("/checkout/").status_code != 429
        assert client.get("/checkout/").status_code == 429
