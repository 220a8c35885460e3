"""Tax in the cart and at checkout, as the customer will be charged it (billing's payment lines compute the same
through pricing.tax): per line, and the totals. A visitor not signed in is not placed yet: the pages say whether
prices include tax or have it added, and the exact tax shows once they sign in."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django import template
from django.http import HttpRequest

from accounts.models import customer_for_user
from billing.ledger.taxes import customer_place
from domains.cart.basket import CartLine
from pricing.money import Money, totals_by_currency
from pricing.tax import LineTax, Place, TaxRules, line_tax, shown_tax_rules, taxes_by_rate

register = template.Library()


@dataclass(frozen=True)
class ShownTax:
    place: Place | None  # None: the visitor is not signed in (their country is not known)
    rules: TaxRules
    lines: list[LineTax]

    @property
    def inclusive(self) -> bool:
        return self.rules.inclusive

    @property
    def applies(self) -> bool:
        return self.rules.registration is not None

    @property
    def reverse_charge(self) -> bool:
        return any(line.reverse_charge for line in self.lines)

    @property
    def taxes(self) -> list[tuple[str, Decimal, Money]]:
        """(label, rate, amount) per rate charged."""
        return taxes_by_rate((line.label, line.rate, line.tax) for line in self.lines)

    @property
    def to_pay(self) -> list[Money]:
        return totals_by_currency(line.gross for line in self.lines)

    @property
    def total(self) -> Money | None:
        """What is charged, tax included (one currency: the store's)."""
        totals = self.to_pay
        return totals[0] if len(totals) == 1 else None


def _rules_and_place(request: HttpRequest) -> tuple[TaxRules, Place | None]:
    # Once per request: the cart shows a line's tax beside it and again in the totals.
    cached = getattr(request, "_shown_tax", None)
    if cached is None:
        rules = shown_tax_rules()
        # Without a registration and a rate nothing is taxed: the customer's place need not be looked up.
        taxed = rules.registration is not None and bool(rules.rates)
        customer = customer_for_user(request.user) if taxed and request.user.is_authenticated else None
        cached = (rules, customer_place(customer) if customer is not None else None)
        request._shown_tax = cached  # type: ignore[attr-defined]
    return cached


def _prices(line: CartLine) -> list[Money]:
    # Charged as separate lines (the registration after any promotion, then its WHOIS privacy), each taxed and
    # rounded on its own: tax comes after the discount.
    return [line.charged, *([line.privacy_money] if line.privacy_money is not None else [])]


def _cart_lines(items: Any) -> list[CartLine]:
    found = []
    for item in items:
        # The cart's items ({"line": …, "errors": …}), the checkout's (line, offer) pairs, or lines.
        line = item[0] if isinstance(item, tuple) else item["line"] if isinstance(item, dict) else item
        found.append(line)
    return found


@register.simple_tag(takes_context=True)
def shown_tax(context: template.Context, items: Any) -> ShownTax:
    """The tax of the cart's (or checkout's) lines for the signed-in customer."""
    rules, place = _rules_and_place(context["request"])
    lines = _cart_lines(items)
    if place is None:
        return ShownTax(None, rules, [])
    return ShownTax(place, rules, [line_tax(rules, place, price) for line in lines for price in _prices(line)])


@register.simple_tag(takes_context=True)
def line_shown_tax(context: template.Context, line: CartLine) -> ShownTax:
    """The tax of the line's registration (its WHOIS privacy, a line of its own, is in the totals)."""
    rules, place = _rules_and_place(context["request"])
    if place is None:
        return ShownTax(None, rules, [])
    return ShownTax(place, rules, [line_tax(rules, place, line.charged)])


@register.simple_tag(takes_context=True)
def prices_to_pay(context: template.Context, prices: Any) -> ShownTax | None:
    """The tax of prices charged as lines of their own (a renewal, several renewals), for the signed-in customer:
    what the pay buttons say. `prices`: a Money, or items with a `price`. None when a price is unknown."""
    rules, place = _rules_and_place(context["request"])
    items = prices if isinstance(prices, list | tuple) else [prices]
    amounts = [item if isinstance(item, Money) else getattr(item, "price", None) for item in items]
    if place is None or not amounts or any(amount is None for amount in amounts):
        return None
    return ShownTax(place, rules, [line_tax(rules, place, amount) for amount in amounts if amount is not None])
