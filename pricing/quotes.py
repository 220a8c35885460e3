"""The one place that prices (TLD, operation, term) for a customer, and the price text built from it.

Every price is a total for the term, in the store's currency: the provider's cost (converted at the rate staff
set), then the most specific rule, then rounding. A price is never below its cost: a rule that has become
below cost (the provider raised its price) is set aside for the default markup, and staff are told.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

from django.conf import settings
from django.utils.translation import get_language, gettext

from pricing.currencies import CurrencyRule, active_currency, cached_currency_table, currency_table
from pricing.models import CostPrice, ExchangeRate, Operation, PriceRule, PriceSync, RuleKind, Tld
from pricing.money import Money, format_money

logger = logging.getLogger(__name__)

PROVIDER_CURRENCY = "USD"  # the provider quotes no other currency
_HUNDRED = Decimal(100)
_CENT = Decimal("0.01")


@dataclass(frozen=True)
class Rule:
    kind: str  # a RuleKind value
    percent: Decimal
    amount: Decimal  # per year, in the store's currency
    label: str  # what staff read in the admin and in a quote

    @classmethod
    def default(cls) -> Rule:
        percent, fixed = settings.PRICE_MARKUP_PERCENT, settings.PRICE_MARKUP_FIXED
        return cls(kind="default", percent=percent, amount=fixed, label=f"default: cost + {percent}% + {fixed}/yr")

    @classmethod
    def from_model(cls, rule: PriceRule) -> Rule:
        return cls(kind=rule.kind, percent=rule.percent, amount=rule.amount, label=str(rule))


@dataclass(frozen=True)
class Quote:
    """A retail price with what it costs us: `retail` and `cost` are totals for the term, in the customer's
    currency (the active one, pricing.currencies), converted from the store's currency at `rate`."""

    tld: str
    operation: Operation
    years: int
    retail: Money
    cost: Money
    provider_cost: Money  # the provider's own figure, in its currency (USD)
    rule: str  # the rule that set the price, in words
    rate: Decimal = Decimal(1)  # units of the quote's currency per unit of the store's currency

    @property
    def margin(self) -> Money:
        return self.retail - self.cost


@dataclass(frozen=True)
class Requote:
    """Whether a price the customer was shown still stands at checkout or renewal."""

    stands: bool
    price: Money | None  # what to charge now: the quoted price when it stands, else today's; None: not for sale
    quote: Quote | None  # today's quote; None when the domain can no longer be sold
    reason: str  # for the customer, when the quoted price does not stand


def round_99(money: Money) -> Money:
    """Up to the next .99 (13.20 -> 13.99, 14.00 -> 14.99); free stays free. Currencies without cents: up to a unit."""
    if money.amount <= 0:
        return money
    if money.rounded().amount.as_tuple().exponent != -2:
        return money.rounded_up()
    whole = (money.amount + _CENT).to_integral_value(rounding=ROUND_CEILING)
    return Money(whole - _CENT, money.currency)


def _apply(rule: Rule, *, cost: Money, years: int) -> Money:
    if rule.kind == RuleKind.FIXED_PRICE:
        return Money(rule.amount * years, cost.currency).rounded()
    percent = rule.percent if rule.kind in (RuleKind.PERCENT, "default") else Decimal(0)
    fixed = rule.amount if rule.kind in (RuleKind.FIXED_AMOUNT, "default") else Decimal(0)
    price = Money(cost.amount * (1 + percent / _HUNDRED) + fixed * years, cost.currency)
    return round_99(price) if settings.PRICE_ROUNDING == "99" else price.rounded()


