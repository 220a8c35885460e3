"""A quoted price is honoured at checkout and renewal unless honouring it would now lose money."""

from decimal import Decimal

import pytest
from django.test import override_settings

from pricing.models import ExchangeRate, Operation, Tld
from pricing.money import Money
from pricing.quotes import requote, retail_price
from tests.pricing.conftest import markup

pytestmark = pytest.mark.django_db


def usd(amount: str) -> Money:
    return Money(Decimal(amount), "USD")


@markup(percent="20")
def test_a_quote_stands_while_the_cost_allows_it(costs):
    costs("com", register={1: "12.99"})
    quoted = retail_price(tld="com", operation=Operation.REGISTER, years=1).retail  # 15.59
    costs("com", register={1: "14.00"})  # cost rose, but 15.59 still covers it

    result = requote(tld="com", operation=Operation.REGISTER, years=1, quoted=quoted)

    assert result.stands
    assert result.price == usd("15.59")
    assert result.quote.retail == usd("16.80")


@markup(percent="20")
def test_a_quote_that_would_now_lose_money_is_replaced(costs):
    costs("com", register={1: "12.99"})
    quoted = retail_price(tld="com", operation=Operation.REGISTER, years=1).retail
    costs("com", register={1: "16.00"})

    result = requote(tld="com", operation=Operation.REGISTER, years=1, quoted=quoted)

    assert not result.stands
    assert result.price == usd("19.20")
    assert result.reason == "The price has changed from $15.59 to $19.20."


def test_a_tld_dropped_since_the_quote(costs):
    costs("com", register={1: "12.99"})
    Tld.objects.filter(name="com").update(sold=False)

    result = requote(tld="com", operation=Operation.REGISTER, years=1, quoted=usd("12.99"))

    assert not result.stands
    assert result.price is None
    assert result.reason == ".com is not for sale right now."


@markup()
@override_settings(STORE_CURRENCY="EUR")
def test_a_quote_in_another_currency_does_not_stand(costs):
    costs("com", register={1: "10.00"})
    ExchangeRate.objects.create(store_currency="EUR", rate=Decimal("0.9"))

    result = requote(tld="com", operation=Operation.REGISTER, years=1, quoted=usd("50.00"))

    assert not result.stands
    assert result.price == Money(Decimal("9.00"), "EUR")
