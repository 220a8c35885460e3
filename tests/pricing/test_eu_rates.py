"""A store registered for the EU's One-Stop Shop charges consumers in every member state their country's standard
VAT rate from the published rates (eu-vat-rates-data), staff's own rate winning; a member state left without a rate
is a start-up error, never 0 % silently. A store charging tax must carry its address on receipts."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pricing.checks import tax_registration_complete
from pricing.models import TaxRate, TaxRegistration
from pricing.money import Money
from pricing.tax import Place, line_tax, oss_rates_missing, tax_rules

pytestmark = pytest.mark.django_db

PRICE = Money(Decimal("100.00"), "EUR")


def register(*, oss: bool) -> None:
    TaxRegistration.objects.create(country="DE", tax_id="DE136695976", name="Beispiel Domains GmbH", oss=oss)


def test_an_oss_store_charges_each_member_states_published_rate_without_typing_it(settings):
    register(oss=True)
    rules = tax_rules()
    assert line_tax(rules, Place(country="FR"), PRICE).tax == Money(Decimal("20.00"), "EUR")
    assert line_tax(rules, Place(country="HU"), PRICE).tax == Money(Decimal("27.00"), "EUR")
    assert line_tax(rules, Place(country="DE"), PRICE).tax == Money(Decimal("19.00"), "EUR")
    assert oss_rates_missing() == []


def test_staffs_own_rate_wins_over_the_published_one():
    register(oss=True)
    TaxRate.objects.create(country="FR", rate=Decimal("5.5"), label="TVA")
    taxed = line_tax(tax_rules(), Place(country="FR"), PRICE)
    assert (taxed.tax.amount, taxed.label) == (Decimal("5.50"), "TVA")


def test_a_store_not_registered_for_oss_charges_only_its_own_rates():
    register(oss=False)
    assert line_tax(tax_rules(), Place(country="FR"), PRICE).tax.is_zero


def test_a_member_state_without_a_rate_refuses_to_start(monkeypatch, settings):
    settings.STORE_LEGAL_ADDRESS = "Beispielstraße 1\n10115 Berlin"
    register(oss=True)
    monkeypatch.setattr("pricing.tax.eu_standard_rates", lambda: {"DE": Decimal(19)})  # a package missing states
    [error] = tax_registration_complete()
    assert error.id == "pricing.E001" and "FR" in error.msg and "charged no VAT" in error.msg
    for country in sorted(oss_rates_missing()):
        TaxRate.objects.create(country=country, rate=Decimal(20))
    assert tax_registration_complete() == []


def test_a_store_charging_tax_without_its_address_refuses_to_start(settings):
    settings.STORE_LEGAL_ADDRESS = ""
    assert tax_registration_complete() == []  # no tax registration: no tax, no VAT receipts
    register(oss=False)
    [error] = tax_registration_complete()
    assert error.id == "pricing.E002" and "STORE_LEGAL_ADDRESS" in error.msg


def test_staff_see_where_the_rates_come_from(admin_client):
    register(oss=True)
    page = admin_client.get("/admin/pricing/taxregistration/").content.decode()
    assert "published it (eu-vat-rates-data, rates of 20" in page
