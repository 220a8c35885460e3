"""The shopping cart, kept in the session so a visitor can fill it before signing up.

`request.session["cart"]` is a dict keyed by domain name (the layout's cart count is its length); each value is
JSON-safe: `{"duration": int, "currency": str, "register": "12.99", "renew": "14.99",
"is_free_first_year": bool, "summary": str, "min_term": int}`. Prices are kept as strings and read as Decimal.

Minimum terms: MetaSearch has no minimum-term field; the provider's price list does (a TLD has no register
price below its minimum), so a line's minimum comes from `domains.terms.register_min_term`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib.sessions.backends.base import SessionBase

from domains.terms import register_min_term
from storefront.gateway import MetaSearchResult

SESSION_KEY = "cart"
MIN_DURATION = 1
MAX_DURATION = 10
# Bounds the provider calls a checkout makes (one price check and one registration per line).
MAX_LINES = 20


@dataclass(frozen=True)
class CartLine:
    domain_name: str
    duration: int
    currency: str
    register: Decimal
    renew: Decimal
    is_free_first_year: bool
    summary: str
    min_term: int

    @property
    def tld(self) -> str:
        return self.domain_name.rpartition(".")[2]

    @property
    def first_year_price(self) -> Decimal:
        return Decimal("0.00") if self.is_free_first_year else self.register

    @property
    def total(self) -> Decimal:
        """First year at the register price (free when the TLD offers it), later years at the renew price."""
        return self.first_year_price + self.renew * (self.duration - 1)

    @property
    def durations(self) -> range:
        return range(MIN_DURATION, MAX_DURATION + 1)

    @property
    def first_year_display(self) -> str:
        return "Free" if self.is_free_first_year else format_money(self.register, self.currency)

    @property
    def renew_display(self) -> str:
        return format_money(self.renew, self.currency)

    @property
    def total_display(self) -> str:
        return "Free" if not self.total else format_money(self.total, self.currency)

    def as_session(self) -> dict[str, Any]:
        return {
            "duration": self.duration,
            "currency": self.currency,
            "register": str(self.register),
            "renew": str(self.renew),
            "is_free_first_year": self.is_free_first_year,
            "summary": self.summary,
            "min_term": self.min_term,
        }

    def same_price(self, other: CartLine) -> bool:
        return (self.currency, self.register, self.renew, self.is_free_first_year) == (
            other.currency,
            other.register,
            other.renew,
            other.is_free_first_year,
        )


def line_from_result(result: MetaSearchResult, *, duration: int = 0, min_term: int = 1) -> CartLine:
    """A cart line for an available MetaSearch row (the caller has checked it is available and priced)."""
    assert result.pricing is not None
    pricing = result.pricing
    min_term = max(min_term, register_min_term(result.tld or _tld(result)))
    return CartLine(
        domain_name=result.domain_name.lower(),
        duration=min(max(duration, min_term, MIN_DURATION), MAX_DURATION),
        currency=pricing.currency,
        register=pricing.register.quantize(Decimal("0.01")),
        renew=pricing.renew.quantize(Decimal("0.01")),
        is_free_first_year=pricing.is_free_first_year,
        summary=pricing.summary,
        min_term=min(min_term, MAX_DURATION),
    )


_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}


def format_money(amount: Decimal, currency: str) -> str:
    amount = amount.quantize(Decimal("0.01"))
    symbol = _SYMBOLS.get(currency.upper())
    return f"{symbol}{amount:,}" if symbol else f"{amount:,} {currency}".strip()


def format_totals(totals: dict[str, Decimal]) -> list[str]:
    return [format_money(amount, currency) for currency, amount in totals.items()]


class Cart:
    """The session cart. Reads tolerate anything odd in the session (a line that does not parse is dropped)."""

    def __init__(self, session: SessionBase) -> None:
        self.session = session

    def _raw(self) -> dict[str, Any]:
        raw = self.session.get(SESSION_KEY)
        return raw if isinstance(raw, dict) else {}

    def _save(self, raw: dict[str, Any]) -> None:
        self.session[SESSION_KEY] = raw
        self.session.modified = True

    def __len__(self) -> int:
        return len(self._raw())

    def __contains__(self, domain_name: str) -> bool:
        return domain_name in self._raw()

    def __iter__(self) -> Iterator[CartLine]:
        return iter(self.lines())

    def lines(self) -> list[CartLine]:
        lines = []
        for name, data in self._raw().items():
            line = _parse_line(name, data)
            if line is not None:
                lines.append(line)
        return lines

    def get(self, domain_name: str) -> CartLine | None:
        data = self._raw().get(domain_name)
        return _parse_line(domain_name, data) if data is not None else None

    def put(self, line: CartLine) -> None:
        raw = self._raw()
        raw[line.domain_name] = line.as_session()
        self._save(raw)

    def remove(self, domain_name: str) -> bool:
        raw = self._raw()
        if domain_name not in raw:
            return False
        del raw[domain_name]
        self._save(raw)
        return True

    def totals(self) -> dict[str, Decimal]:
        """The cart total per currency (one entry in practice: the partner's catalogue has one currency)."""
        return lines_total(self.lines())


def lines_total(lines: list[CartLine]) -> dict[str, Decimal]:
    totals: dict[str, Decimal] = {}
    for line in lines:
        totals[line.currency] = totals.get(line.currency, Decimal("0.00")) + line.total
    return totals


def line_from_session(name: Any, data: Any) -> CartLine | None:
    """A line as `CartLine.as_session` stored it (in the session, or in a task's arguments); None if unreadable."""
    return _parse_line(name, data)


def _parse_line(name: Any, data: Any) -> CartLine | None:
    if not isinstance(name, str) or not isinstance(data, dict):
        return None
    try:
        min_term = int(data.get("min_term") or 1)
        duration = int(data.get("duration") or min_term)
        return CartLine(
            domain_name=name,
            duration=min(max(duration, MIN_DURATION), MAX_DURATION),
            currency=str(data.get("currency") or ""),
            register=Decimal(str(data["register"])),
            renew=Decimal(str(data["renew"])),
            is_free_first_year=bool(data.get("is_free_first_year")),
            summary=str(data.get("summary") or ""),
            min_term=min(max(min_term, MIN_DURATION), MAX_DURATION),
        )
    except (KeyError, TypeError, ValueError, InvalidOperation):
        return None


def _tld(result: MetaSearchResult) -> str:
    return result.domain_name.rpartition(".")[2].lower()
