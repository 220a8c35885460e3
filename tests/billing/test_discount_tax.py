"""Money rules the EU launch journey (tests/browser/test_journey_eu_launch.py) checks in a browser, checked here in a
second: a promotion's discount comes off before tax (tax on the price after the discount), the amount charged is
that price plus its tax, a reverse-charged business pays the discounted price without tax, and WHOIS privacy is
charged beside the discounted domain at its own price (the code does not touch it)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from billing.ledger.taxes import lines_taxed
from domains.cart.basket import CartLine
from domains.checkout.payments import lines_to_pay
from pricing.models import TaxRate, TaxRegistration

pytestmark = pytest.mark.django_db


@pytest.fixture
def irish_store(db):
    TaxRegistration.objects.create(country="IE", tax_id="IE6388047V", name="Example Domains Ltd")
    for country, rate in (("IE", 23), ("DE", 19), ("FR", 20)):
        TaxRate.objects.create(country=country, rate=Decimal(rate), label="VAT")


def _cart_line(*, price: str, discount: str | None, privacy: str | None = None) -> CartLine:
    return CartLine(
        domain_name="launch-example.com",
        duration=1,
        currency="EUR",
        price=Decimal(price),
        renew=None,
        terms=(1,),
        min_term=1,
        privacy=Decimal(privacy) if privacy else None,
        discount=Decimal(discount) if discount else None,
        promotion="LAUNCH10" if discount else "",
    )


def _as(customer, country: str, number: str = "") -> None:
    customer.country, customer.is_business, customer.tax_number = country, bool(number), number
    customer.save()


def test_tax_is_charged_on_the_price_after_the_discount(irish_store, customer):
    _as(customer, "FR")
    [taxed] = lines_taxed(customer=customer, lines=lines_to_pay([_cart_line(price="20.00", discount="2.00")]))
    assert (taxed.line.list_price.amount, taxed.line.discount.amount) == (Decimal("20.00"), Decimal("2.00"))
    assert taxed.tax.net.amount == Decimal("18.00")
    assert taxed.tax.tax.amount == Decimal("3.60")  # 20 % of 18.00, not of 20.00 (4.00)
    assert taxed.tax.gross.amount == Decimal("21.60")


def test_a_reverse_charged_business_pays_the_discounted_price_without_tax(irish_store, customer):
    _as(customer, "DE", "DE136695976")
    [taxed] = lines_taxed(customer=customer, lines=lines_to_pay([_cart_line(price="20.00", discount="2.00")]))
    assert taxed.tax.reverse_charge and taxed.tax.tax.amount == 0
    assert taxed.tax.gross.amount == Decimal("18.00")


def test_privacy_is_charged_at_its_own_price_beside_the_discounted_domain(irish_store, customer):
    _as(customer, "FR")
    lines = lines_to_pay([_cart_line(price="20.00", discount="2.00", privacy="5.00")])
    taxed = lines_taxed(customer=customer, lines=lines)
    assert [each.tax.net.amount for each in taxed] == [Decimal("18.00"), Decimal("5.00")]
    assert [each.tax.tax.amount for each in taxed] == [Decimal("3.60"), Decimal("1.00")]
    assert sum(each.tax.gross.amount for each in taxed) == Decimal("27.60")
