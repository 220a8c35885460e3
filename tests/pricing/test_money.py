from decimal import Decimal

import pytest
from django.template import Context, Template
from django.utils import translation

from pricing.money import Money, format_money


def test_adds_and_compares_in_one_currency():
    total = Money(Decimal("12.99"), "USD") + Money(Decimal("14.99"), "USD")
    assert total == Money(Decimal("27.98"), "USD")
    assert Money(Decimal("1"), "usd") < total
    assert Money(Decimal("14.99"), "USD") * 2 == Money(Decimal("29.98"), "USD")


def test_refuses_to_mix_currencies():
    with pytest.raises(ValueError, match="USD with EUR"):
        Money(Decimal("1"), "USD") + Money(Decimal("1"), "EUR")
    with pytest.raises(ValueError):
        Money(Decimal("1"), "USD") < Money(Decimal("2"), "EUR")  # noqa: B015


def test_refuses_floats_and_bad_codes() -> None:
    with pytest.raises(TypeError):
        Money(12.99, "USD")  # type: ignore[arg-type]  # the very mistake under test
    with pytest.raises(ValueError):
        Money(Decimal("1"), "US")


def test_is_frozen() -> None:
    price = Money(Decimal("1"), "USD")
    with pytest.raises(AttributeError):
        price.amount = Decimal("2")  # type: ignore[misc]  # the very mistake under test


def test_formats_in_the_active_language():
    price = Money(Decimal("14.99"), "USD")
    with translation.override("en-us"):
        assert format_money(price) == "$14.99"
    with translation.override("de"):
        assert format_money(Money(Decimal("1234.5"), "EUR")) == "1.234,50\xa0€"


def test_the_remembered_formatting_follows_the_language():
    # The same amount asked for in turn in each language: the cache never hands one language's text to another.
    price = Money(Decimal("1234.5"), "USD")
    with translation.override("es"):
        assert format_money(price) == "1.234,50\xa0US$"
    with translation.override("en"):
        assert format_money(price) == "$1,234.50"
    with translation.override("es"):
        assert format_money(price) == "1.234,50\xa0US$"


def test_formats_currencies_without_cents():
    assert format_money(Money(Decimal("1499.4"), "JPY"), language="ja") == "￥1,499"


def test_template_filter():
    rendered = Template("{% load money %}[{{ price|money }}][{{ missing|money }}][{{ number|money }}]").render(
        Context({"price": Money(Decimal("12.99"), "USD"), "missing": None, "number": Decimal("3")})
    )
    # A bare number has no currency: it shows as nothing rather than as a guessed "$3.00".
    assert rendered == "[$12.99][][]"
