"""The tax rules that carry legal weight, computed in one place (pricing/tax.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pricing.models import TaxRate, TaxRegistration
from pricing.money import Money
from pricing.tax import Place, Rate, Registration, TaxRules, line_tax, tax_rules

GERMAN_STORE = Registration(country="DE", tax_id="DE136695976", name="Beispiel Domains GmbH")
RATES = {
    ("DE", ""): Rate(Decimal(19), "VAT"),
    ("FR", ""): Rate(Decimal(20), "VAT"),
    ("US", "NY"): Rate(Decimal("8.875"), "Sales tax"),
}
RULES = TaxRules(registration=GERMAN_STORE, rates=RATES)
EUR = lambda text: Money(Decimal(text), "EUR")  # noqa: E731


def test_an_eu_consumer_is_charged_their_own_countrys_rate():
    tax = line_tax(RULES, Place(country="FR"), EUR("10.00"))
    assert (tax.rate, tax.tax, tax.gross, tax.reverse_charge) == (Decimal(20), EUR("2.00"), EUR("12.00"), False)


def test_an_eu_business_in_another_member_state_with_a_valid_number_is_reverse_charged():
    tax = line_tax(RULES, Place(country="FR", business_number="FR40303265045"), EUR("10.00"))
    assert (tax.rate, tax.tax, tax.gross, tax.reverse_charge) == (Decimal(0), EUR("0"), EUR("10.00"), True)
    assert "Article 196 of Council Directive 2006/112/EC" in tax.wording


def test_a_business_in_the_sellers_own_country_is_charged_normally():
    tax = line_tax(RULES, Place(country="DE", business_number="DE136695976"), EUR("10.00"))
    assert (tax.rate, tax.tax, tax.reverse_charge, tax.wording) == (Decimal(19), EUR("1.90"), False, "")


def test_a_business_without_a_valid_number_pays_the_consumer_rate():
    tax = line_tax(RULES, Place(country="FR", business_number=""), EUR("10.00"))
    assert tax.tax == EUR("2.00") and not tax.reverse_charge


def test_outside_the_configured_countries_no_tax_and_a_region_rate_wins():
    assert line_tax(RULES, Place(country="JP"), EUR("10.00")).tax.is_zero
    assert line_tax(RULES, Place(country="US", region="CA"), Money(Decimal("10.00"), "USD")).tax.is_zero
    ny = line_tax(RULES, Place(country="US", region="ny"), Money(Decimal("12.99"), "USD"))
    assert (ny.tax, ny.label) == (Money(Decimal("1.15"), "USD"), "Sales tax")  # 1.1528… half up


def test_without_a_registration_the_store_charges_no_tax():
    rules = TaxRules(registration=None, rates=RATES)
    assert line_tax(rules, Place(country="FR"), EUR("10.00")).tax.is_zero


def test_rounding_is_per_line_half_up_to_the_currencys_minor_unit():
    assert line_tax(RULES, Place(country="DE"), EUR("12.50")).tax == EUR("2.38")  # 2.375 → 2.38
    yen = line_tax(RULES, Place(country="FR"), Money(Decimal(1234), "JPY"))
    assert yen.tax == Money(Decimal(247), "JPY")  # 246.8 → 247, no fractions of a yen


def test_inclusive_prices_hold_their_tax_and_exclusive_ones_get_it_on_top():
    inclusive = TaxRules(registration=GERMAN_STORE, rates=RATES, inclusive=True)
    shown = line_tax(inclusive, Place(country="FR"), EUR("12.00"))
    assert (shown.net, shown.tax, shown.gross) == (EUR("10.00"), EUR("2.00"), EUR("12.00"))
    odd = line_tax(inclusive, Place(country="DE"), EUR("12.99"))
    assert (odd.net + odd.tax, odd.tax) == (EUR("12.99"), EUR("2.07"))  # 12.99 x 19/119 = 2.074
    exclusive = line_tax(RULES, Place(country="DE"), EUR("12.99"))
    assert (exclusive.net, exclusive.tax, exclusive.gross) == (EUR("12.99"), EUR("2.47"), EUR("15.46"))


def test_amounts_are_never_floats():
    with pytest.raises(TypeError):
        line_tax(RULES, Place(country="FR"), Money(12.5, "EUR"))


@pytest.mark.django_db
def test_the_rules_are_read_from_what_staff_set_in_the_admin(settings):
    settings.PRICES_INCLUDE_TAX = True
    assert tax_rules().registration is None
    TaxRegistration.objects.create(country="de", tax_id="DE136695976", name="Beispiel Domains GmbH")
    TaxRate.objects.create(country="us", region=" New York ", rate=Decimal("8.875"), label="Sales tax")
    rules = tax_rules()
    assert rules.registration == Registration("DE", "DE136695976", "Beispiel Domains GmbH")
    assert rules.rates == {("US", "NEW YORK"): Rate(Decimal("8.875"), "Sales tax")}
    # A customer's contact holds the state's name (storefront.site.countries.states_for).
    taxed = line_tax(rules, Place(country="US", region="New York"), Money(Decimal("10.00"), "USD"))
    assert (taxed.tax, taxed.label) == (Money(Decimal("0.82"), "USD"), "Sales tax")  # inclusive: 10 x 8.875/108.875
    assert rules.inclusive is True