class PriceBook:
    """A snapshot of costs, rules and the rate: load once per request, price many rows without more queries."""

    def __init__(
        self,
        *,
        costs: dict[str, dict[tuple[str, int], Money]],
        rules: dict[tuple[str, str], Rule],
        rate: Decimal | None,
        store_currency: str,
        currencies: dict[str, CurrencyRule] | None = None,
        restrictions: dict[str, str] | None = None,
        without_privacy: frozenset[str] = frozenset(),
    ) -> None:
        self.costs = costs  # sold TLDs only, current terms only, in the provider's currency
        # The registry requirements the provider's catalogue names, by TLD (only those that have any).
        self.restrictions = restrictions or {}
        # TLDs where the provider's catalogue says WHOIS privacy is not offered.
        self.without_privacy = without_privacy
        self.rules = rules
        self.rate = rate
        self.store_currency = store_currency
        self.currencies = currencies or {}  # the other currencies offered, with their rates (pricing.currencies)
        # Price lines already written, per TLD and language: a search prices the same few TLDs on every row, and
        # the book is a snapshot (a per-process copy serves many requests), so each line is worded once.
        self._price_texts: dict[tuple[str, str | None, str], str | None] = {}
        # Quotes already worked out, for the same reason: a page asks for the same few (TLD, operation, term).
        self._quotes: dict[tuple[str, str, int, str], Quote | None] = {}
        self._display_facts: dict[tuple[str, str | None, str], tuple[str, bool]] = {}

    def currency(self) -> str:
        """The currency this book quotes in now: the active one when offered, else the store's."""
        code = active_currency()
        return code if code in self.currencies else self.store_currency

    def convert(self, cost: Money) -> Money | None:
        """The cost in the store's currency (rounded up, never down); None without a rate."""
        if cost.currency == self.store_currency:
            return cost
        if self.rate is None:
            return None
        return Money(cost.amount * self.rate, self.store_currency).rounded_up()

    def rule_key(self, *, tld: str, operation: str) -> tuple[str, str] | None:
        for key in ((tld, operation), (tld, ""), ("", operation), ("", "")):
            if key in self.rules:
                return key
        return None

    def retail_price(self, *, tld: str, operation: Operation | str, years: int) -> Quote | None:
        key = (tld, str(operation), years, self.currency())
        if key not in self._quotes:
            self._quotes[key] = self._retail_price(tld=tld, operation=Operation(operation), years=years)
        return self._quotes[key]

    def _retail_price(self, *, tld: str, operation: Operation, years: int) -> Quote | None:
        tld = _normal_tld(tld)
        provider_cost = self.costs.get(tld, {}).get((operation.value, years))
        if provider_cost is None:
            return None
        key = self.rule_key(tld=tld, operation=operation.value)
        return self._priced(tld=tld, operation=operation, years=years, provider_cost=provider_cost, key=key)

    def privacy_price(self, *, tld: str, years: int, annual_cost: Money) -> Quote | None:
        """WHOIS privacy of a domain under `tld` for `years`, from the provider's one annual cost. Only rules that
        name privacy price it (a rule for every operation is a domain's price, not privacy's); else the default
        markup."""
        tld = _normal_tld(tld)
        key = next(
            (k for k in ((tld, Operation.PRIVACY.value), ("", Operation.PRIVACY.value)) if k in self.rules), None
        )
        provider_cost = Money(annual_cost.amount * years, annual_cost.currency)
        return self._priced(tld=tld, operation=Operation.PRIVACY, years=years, provider_cost=provider_cost, key=key)

    def _priced(
        self, *, tld: str, operation: Operation, years: int, provider_cost: Money, key: tuple[str, str] | None
    ) -> Quote | None:
        cost = self.convert(provider_cost)
        if cost is None:
            return None
        rule = self.rules[key] if key else Rule.default()
        retail = _apply(rule, cost=cost, years=years)
        if retail < cost:
            logger.warning(
                "price rule below cost, default markup used",
                extra={"tld": tld, "operation": operation.value, "years": years, "rule": rule.label},
            )
            fallback = Rule.default()
            retail = _apply(fallback, cost=cost, years=years)
            rule = Rule(
                fallback.kind, fallback.percent, fallback.amount, f"{fallback.label} ({rule.label} is below cost)"
            )
        target = self.currencies.get(self.currency())
        return Quote(
            tld=tld,
            operation=operation,
            years=years,
            # Converted from the store's currency, then rounded up to the currency's price ending: never below cost.
            retail=target.price(retail) if target else retail,
            cost=target.convert(cost) if target else cost,
            provider_cost=provider_cost,
            rule=rule.label,
            rate=target.rate if target else Decimal(1),
        )

    def terms(self, *, tld: str, operation: Operation | str) -> list[int]:
        """The terms (years) sold for this TLD and operation, shortest first; empty when not sold."""
        operation = Operation(operation).value
        return sorted(years for op, years in self.costs.get(_normal_tld(tld), {}) if op == operation)

    def display_facts(self, *, tld: str) -> tuple[str, bool]:
        """What a search row shows of a TLD: its price line ("" when not for sale) and whether the first year is
        free, worded once per TLD and language in this book."""
        key = (_normal_tld(tld), get_language(), self.currency())
        facts = self._display_facts.get(key)
        if facts is None:
            first_year = self.retail_price(tld=key[0], operation=Operation.REGISTER, years=1)
            facts = self._display_facts[key] = (
                self.price_text(tld=key[0]) or "",
                bool(first_year and first_year.retail.is_zero),
            )
        return facts

    def restriction(self, *, tld: str) -> str:
        """What the TLD's registry requires of the registrant, in the provider's words; "" when nothing is known."""
        return self.restrictions.get(_normal_tld(tld), "")

    def price_text(self, *, tld: str) -> str | None:
        """The storefront's own price line from retail prices, e.g. "$12.99 first year, then $14.99/yr"."""
        key = (_normal_tld(tld), get_language(), self.currency())
        if key not in self._price_texts:
            self._price_texts[key] = self._price_text(tld=key[0])
        return self._price_texts[key]

    def _price_text(self, *, tld: str) -> str | None:
        register_terms = self.terms(tld=tld, operation=Operation.REGISTER)
        if not register_terms:
            return None
        min_term = register_terms[0]
        first = self.retail_price(tld=tld, operation=Operation.REGISTER, years=min_term)
        if first is None:
            return None
        renew = self.retail_price(tld=tld, operation=Operation.RENEW, years=1)
        if min_term == 1:
            if first.retail.is_zero:
                opening = gettext("Free for the first year")
            else:
                opening = gettext("%(price)s first year") % {"price": format_money(first.retail)}
            if renew is None:
                return opening
            if renew.retail == first.retail:
                return gettext("%(price)s/yr") % {"price": format_money(renew.retail)}
        else:
            lead = gettext("Free") if first.retail.is_zero else format_money(first.retail)
            opening = gettext("%(years)d-year minimum: %(price)s for the first %(years)d years") % {
                "years": min_term,
                "price": lead,
            }
            if renew is None:
                return opening
        return gettext("%(opening)s, then %(price)s/yr") % {"opening": opening, "price": format_money(renew.retail)}

    def below_cost(self, *, key: tuple[str, str]) -> str | None:
        """The first priced term on which the rule at `key` governs and would sell below cost, in words."""
        rule = self.rules[key]
        for tld, terms in sorted(self.costs.items()):
            for (operation, years), provider_cost in sorted(terms.items()):
                if self.rule_key(tld=tld, operation=operation) != key:
                    continue
                cost = self.convert(provider_cost)
                if cost is None:
                    continue
                retail = _apply(rule, cost=cost, years=years)
                if retail < cost:
                    term = f"{years} year" + ("s" if years != 1 else "")
                    return (
                        f"This rule would sell .{tld} {operation} for {term} at {format_money(retail)}, "
                        f"below its cost of {format_money(cost)}."
                    )
        return None


