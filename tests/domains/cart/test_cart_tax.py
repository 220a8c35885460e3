"""Tax shown in the cart and at checkout as it will be charged: "+ VAT" on top or "incl. VAT" per the store's setting,
per line and in total, for the signed-in customer's country and business status."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client

from pricing.models import TaxRate, TaxRegistration
from tests.domains.conftest import line, put_in_cart

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def german_store(db):
    TaxRegistration.objects.create(country="DE", tax_id="DE136695976", name="Beispiel Domains GmbH")
    TaxRate.objects.create(country="FR", rate=Decimal(20), label="VAT")


def _cart_page(customer=None, country: str = "FR", number: str = "") -> str:
    client = Client()
    if customer is not None:
        customer.country, customer.is_business, customer.tax_number = country, bool(number), number
        customer.save()
        client.force_login(customer.user)
    put_in_cart(client, line("example-tax.com"))
    response = client.get("/cart/")
    assert response.status_code == 200
    return response.content.decode()


def test_exclusive_prices_show_the_tax_added_per_line_and_the_total_to_pay(customer):
    page = _cart_page(customer)
    assert "+ VAT 20%: $2.90" in page  # 14.49 x 20% = 2.898
    assert "Total to pay" in page and "$17.39" in page


def test_inclusive_prices_show_the_tax_they_hold(customer, settings):
    settings.PRICES_INCLUDE_TAX = True
    page = _cart_page(customer)
    assert "incl. VAT 20%: $2.42" in page  # 14.49 x 20/120 = 2.415
    assert "Total to pay" not in page  # the total shown is what is paid


def test_a_reverse_charged_business_sees_no_vat(customer):
    page = _cart_page(customer, number="FR40303265045")
    assert "VAT 0% (reverse charge)" in page and "+ VAT 20%" not in page


def test_a_visitor_not_signed_in_is_told_how_vat_applies():
    page = _cart_page()
    assert "Prices are before VAT: VAT is added where it applies (sign in to see it)." in page


def test_a_country_without_a_rate_sees_no_tax(customer):
    page = _cart_page(customer, country="JP")
    assert "VAT" not in page.split('id="cart"', 1)[1]
