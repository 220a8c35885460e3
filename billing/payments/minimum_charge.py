"""Stripe's minimum charge per currency, checked before a payment is opened, so that a customer whose total is
below it reads why instead of Stripe's refusal.

The table is Stripe's ("Minimum and maximum charge amounts", docs.stripe.com/currencies). A currency not in it has
the equivalent of 0.50 USD at the day's rate as its minimum; the store cannot know that rate, so it leaves those
to Stripe (which refuses, and the customer reads the generic sentence).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from django.utils.translation import gettext_lazy as _

from billing.errors import PaymentError
from billing.ledger.lines import LineToPay
from pricing.money import Money, format_money

MINIMUM_CHARGE = {
    "USD": Decimal("0.50"),
    "AED": Decimal("2.00"),
    "AUD": Decimal("0.50"),
    "BGN": Decimal("1.00"),
    "BRL": Decimal("0.50"),
    "CAD": Decimal("0.50"),
    "CHF": Decimal("0.50"),
    "CZK": Decimal("15.00"),
    "DKK": Decimal("2.50"),
    "EUR": Decimal("0.50"),
    "GBP": Decimal("0.30"),
    "HKD": Decimal("4.00"),
    "HUF": Decimal("175.00"),
    "INR": Decimal("0.50"),
    "JPY": Decimal("50"),
    "MXN": Decimal("10"),
    "MYR": Decimal("2"),
    "NOK": Decimal("3.00"),
    "NZD": Decimal("0.50"),
    "PLN": Decimal("2.00"),
    "RON": Decimal("2.00"),
    "SEK": Decimal("3.00"),
    "SGD": Decimal("0.50"),
    "THB": Decimal("10"),
}


class BelowMinimumCharge(PaymentError):
    """The total is more than nothing and less than Stripe charges at least in its currency."""

    default_message = _("This total is below the smallest payment the payment service takes.")


def minimum_charge(currency: str) -> Money | None:
    """Stripe's minimum charge in this currency, or None when the store does not know it."""
    amount = MINIMUM_CHARGE.get(currency.upper())
    return Money(amount, currency) if amount is not None else None


def minimum_charge_check(lines: Sequence[LineToPay]) -> None:
    """Raise BelowMinimumCharge when the lines' total (before tax, which only adds to it or is inside it) is below
    Stripe's minimum in their currency. A free total is not a charge and is let through."""
    if not lines:
        return
    currency = lines[0].price.currency
    total = sum((line.price.amount for line in lines), Decimal(0))
    minimum = minimum_charge(currency)
    if minimum is None or total <= 0 or total >= minimum.amount:
        return
    raise BelowMinimumCharge(
        f"{total} {currency} is below Stripe's minimum charge of {minimum.amount} {currency}",
        code="below_minimum_charge",
        message=_(
            "The payment service cannot take a payment under %(minimum)s, and this order comes to %(total)s. Add "
            "another domain or a longer term to reach it."
        )
        % {"minimum": format_money(minimum), "total": format_money(Money(total, currency))},
    )
