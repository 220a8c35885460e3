"""The shopping cart, kept in the session so a visitor can fill it before signing up.

`request.session["cart"]` is a dict keyed by domain name; each value is JSON-safe: `{"duration": int, "currency":
str, "price": "12.99", "renew": "14.99" | None, "terms": [1, 2, 3], "min_term": int, "text": str}`. Amounts are kept
as strings and read as Decimal. An entry that does not read as a line is ignored everywhere, the layout's cart count
(`len(Cart)`, from domains/context_processors.py) included.

Every price is our retail price (`pricing.quotes`), quoted when the line was added or its term changed: `price`
is the total for the line's term, as the customer was shown it; checkout honours it unless it would now sell
below cost (`pricing.quotes.requote`). `terms` are the terms the price book sells, so the cart offers only those;
the shortest is the TLD's minimum term (the provider prices nothing below it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase

from pricing.currencies import active_currency
from pricing.models import Operation
from pricing.money import Money, totals_by_currency
from pricing.quotes import PriceBook, Quote, price_book, privacy_quote
from storefront.site.capabilities import PRIVACY, capability_enabled

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
    price: Decimal  # retail total for `duration` years, as quoted to the customer
    renew: Decimal | None  # retail price of a later one-year renewal, for the customer's information
    terms: tuple[int, ...]  # the registration terms for sale, shortest first
    min_term: int
    text: str = ""  # the storefront's own price text for the TLD
    # WHOIS privacy for the same term, when the customer added it: its retail total as quoted (None: not added).
    privacy: Decimal | None = None
    # A promotion code's discount on `price` (domains/cart/promotion.py), before tax; None without one.
    discount: Decimal | None = None
    promotion: str = ""  # the code that gave it

    @property
    def tld(self) -> str:
        return self.domain_name.rpartition(".")[2]

    @property
    def total(self) -> Money:
        return Money(self.price, self.currency)

    @property
    def privacy_money(self) -> Money | None:
        return Money(self.privacy, self.currency) if self.privacy is not None else None

    @property
    def discount_money(self) -> Money | None:
        return Money(self.discount, self.currency) if self.discount else None

    @property
    def charged(self) -> Money:
        """The domain's price after the promotion's discount (what its payment line charges)."""
        return Money(self.price - (self.discount or 0), self.currency)

    @property
    def due(self) -> Money:
        """What the line costs with what was added to it (privacy), after a promotion's discount."""
        return Money(self.price - (self.discount or 0) + (self.privacy or 0), self.currency)

    @property
    def renew_money(self) -> Money | None:
        return Money(self.renew, self.currency) if self.renew is not None else None

    @property
    def durations(self) -> list[int]:
        return [years for years in self.terms if years >= self.min_term] or [self.duration]

    def as_session(self) -> dict[str, Any]:
        return {
            "duration": self.duration,
            "currency": self.currency,
            "price": str(self.price),
            "renew": None if self.renew is None else str(self.renew),
            "terms": list(self.terms),
            "min_term": self.min_term,
            "text": self.text,
            **({"privacy": str(self.privacy)} if self.privacy is not None else {}),
            **({"discount": str(self.discount), "promotion": self.promotion} if self.discount else {}),
        }


