"""The one money type and the one way to show money to a customer, on every page and in every email."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, ROUND_UP, Decimal
from functools import cache, lru_cache

from babel.numbers import format_currency, get_currency_precision
from django.utils import translation


@cache
def _exponent(currency: str) -> Decimal:
    # Minor units differ by currency (USD 2, JPY 0); Babel knows them from the CLDR.
    return Decimal(1).scaleb(-get_currency_precision(currency))


@dataclass(frozen=True)
class Money:
    """An amount in one ISO 4217 currency. Arithmetic mixes no currencies: that is always a bug, never a sum."""

    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        if not isinstance(self.amount, Decimal):
            # Floats would bring binary rounding into prices; ints and strings convert exactly.
            if isinstance(self.amount, float):
                raise TypeError("Money takes a Decimal, int or str amount, never a float.")
            object.__setattr__(self, "amount", Decimal(self.amount))
        if len(self.currency) != 3 or not self.currency.isalpha():
            raise ValueError(f"Not an ISO 4217 currency code: {self.currency!r}")
        object.__setattr__(self, "currency", self.currency.upper())

    @classmethod
    def zero(cls, currency: str) -> Money:
        return cls(Decimal(0), currency)

    def _same(self, other: object) -> Money:
        if not isinstance(other, Money):
            raise TypeError(f"Cannot combine Money with {type(other).__name__}.")
        if other.currency != self.currency:
            raise ValueError(f"Cannot combine {self.currency} with {other.currency}.")
        return other

    def __add__(self, other: Money) -> Money:
        return Money(self.amount + self._same(other).amount, self.currency)

    def __sub__(self, other: Money) -> Money:
        return Money(self.amount - self._same(other).amount, self.currency)

    def __mul__(self, factor: Decimal | int) -> Money:
        if not isinstance(factor, Decimal | int) or isinstance(factor, bool):
            raise TypeError("Money multiplies by a Decimal or an int only.")
        return Money(self.amount * factor, self.currency)

    __rmul__ = __mul__

    def __neg__(self) -> Money:
        return Money(-self.amount, self.currency)

    def __lt__(self, other: Money) -> bool:
        return self.amount < self._same(other).amount

    def __le__(self, other: Money) -> bool:
        return self.amount <= self._same(other).amount

    def __gt__(self, other: Money) -> bool:
        return self.amount > self._same(other).amount

    def __ge__(self, other: Money) -> bool:
        return self.amount >= self._same(other).amount

    @property
    def is_zero(self) -> bool:
        return self.amount == 0

    def rounded(self) -> Money:
        """To the currency's minor unit, half up (what a customer is charged)."""
        return Money(self.amount.quantize(_exponent(self.currency), rounding=ROUND_HALF_UP), self.currency)

    def rounded_up(self) -> Money:
        """To the currency's minor unit, upwards: a converted cost must never come out lower than it is."""
        return Money(self.amount.quantize(_exponent(self.currency), rounding=ROUND_UP), self.currency)

    def __str__(self) -> str:
        return format_money(self)


def minor_digits(code: str) -> int:
    """The decimals an amount in this currency is shown and charged with (CLDR, via Babel: EUR 2, JPY and ISK 0)."""
    return int(get_currency_precision(code.upper()))


def ending_problem(*, code: str, ending: Decimal) -> str | None:
    """Why `ending` cannot end prices in `code`, or None."""
    if not 0 <= ending < 1:
        return "A price ending is a fraction of one unit, from 0 up to (not including) 1, e.g. 0.99."
    digits = minor_digits(code)
    if ending != ending.quantize(Decimal(1).scaleb(-digits)):
        if digits == 0:
            return f"{code} has no decimals: prices are whole units, so the ending must be 0."
        return f"{code} has {digits} decimals: the ending cannot have more."
    return None


def totals_by_currency(amounts: Iterable[Money]) -> list[Money]:
    """The sum of the amounts in each currency they are in, in the order the currencies first appear."""
    totals: dict[str, Money] = {}
    for amount in amounts:
        totals[amount.currency] = totals.get(amount.currency, Money.zero(amount.currency)) + amount
    return list(totals.values())


def _babel_locale(language: str | None) -> str:
    return translation.to_locale(language or translation.get_language() or "en-us")


def format_money(money: Money, *, language: str | None = None) -> str:
    """`$14.99` in en-us, `14,99 €` in de: the active Django language decides unless `language` is given."""
    return _formatted(money.rounded().amount, money.currency, _babel_locale(language))


@lru_cache(maxsize=4096)
def _formatted(amount: Decimal, currency: str, locale: str) -> str:
    # Babel's formatting costs about a tenth of a millisecond, and a search page shows some fifty prices drawn
    # from a few dozen amounts: remembered, they cost nothing.
    return format_currency(amount, currency, locale=locale)
