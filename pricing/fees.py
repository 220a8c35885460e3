"""What the payment service keeps of a sale (its card fee), for the promotions' cost guard: a discount capped "at
cost" must leave the fee paid too, or every line sold at the cap is a loss of the fee (settings.PAYMENT_FEE_PERCENT
and PAYMENT_FEE_FIXED, the latter in the store's currency)."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings

from pricing.currencies import rate_for
from pricing.money import Money

_HUNDRED = Decimal(100)


def cost_floor(cost: Money) -> Money:
    """The lowest price that pays `cost` and the fee taken on that price itself, rounded up to the minor unit. The fee
    is counted whole on each line (a payment of several lines pays the fixed part once: the guard errs safe)."""
    rate = rate_for(cost.currency)
    fixed = settings.PAYMENT_FEE_FIXED * (rate if rate is not None else Decimal(1))
    share = Decimal(1) - settings.PAYMENT_FEE_PERCENT / _HUNDRED
    return Money((cost.amount + fixed) / share, cost.currency).rounded_up()
