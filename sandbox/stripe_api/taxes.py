"""Tax amounts of Checkout line items with Tax Rates, as Stripe's "Tax rates" guide computes them.

Per line item and per rate, rounded on the line ("line item level", half up, to the currency's smallest amount):
an inclusive rate's tax is inside the line's amount (`amount - amount / (1 + rate)`); an exclusive rate's tax is
added on top, computed on the amount less any inclusive tax. The session's `amount_subtotal` is the lines'
amounts (inclusive taxes included, exclusive ones not), `total_details.amount_tax` every tax, and `amount_total`
the subtotal plus the exclusive taxes: what the customer pays and the payment intent's amount.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from sandbox.stripe_api import currencies


def _round(value: Decimal, currency: str) -> int:
    unit = currencies.step(currency)
    return int((value / unit).quantize(Decimal(1), rounding=ROUND_HALF_UP)) * unit


def _rate(rate: dict) -> Decimal:
    return Decimal(str(rate["percentage"])) / 100


@dataclass
class TaxedLine:
    amount: int  # unit amount times quantity, as the line was priced
    currency: str
    taxes: list[dict] = field(default_factory=list)  # Stripe's line item `taxes`: amount, rate, taxable_amount

    @property
    def amount_tax(self) -> int:
        return sum(tax["amount"] for tax in self.taxes)

    @property
    def exclusive_tax(self) -> int:
        return sum(tax["amount"] for tax in self.taxes if not tax["rate"]["inclusive"])

    @property
    def amount_total(self) -> int:
        return self.amount + self.exclusive_tax


def taxed(*, amount: int, currency: str, rates: list[dict]) -> TaxedLine:
    line = TaxedLine(amount=amount, currency=currency)
    inclusive = [rate for rate in rates if rate["inclusive"]]
    net = Decimal(amount) / (1 + sum((_rate(rate) for rate in inclusive), Decimal(0)))
    for rate in inclusive:
        line.taxes.append(_tax(net * _rate(rate), rate, taxable=net, currency=currency))
    base = Decimal(amount - line.amount_tax)
    for rate in rates:
        if not rate["inclusive"]:
            line.taxes.append(_tax(base * _rate(rate), rate, taxable=base, currency=currency))
    return line


def _tax(value: Decimal, rate: dict, *, taxable: Decimal, currency: str) -> dict:
    return {
        "amount": _round(value, currency),
        "rate": rate,
        "taxability_reason": None,
        "taxable_amount": int(taxable.quantize(Decimal(1), rounding=ROUND_HALF_UP)),
    }


def breakdown(lines: list[TaxedLine]) -> list[dict]:
    """`total_details.breakdown.taxes`: the tax per rate over the whole session."""
    per_rate: dict[str, dict] = {}
    for line in lines:
        for tax in line.taxes:
            total = per_rate.setdefault(
                tax["rate"]["id"], {"amount": 0, "rate": tax["rate"], "taxability_reason": None, "taxable_amount": 0}
            )
            total["amount"] += tax["amount"]
            total["taxable_amount"] += tax["taxable_amount"]
    return list(per_rate.values())
