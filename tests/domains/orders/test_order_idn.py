"""An internationalised domain on the customer's pages: its readable form first, its A-label beside it."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db

BOTH = 'café.com<span class="domain-ace">xn--caf-dma.com</span>'


def test_the_domain_page_and_the_list_show_both_forms(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, "xn--caf-dma.com")
    page = signed_in.get(reverse("order_detail", args=[order.order_id])).content.decode()
    assert f"<h1>{BOTH}</h1>" in page
    assert "<title>café.com" in page
    assert "Review renewal of café.com" in page
    listing = signed_in.get(reverse("orders")).content.decode()
    assert BOTH in listing
