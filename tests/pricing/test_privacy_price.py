"""WHOIS privacy's price: the sync keeps the provider's one annual cost, and the store's rules price it."""

from dataclasses import replace
from decimal import Decimal

import pytest

from pricing.models import Operation, PriceRule, PriceSync, RuleKind
from pricing.money import Money
from pricing.quotes import privacy_cost, privacy_quote, privacy_requote
from pricing.sync import prices_sync
from tests.pricing.conftest import markup, price_list, tld_prices

pytestmark = pytest.mark.django_db


def usd(amount: str) -> Money:
    return Money(Decimal(amount), "USD")


@pytest.fixture
def synced(provider):
    provider.answer = price_list(tld_prices("com", register={1: "12.99"}), tld_prices("net", register={1: "13.99"}))
    assert prices_sync().ok
    return provider


def test_the_sync_keeps_the_privacy_cost_and_says_it(provider):
    provider.answer = price_list(tld_prices("com", register={1: "12.99"}))
    result = prices_sync()
    assert result.ok
    assert "WHOIS privacy: 4.99 USD a year." in result.message
    assert PriceSync.objects.get().privacy_cost == Decimal("4.99")
    assert privacy_cost() == usd("4.99")


def test_a_price_list_without_privacy_stops_selling_it(synced):
    synced.answer = replace(synced.answer, privacy_protection=None)
    result = prices_sync()
    assert result.ok and "No WHOIS privacy price quoted." in result.message
    assert privacy_cost() is None
    assert privacy_quote(tld="com", years=1) is None


def test_a_negative_privacy_price_is_refused_and_the_last_one_kept(synced):
    synced.answer = replace(synced.answer, privacy_protection=Decimal("-1"))
    result = prices_sync()
    assert not result.ok
    assert result.message == "The provider's price list has a negative WHOIS privacy price."
    assert privacy_cost() == usd("4.99")


@markup(fixed="1.50")
def test_privacy_is_priced_with_the_default_markup_per_year(synced):
    one = privacy_quote(tld="com", years=1)
    assert (one.cost, one.retail, one.operation) == (usd("4.99"), usd("6.49"), Operation.PRIVACY)
    three = privacy_quote(tld="com", years=3)
    assert (three.cost, three.retail) == (usd("14.97"), usd("19.47"))


@markup(fixed="1.50")
def test_a_rule_for_privacy_prices_it_and_a_rule_for_every_operation_does_not(synced):
    PriceRule.objects.create(kind=RuleKind.FIXED_PRICE, amount=Decimal("40"))  # every TLD, every operation
    assert privacy_quote(tld="com", years=1).retail == usd("6.49")
    PriceRule.objects.create(operation=Operation.PRIVACY, kind=RuleKind.FIXED_PRICE, amount=Decimal("5.99"))
    PriceRule.objects.create(tld="net", operation=Operation.PRIVACY, kind=RuleKind.PERCENT, percent=Decimal("100"))
    assert privacy_quote(tld="com", years=2).retail == usd("11.98")
    assert privacy_quote(tld="net", years=1).retail == usd("9.98")


@markup(fixed="1.50")
def test_a_privacy_rule_below_cost_falls_back_to_the_default_markup(synced):
    PriceRule.objects.create(operation=Operation.PRIVACY, kind=RuleKind.FIXED_PRICE, amount=Decimal("1.00"))
    quote = privacy_quote(tld="com", years=1)
    assert quote.retail == usd("6.49")
    assert "is below cost" in quote.rule


@markup(fixed="1.50")
def test_a_quoted_privacy_price_stands_unless_it_would_lose_money(synced):
    assert privacy_requote(tld="com", years=1, quoted=usd("6.00")).stands
    synced.answer = replace(synced.answer, privacy_protection=Decimal("7.00"))
    assert prices_sync().ok
    moved = privacy_requote(tld="com", years=1, quoted=usd("6.00"))
    assert (moved.stands, moved.price) == (False, usd("8.50"))