def line_quote(*, book: PriceBook, domain_name: str, duration: int = 0, min_term: int = 1) -> CartLine | None:
    """A cart line for this domain priced from the book, for `duration` years (raised to the shortest term sold
    from there); None when the TLD or that term is not for sale here."""
    tld = domain_name.rpartition(".")[2].lower()
    terms = tuple(t for t in book.terms(tld=tld, operation=Operation.REGISTER) if MIN_DURATION <= t <= MAX_DURATION)
    if not terms:
        return None
    min_term = max(min_term, terms[0])
    years = next((t for t in terms if t >= max(duration, min_term)), None)
    if years is None:
        return None
    quote = book.retail_price(tld=tld, operation=Operation.REGISTER, years=years)
    if quote is None:
        return None
    renew = book.retail_price(tld=tld, operation=Operation.RENEW, years=1)
    return CartLine(
        domain_name=domain_name.lower(),
        duration=years,
        currency=quote.retail.currency,
        price=quote.retail.amount,
        renew=renew.retail.amount if renew else None,
        terms=terms,
        min_term=min(min_term, MAX_DURATION),
        text=book.price_text(tld=tld) or "",
    )


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

    # Counted and looked up as lines, never as session entries: the header's count, the cart page and "already in
    # your cart" must agree when an entry does not read (as old as the retail prices, or tampered with).
    def __len__(self) -> int:
        return len(self.lines())

    def __contains__(self, domain_name: str) -> bool:
        return self.get(domain_name) is not None

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

    def totals(self) -> list[Money]:
        """The cart total per currency (one in practice: `in_shown_currency` keeps the cart in one)."""
        return lines_total(self.lines())

    def in_shown_currency(self) -> None:
        """Lines quoted in another currency than prices are shown in now (added before signing in, or before the
        customer changed theirs) priced again in it: a cart, and its payment, hold one currency."""
        lines = self.lines()
        if all(line.currency == active_currency() for line in lines):
            return
        book = price_book(tlds={line.tld for line in lines})
        for line in lines:
            if line.currency == book.currency():
                continue
            again = line_quote(book=book, domain_name=line.domain_name, duration=line.duration, min_term=line.min_term)
            if again is not None and line.privacy is not None:
                again = line_with_privacy(again, privacy=True) or again
            if again is None:
                self.remove(line.domain_name)  # no longer for sale; the checkout would have refused it too
            else:
                self.put(again)


def lines_total(lines: list[CartLine]) -> list[Money]:
    return totals_by_currency(line.due for line in lines)


def line_privacy_quote(line: CartLine) -> Quote | None:
    """WHOIS privacy for this line's domain and term at today's retail price; None where it is not sold (the
    provider does not offer it through this store, or it has no price)."""
    if not capability_enabled(PRIVACY) or settings.PAYMENTS_DISABLED:
        # Bought only with an online payment, which delivers it after the registration (billed offline: not here).
        return None
    quote = privacy_quote(tld=line.tld, years=line.duration)
    return quote if quote is not None and quote.retail.currency == line.currency else None


def line_with_privacy(line: CartLine, *, privacy: bool) -> CartLine | None:
    """The line with WHOIS privacy for its term at today's retail price, or without it; None when privacy was asked
    for and is not sold."""
    if not privacy:
        return replace(line, privacy=None)
    quote = line_privacy_quote(line)
    return None if quote is None else replace(line, privacy=quote.retail.amount)


def privacy_offers(lines: list[CartLine]) -> dict[str, Quote | None]:
    """Each line's WHOIS privacy at today's price for its term (None where it is not sold), for the review."""
    return {line.domain_name: line_privacy_quote(line) for line in lines}


def line_from_session(name: Any, data: Any) -> CartLine | None:
    """A line as `CartLine.as_session` stored it (in the session, or in a task's arguments); None if unreadable."""
    return _parse_line(name, data)


def _parse_line(name: Any, data: Any) -> CartLine | None:
    if not isinstance(name, str) or not isinstance(data, dict):
        return None
    try:
        min_term = int(data.get("min_term") or 1)
        duration = int(data.get("duration") or min_term)
        renew = data.get("renew")
        privacy = data.get("privacy")
        discount = data.get("discount")
        line = CartLine(
            domain_name=name,
            duration=min(max(duration, MIN_DURATION), MAX_DURATION),
            currency=str(data["currency"]),
            # A line kept from before retail prices (no "price") is dropped: its figure was the provider's.
            price=Decimal(str(data["price"])),
            renew=None if renew is None else Decimal(str(renew)),
            terms=tuple(int(t) for t in data.get("terms") or (duration,)),
            min_term=min(max(min_term, MIN_DURATION), MAX_DURATION),
            text=str(data.get("text") or ""),
            privacy=None if privacy is None else Decimal(str(privacy)),
            discount=None if discount is None else Decimal(str(discount)),
            promotion=str(data.get("promotion") or ""),
        )
        line.total  # noqa: B018 - validates the currency code
    except (KeyError, TypeError, ValueError, InvalidOperation):
        return None
    return line
