"""The amounts a customer is shown for a purchase, line by line, from the payment itself: what each line is charged
after any promotion, with its tax as charged, so that the lines add up to the total charged.

One function for every place that shows a purchase (the confirmation page, the "registered" email, the receipt and
its PDF): a page that priced a line from anything else (the cart's list price, the registration's quote) would say
one amount per line and another as the total.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from billing.ledger.lines import DEFAULT_KIND
from billing.models import Payment, PaymentLine
from pricing.money import Money

# A line not charged (certainly not delivered): its part of the authorisation was released.
NOT_CHARGED = (PaymentLine.Status.FAILED,)


@dataclass(frozen=True)
class LineFigure:
    reference: str
    kind: str
    description: str
    amount: Money  # what the line is charged (or held for, until delivered): after the promotion, tax included
    tax: Money
    tax_label: str
    tax_rate: Decimal  # percent
    reverse_charge: bool
    charged: bool  # False: not delivered, nothing charged for it
    list_price: Money | None = None  # before the promotion (before tax)
    discount: Money | None = None
    promotion_code: str = ""

    @property
    def net(self) -> Money:
        return self.amount - self.tax


@dataclass(frozen=True)
class PurchaseFigures:
    currency: str
    lines: list[LineFigure]

    @property
    def total(self) -> Money:
        """What the lines charged (or held) add up to."""
        return sum((line.amount for line in self.lines if line.charged), Money.zero(self.currency))

    def line(self, reference: str) -> LineFigure | None:
        return next((line for line in self.lines if line.reference == reference), None)


def line_figure(line: PaymentLine) -> LineFigure:
    discounted = bool(line.discount)
    return LineFigure(
        reference=line.reference,
        kind=str(line.details.get("kind") or DEFAULT_KIND),
        description=line.description,
        amount=line.gross,
        tax=line.tax,
        tax_label=line.tax_label,
        tax_rate=line.tax_rate,
        reverse_charge=line.reverse_charge,
        charged=line.status not in NOT_CHARGED,
        list_price=line.list_price if discounted else None,
        discount=line.discount_money,
        promotion_code=line.promotion.code if discounted and line.promotion is not None else "",
    )


def purchase_figures(payment: Payment) -> PurchaseFigures:
    """Each line of the payment as the customer is charged for it, in the payment's order."""
    lines = payment.lines.select_related("promotion", "payment").order_by("position")
    return PurchaseFigures(currency=payment.currency, lines=[line_figure(line) for line in lines])
