"""The storefront's own price line, written from retail prices (never the provider's summary)."""

from decimal import Decimal

import pytest

from pricing.models import PriceRule, RuleKind
from pricing.quotes import price_text
from tests.pricing.conftest import markup

pytestmark = pytest.mark.django_db


@markup()
def test_first_year_then_renewal(costs):
    costs("com", register={1: "12.99"}, renew={1: "14.99"})
    assert price_text(tld="com") == "$12.99 first year, then $14.99/yr"


@markup()
def test_one_price_every_year(costs):
    costs("dev", register={1: "15.99"}, renew={1: "15.99"})
    assert price_text(tld="dev") == "$15.99/yr"


@markup()
def test_free_first_year_only_when_the_retail_first_year_is_free(costs):
    costs("shop", register={1: "0.00", 2: "29.99"}, renew={1: "29.99"})
    assert price_text(tld="shop") == "Free for the first year, then $29.99/yr"

    # A markup per year makes the first year cost something: the text must not promise "free".
    PriceRule.objects.create(tld="shop", kind=RuleKind.FIXED_AMOUNT, amount=Decimal("1.00"))
    assert price_text(tld="shop") == "$1.00 first year, then $30.99/yr"


@markup()
def test_minimum_term(costs):
    costs("ai", register={2: "159.98", 3: "239.97"}, renew={1: "79.99"})
    assert price_text(tld="ai") == "2-year minimum: $159.98 for the first 2 years, then $79.99/yr"


@markup(percent="10", rounding="99")
def test_uses_the_retail_prices(costs):
    costs("com", register={1: "12.99"}, renew={1: "14.99"})
    assert price_text(tld="com") == "$14.99 first year, then $16.99/yr"


def test_nothing_for_a_tld_not_for_sale(costs):
    costs("biz", sold=False, register={1: "9.99"})
    assert price_text(tld="biz") is None
    assert price_text(tld="nope") is None