def _normal_tld(tld: str) -> str:
    return tld.strip().lower().lstrip(".")


def store_rate() -> Decimal | None:
    """Store-currency units per provider-currency unit; None when staff have not set one (and it is needed)."""
    if settings.STORE_CURRENCY == PROVIDER_CURRENCY:
        return Decimal(1)
    row = ExchangeRate.objects.filter(
        provider_currency=PROVIDER_CURRENCY, store_currency=settings.STORE_CURRENCY
    ).first()
    return row.rate if row else None


# Inside `one_price_book()`, the books already read are reused: a page that prices the same TLD from several places
# (the order page: the renewal price, its terms, its minimum term) reads the table once.
_books_in_use: ContextVar[dict[tuple[str, ...] | None, PriceBook] | None] = ContextVar("price_books", default=None)


@contextmanager
def one_price_book() -> Iterator[None]:
    """Within the block, `price_book(tlds=...)` reads each set of TLDs once (a snapshot for one page)."""
    token = _books_in_use.set({})
    try:
        yield
    finally:
        _books_in_use.reset(token)


def price_book(*, tlds: Iterable[str] | None = None) -> PriceBook:
    """The prices of these TLDs (all when None), read from the database in three queries."""
    books = _books_in_use.get()
    if books is None:
        return _price_book(tlds=tlds)
    key = None if tlds is None else tuple(sorted({_normal_tld(t) for t in tlds}))
    if key not in books:
        books[key] = _price_book(tlds=tlds)
    return books[key]


