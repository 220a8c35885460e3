"""The one function that prices (TLD, operation, term): default rule, overrides, rounding, currency."""

from decimal import Decimal

import pytest
from django.test import override_settings

from pricing.models import ExchangeRate, Operation, PriceRule, RuleKind
from pricing.money import Money
from pricing.quotes import price_book, retail_price, round_99
from tests.pricing.conftest import markup

pytestmark = pytest.mark.django_db


def usd(amount: str) -> Money:
    return Money(Decimal(amount), "USD")


@pytest.fixture
def com(costs):
    return costs("com", register={1: "12.99", 2: "27.98"}, renew={1: "14.99", 2: "29.98"}, transfer={1: "14.99"})


@markup()
def test_without_markup_the_price_is_the_cost(com):
    quote = retail_price(tld="com", operation=Operation.REGISTER, years=1)
    assert quote.retail == usd("12.99")
    assert quote.cost == usd("12.99")
    assert quote.margin == usd("0.00")
    assert quote.rule.startswith("default")


@markup(percent="20")
def test_percent_markup_is_exact_decimal(com):
    # 12.99 * 1.2 = 15.588 -> 15.59 (half up), never a float artefact like 15.587999.
    assert retail_price(tld="com", operation="register", years=1).retail == usd("15.59")


@markup(percent="10", fixed="1.50")
def test_percent_and_fixed_per_year(com):
    # 27.98 * 1.1 + 2 * 1.50 = 33.778 -> 33.78
    quote = retail_price(tld=".COM", operation=Operation.REGISTER, years=2)
    assert quote.retail == usd("33.78")
    assert quote.margin == usd("5.80")


@markup(percent="10", rounding="99")
def test_rounding_up_to_the_next_99(com):
    # 14.99 * 1.1 = 16.489 -> 16.99
    assert retail_price(tld="com", operation=Operation.RENEW, years=1).retail == usd("16.99")


@pytest.mark.parametrize(
    ("amount", "rounded"),
    [("13.20", "13.99"), ("13.99", "13.99"), ("14.00", "14.99"), ("14.001", "14.99"), ("0", "0"), ("0.5", "0.99")],
)
def test_round_99(amount, rounded):
    assert round_99(usd(amount)) == usd(rounded)


# A default that is not zero, so the last line shows the default applied rather than the cost passed through.
@markup(fixed="1.00")
def test_a_tld_rule_beats_an_operation_rule_which_beats_the_default(com, costs):
    costs("net", register={1: "13.99"}, renew={1: "15.99"})
    PriceRule.objects.create(operation=Operation.REGISTER, kind=RuleKind.PERCENT, percent=Decimal("50"))
    PriceRule.objects.create(tld="com", kind=RuleKind.FIXED_AMOUNT, amount=Decimal("2.00"))
    PriceRule.objects.create(tld="com", operation=Operation.RENEW, kind=RuleKind.FIXED_PRICE, amount=Decimal("19.99"))

    assert retail_price(tld="com", operation="register", years=1).retail == usd("14.99")  # TLD rule: +2.00/yr
    assert retail_price(tld="com", operation="transfer", years=1).retail == usd("16.99")  # TLD rule too
    assert retail_price(tld="com", operation="renew", years=2).retail == usd("39.98")  # fixed price per year
    assert retail_price(tld="net", operation="register", years=1).retail == usd("20.99")  # operation rule: +50%
    assert retail_price(tld="net", operation="renew", years=1).retail == usd("16.99")  # default: +1.00/yr


@override_settings(PRICE_ROUNDING="99")
def test_a_fixed_price_is_charged_exactly_as_set(com):
    PriceRule.objects.create(tld="com", operation="register", kind=RuleKind.FIXED_PRICE, amount=Decimal("13.50"))
    assert retail_price(tld="com", operation="register", years=1).retail == usd("13.50")


@markup(fixed="1.00")
def test_a_rule_the_cost_has_overtaken_falls_back_to_the_default(com):
    # Saved when the cost was lower; the provider has since raised it above the fixed price.
    PriceRule.objects.create(tld="com", operation="register", kind=RuleKind.FIXED_PRICE, amount=Decimal("12.00"))
    quote = retail_price(tld="com", operation="register", years=1)
    assert quote.retail == usd("13.99")  # the default's 1.00 on the cost, not the cost alone
    assert "below cost" in quote.rule


def test_not_for_sale_without_a_cost_for_that_term_or_tld(com):
    assert retail_price(tld="com", operation="register", years=3) is None
    assert retail_price(tld="com", operation="restore", years=1) is None
    assert retail_price(tld="museum", operation="register", years=1) is None


def test_a_dropped_tld_is_not_for_sale(costs):
    costs("biz", sold=False, register={1: "9.99"})
    assert retail_price(tld="biz", operation="register", years=1) is None


@markup()
@override_settings(STORE_CURRENCY="EUR")
def test_another_currency_needs_a_rate(com):
    assert retail_price(tld="com", operation="register", years=1) is None

    ExchangeRate.objects.create(store_currency="EUR", rate=Decimal("0.9123"))
    quote = retail_price(tld="com", operation="register", years=1)
    # 12.99 USD * 0.9123 = 11.850777 EUR: the cost is rounded up, so a sale at cost never loses a fraction.
    assert quote.cost == Money(Decimal("11.86"), "EUR")
    assert quote.retail == Money(Decimal("11.86"), "EUR")
    assert quote.provider_cost == usd("12.99")


@override_settings(STORE_CURRENCY="EUR", PRICE_MARKUP_FIXED=Decimal("1"))
def test_fixed_amounts_are_in_the_store_currency(com):
    ExchangeRate.objects.create(store_currency="EUR", rate=Decimal("2"))
    assert retail_price(tld="com", operation="register", years=1).retail == Money(Decimal("26.98"), "EUR")


@markup()
def test_a_price_book_prices_many_rows_with_a_fixed_number_of_queries(com, costs, django_assert_num_queries):
    costs("net", register={1: "13.99"}, renew={1: "15.99"})
    with django_assert_num_queries(2):  # costs, rules (USD store: no rate query)
        book = price_book(tlds=["com", "net", "org"])
    with django_assert_num_queries(0):
        assert book.retail_price(tld="net", operation="register", years=1).retail == usd("13.99")
        assert book.retail_price(tld="org", operation="register", years=1) is None
        assert book.terms(tld="com", operation="register") == [1, 2]
