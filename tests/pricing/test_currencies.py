"""The customer's currency: conversion from the store's currency and rounding per currency (EUR .99, JPY whole)."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from pricing.currencies import (
    currency_for_country,
    currency_override,
    currency_table_forget,
    price_rounded,
    suggested_ending,
)
from pricing.models import Currency, Operation
from pricing.money import Money, ending_problem, format_money
from pricing.quotes import display_price_book, display_price_book_forget, requote, retail_price
from tests.pricing.conftest import markup

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_tables():
    currency_table_forget()
    display_price_book_forget()
    yield
    currency_table_forget()
    display_price_book_forget()


@pytest.fixture
def eur_jpy():
    Currency.objects.create(code="EUR", enabled=True, rate=Decimal("0.92"), price_ending=Decimal("0.99"))
    Currency.objects.create(code="JPY", enabled=True, rate=Decimal("151.37"), price_ending=Decimal(0))


@pytest.fixture
def com(costs):
    return costs("com", register={1: "12.99"}, renew={1: "14.99"})


def test_rounding_ends_in_the_ending_and_never_rounds_down():
    assert price_rounded(Money(Decimal("13.20"), "EUR"), ending=Decimal("0.99")) == Money(Decimal("13.99"), "EUR")
    assert price_rounded(Money(Decimal("13.99"), "EUR"), ending=Decimal("0.99")) == Money(Decimal("13.99"), "EUR")
    assert price_rounded(Money(Decimal("14.00"), "EUR"), ending=Decimal("0.99")) == Money(Decimal("14.99"), "EUR")
    assert price_rounded(Money(Decimal("0.50"), "EUR"), ending=Decimal("0.99")) == Money(Decimal("0.99"), "EUR")
    assert price_rounded(Money(Decimal("1966.3"), "JPY"), ending=Decimal(0)) == Money(Decimal("1967"), "JPY")
    assert price_rounded(Money(Decimal("0"), "EUR"), ending=Decimal("0.99")).is_zero  # free stays free


def test_an_ending_must_fit_the_currencys_minor_units():
    assert suggested_ending("EUR") == Decimal("0.99")
    assert suggested_ending("JPY") == Decimal(0)
    assert ending_problem(code="EUR", ending=Decimal("0.99")) is None
    assert "whole units" in ending_problem(code="JPY", ending=Decimal("0.99"))
    assert "decimals" in ending_problem(code="EUR", ending=Decimal("0.995"))
    assert ending_problem(code="KWD", ending=Decimal("0.990")) is None
    with pytest.raises(ValidationError):
        Currency(code="jpy", enabled=True, rate=Decimal(150), price_ending=Decimal("0.5")).full_clean()
    with pytest.raises(ValidationError):  # enabled without a rate
        Currency(code="EUR", enabled=True, rate=None).full_clean()


@markup(percent="20")
def test_a_price_is_converted_from_the_store_currency_then_rounded_per_currency(com, eur_jpy):
    usd = retail_price(tld="com", operation=Operation.REGISTER, years=1)
    assert usd.retail == Money(Decimal("15.59"), "USD")  # 12.99 + 20 %
    with currency_override("EUR"):
        eur = retail_price(tld="com", operation=Operation.REGISTER, years=1)
    # 15.59 * 0.92 = 14.3428 -> 14.99; the cost 12.99 * 0.92 = 11.9508 -> 11.96 (rounded up, never down)
    assert eur.retail == Money(Decimal("14.99"), "EUR")
    assert eur.cost == Money(Decimal("11.96"), "EUR")
    assert eur.rate == Decimal("0.92")
    with currency_override("JPY"):
        jpy = retail_price(tld="com", operation=Operation.REGISTER, years=1)
    # 15.59 * 151.37 = 2359.8583 -> 2360 yen, whole units
    assert jpy.retail == Money(Decimal("2360"), "JPY")
    assert jpy.cost == Money(Decimal("1967"), "JPY")  # 12.99 * 151.37 = 1966.2963 -> 1967
    assert format_money(jpy.retail, language="en") == "¥2,360"


@markup()
def test_a_currency_not_enabled_prices_in_the_store_currency(com):
    Currency.objects.create(code="EUR", enabled=False, rate=Decimal("0.92"))
    with currency_override("EUR"):
        assert retail_price(tld="com", operation=Operation.REGISTER, years=1).retail.currency == "USD"


@markup()
def test_the_requote_at_buy_compares_in_the_customers_currency(com, eur_jpy):
    with currency_override("EUR"):
        stands = requote(tld="com", operation="register", years=1, quoted=Money(Decimal("11.99"), "EUR"))
        assert stands.stands and stands.price == Money(Decimal("11.99"), "EUR")
        below = requote(tld="com", operation="register", years=1, quoted=Money(Decimal("10.00"), "EUR"))
        assert not below.stands and below.price.currency == "EUR"
        # A price quoted in another currency (before the customer signed up) is worked out again in theirs.
        other = requote(tld="com", operation="register", years=1, quoted=Money(Decimal("12.99"), "USD"))
        assert not other.stands and other.price == Money(Decimal("11.99"), "EUR")


@markup()
def test_the_display_book_prices_each_currency_without_more_queries(com, eur_jpy, django_assert_num_queries):
    book = display_price_book()
    with django_assert_num_queries(0):
        assert book.price_text(tld="com") == "$12.99 first year, then $14.99/yr"
        with currency_override("EUR"):
            assert book.price_text(tld="com") == "€11.99 first year, then €13.99/yr"
        with currency_override("JPY"):
            assert book.retail_price(tld="com", operation="register", years=1).retail == Money(Decimal("1967"), "JPY")


def test_the_currency_by_country_is_one_the_store_sells_in(eur_jpy):
    assert currency_for_country("DE") == "EUR"
    assert currency_for_country("JP") == "JPY"
    assert currency_for_country("GB") == "USD"  # GBP not enabled: the store's currency
    assert currency_for_country("ZZ") == "USD"


def test_staff_set_a_rate_in_the_admin_and_it_says_who_and_when(admin_client, admin_user):
    response = admin_client.post(
        "/admin/pricing/currency/add/",
        {"code": "eur", "enabled": "on", "rate": "0.93", "price_ending": "0.99"},
    )
    assert response.status_code == 302, response.content
    eur = Currency.objects.get(code="EUR")
    assert (eur.rate, eur.rate_set_by) == (Decimal("0.93"), admin_user.get_username())
    assert eur.rate_set_at is not None
    listing = admin_client.get("/admin/pricing/currency/").content.decode()
    assert "1 USD = 0.930000 EUR" in listing

    refused = admin_client.post(
        "/admin/pricing/currency/add/", {"code": "JPY", "enabled": "on", "rate": "150", "price_ending": "0.99"}
    )
    assert "JPY has no decimals" in refused.content.decode()
    assert not Currency.objects.filter(code="JPY").exists()
