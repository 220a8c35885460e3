"""The currencies the store sells in: which are offered, their rates and rounding, and the one a price is shown in.

The store's own currency (STORE_CURRENCY) is always offered; others are `Currency` rows staff enable with a rate
(units per one unit of the store's currency), set by hand or by the feed (pricing.rate_feed). A price is worked out
in the store's currency (pricing.quotes), then converted at the rate and rounded up to the currency's price ending
(.99, or whole units for a currency without decimals). Which currency a price is in comes from the active currency:
the signed-in customer's (a middleware activates it for each request, `customer_language` for the worker), else
the store's.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

from babel.numbers import get_territory_currencies
from django.conf import settings

from pricing.models import Currency
from pricing.money import Money, minor_digits


@dataclass(frozen=True)
class CurrencyRule:
    """One offered currency other than the store's: its rate against the store's currency and its price ending."""

    code: str
    rate: Decimal  # units of `code` per one unit of the store's currency
    ending: Decimal  # prices end in this (0.99); 0: whole units

    def convert(self, money: Money) -> Money:
        """An amount in the store's currency in this one, rounded up to the minor unit (a cost is never lowered)."""
        return Money(money.amount * self.rate, self.code).rounded_up()

    def price(self, money: Money) -> Money:
        """A retail price in the store's currency as the customer pays it in this one: converted, then rounded up
        to the price ending (never below the converted amount; free stays free)."""
        return price_rounded(Money(money.amount * self.rate, self.code), ending=self.ending)


def price_rounded(money: Money, *, ending: Decimal) -> Money:
    """Up to the next amount ending in `ending` (13.20 -> 13.99, 14.00 -> 14.99; 1234.5 JPY -> 1235 with 0)."""
    if money.amount <= 0:
        return money
    whole = (money.amount - ending).to_integral_value(rounding=ROUND_CEILING)
    return Money(max(whole, Decimal(0)) + ending, money.currency).rounded()


def suggested_ending(code: str) -> Decimal:
    """.99 where the currency has decimals (.990 with three), whole units where it has none."""
    return Decimal("0.99") if minor_digits(code) else Decimal(0)


def currency_table() -> dict[str, CurrencyRule]:
    """Every enabled currency with a rate (the store's own is not among them), read now: for what is charged."""
    rows = Currency.objects.filter(enabled=True, rate__isnull=False).exclude(code=settings.STORE_CURRENCY)
    return {
        code: CurrencyRule(code=code, rate=rate, ending=ending)
        for code, rate, ending in rows.values_list("code", "rate", "price_ending")
        if rate is not None
    }


# Pages that only show prices read the table from this process's copy, like the display price book (and as old at
# most): a cached search page must not gain a query.
TABLE_SECONDS = 10.0
_table: tuple[float, dict[str, CurrencyRule]] | None = None
_table_lock = threading.Lock()


def cached_currency_table() -> dict[str, CurrencyRule]:
    global _table
    with _table_lock:
        now = time.monotonic()
        if _table is None or now - _table[0] > TABLE_SECONDS:
            _table = (now, currency_table())
        return _table[1]


def currency_table_forget() -> None:
    global _table
    with _table_lock:
        _table = None


def offered_currencies() -> list[str]:
    """The currencies a customer may choose: the store's, then the enabled ones with a rate."""
    return [settings.STORE_CURRENCY, *sorted(cached_currency_table())]


def currency_for_country(country: str) -> str:
    """The currency a customer in `country` (ISO 3166 alpha-2) is offered first: the country's legal tender when
    the store sells in it, else the store's."""
    offered = set(offered_currencies())
    tender = get_territory_currencies(country.upper(), tender=True)  # [] for a territory it does not know
    return next((code for code in tender if code in offered), settings.STORE_CURRENCY)


def rate_for(code: str) -> Decimal | None:
    """Units of `code` per unit of the store's currency now (1 for the store's own); None when not offered."""
    if code.upper() == settings.STORE_CURRENCY:
        return Decimal(1)
    rule = currency_table().get(code.upper())
    return rule.rate if rule else None


def to_store_currency(money: Money, *, rate: Decimal) -> Money:
    """An amount paid in another currency at `rate` (its units per store unit) back in the store's currency."""
    if money.currency == settings.STORE_CURRENCY:
        return money
    return Money(money.amount / rate, settings.STORE_CURRENCY).rounded()


_active: ContextVar[str | None] = ContextVar("active_currency", default=None)


def active_currency() -> str:
    """The currency prices are shown and charged in here: the customer's, else the store's."""
    return _active.get() or settings.STORE_CURRENCY


def currency_activate(code: str | None) -> Token[str | None]:
    return _active.set(code.upper() if code else None)


def currency_deactivate(token: Token[str | None]) -> None:
    _active.reset(token)


@contextmanager
def currency_override(code: str | None) -> Iterator[None]:
    """Prices inside are in `code` (the store's currency when None or not offered)."""
    token = currency_activate(code)
    try:
        yield
    finally:
        currency_deactivate(token)