def _price_book(*, tlds: Iterable[str] | None = None) -> PriceBook:
    rows = CostPrice.objects.filter(current=True, tld__sold=True)
    if tlds is not None:
        rows = rows.filter(tld__name__in=[_normal_tld(t) for t in tlds])
    costs: dict[str, dict[tuple[str, int], Money]] = {}
    # Plain tuples, not model instances: the whole book is thousands of rows and is read on many requests.
    restrictions: dict[str, str] = {}
    without_privacy: set[str] = set()
    # What the catalogue says of each TLD rides along on its cost rows: no query of its own on a search page.
    for tld, operation, years, amount, currency, restriction, privacy in rows.values_list(
        "tld__name", "operation", "years", "amount", "currency", "tld__restrictions", "tld__privacy_available"
    ):
        costs.setdefault(tld, {})[(operation, years)] = Money(amount, currency)
        if restriction:
            restrictions[tld] = restriction
        if privacy is False:
            without_privacy.add(tld)
    rules = {(r.tld, r.operation): Rule.from_model(r) for r in PriceRule.objects.all()}
    return PriceBook(
        costs=costs,
        rules=rules,
        rate=store_rate(),
        store_currency=settings.STORE_CURRENCY,
        # Read now, for what is charged; a store-currency page needs no rates (and reads none).
        currencies=currency_table() if active_currency() != settings.STORE_CURRENCY else {},
        restrictions=restrictions,
        without_privacy=frozenset(without_privacy),
    )


# Pages that only show prices (search results, many rows) read the whole book from this process's copy, at most
# this many seconds old; what is charged is always priced afresh (`retail_price`, `requote`). A rule staff save,
# or a sync, shows on search pages within that time.
DISPLAY_BOOK_SECONDS = 10.0
_display_book: tuple[float, PriceBook] | None = None
_display_lock = threading.Lock()


def display_price_book() -> PriceBook:
    """Every sold TLD's prices for display, loaded at most once per DISPLAY_BOOK_SECONDS per process."""
    global _display_book
    with _display_lock:
        now = time.monotonic()
        if _display_book is None or now - _display_book[0] > DISPLAY_BOOK_SECONDS:
            book = price_book()
            # Every offered currency, from the process's copy of the table: no query on a cached search page.
            book.currencies = cached_currency_table()
            _display_book = (now, book)
        return _display_book[1]


def display_price_book_forget() -> None:
    global _display_book
    with _display_lock:
        _display_book = None


def retail_price(*, tld: str, operation: Operation | str, years: int) -> Quote | None:
    """The retail price of one operation on one TLD for `years`; None when it is not for sale.

    Not for sale: no cost for that term, the provider dropped the TLD, or the store's currency has no rate.
    Pricing many TLDs (a search page)? Load `price_book(tlds=...)` once and call its `retail_price`.
    """
    return price_book(tlds=[tld]).retail_price(tld=tld, operation=operation, years=years)


def privacy_cost() -> Money | None:
    """What WHOIS privacy costs us a year (the provider's currency), from the latest successful price sync; None when
    that sync's price list quoted none (not sold)."""
    latest = PriceSync.objects.filter(ok=True).order_by("-started_at", "-pk").values_list("privacy_cost", flat=True)
    amount = latest.first()
    return Money(amount, PROVIDER_CURRENCY) if amount is not None else None


def privacy_quote(*, tld: str, years: int) -> Quote | None:
    """The retail price of WHOIS privacy for a domain under `tld` for `years` (a total, like every quote); None when
    privacy is not for sale (no cost synced, the provider's catalogue says the TLD has none, or no rate for the
    store's currency)."""
    annual = privacy_cost()
    if annual is None or years < 1:
        return None
    book = price_book(tlds=[tld])
    if _normal_tld(tld) in book.without_privacy:
        return None
    return book.privacy_price(tld=tld, years=years, annual_cost=annual)


def privacy_requote(*, tld: str, years: int, quoted: Money) -> Requote:
    """Does the privacy price the customer was quoted still stand? As `requote`, for privacy."""
    return _requoted(privacy_quote(tld=tld, years=years), tld=tld, quoted=quoted)


def price_text(*, tld: str) -> str | None:
    return price_book(tlds=[tld]).price_text(tld=tld)


def requote(*, tld: str, operation: Operation | str, years: int, quoted: Money) -> Requote:
    """Does the price the customer was quoted still stand? It does unless honouring it would now lose money."""
    return _requoted(retail_price(tld=tld, operation=operation, years=years), tld=tld, quoted=quoted)


def _requoted(quote: Quote | None, *, tld: str, quoted: Money) -> Requote:
    if quote is None:
        return Requote(
            stands=False,
            price=None,
            quote=None,
            reason=gettext(".%(tld)s is not for sale right now.") % {"tld": _normal_tld(tld)},
        )
    if quoted.currency == quote.cost.currency and quoted >= quote.cost:
        return Requote(stands=True, price=quoted, quote=quote, reason="")
    return Requote(
        stands=False,
        price=quote.retail,
        quote=quote,
        reason=gettext("The price has changed from %(old)s to %(new)s.")
        % {"old": format_money(quoted), "new": format_money(quote.retail)},
    )


def rule_below_cost(*, rule: PriceRule) -> str | None:
    """Why this (unsaved) rule would sell below today's cost, or None when it would not."""
    book = price_book(tlds=[rule.tld] if rule.tld else None)
    key = (rule.tld, rule.operation)
    book.rules = {**book.rules, key: Rule.from_model(rule)}
    return book.below_cost(key=key)


def rate_problem() -> str | None:
    """What staff must fix before anything is for sale in another currency, or None."""
    if store_rate() is None:
        return (
            f"The store sells in {settings.STORE_CURRENCY} but the provider charges {PROVIDER_CURRENCY}: "
            f"set the {PROVIDER_CURRENCY} to {settings.STORE_CURRENCY} rate under Prices > Exchange rates. "
            "Until then no domain is for sale."
        )
    return None


def tld_restrictions(*, tlds: Iterable[str]) -> dict[str, str]:
    """The registry requirements the provider's catalogue named, by TLD (without the dot); TLDs without any are left
    out."""
    names = {_normal_tld(tld) for tld in tlds}
    return dict(Tld.objects.filter(name__in=names).exclude(restrictions="").values_list("name", "restrictions"))
