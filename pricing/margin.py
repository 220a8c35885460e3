"""Whether the store sells at cost: with no default markup (PRICE_MARKUP_PERCENT and PRICE_MARKUP_FIXED both 0) and
no price rule that adds one, every price is the provider's cost and every sale's margin is zero. That may be meant
(a store that earns elsewhere), but should never be an accident: the admin says so on every page
(`{% selling_at_cost_warning %}`) and `manage.py check --deploy` warns (pricing.W001)."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db.models import Q

from pricing.models import PriceRule, RuleKind


def default_markup_is_zero() -> bool:
    return settings.PRICE_MARKUP_PERCENT == 0 and settings.PRICE_MARKUP_FIXED == 0


def markup_rules_exist() -> bool:
    """Whether staff set any rule that adds to the cost (a positive markup, or a fixed retail price)."""
    adds = (
        Q(kind=RuleKind.PERCENT, percent__gt=Decimal(0))
        | Q(kind=RuleKind.FIXED_AMOUNT, amount__gt=Decimal(0))
        | Q(kind=RuleKind.FIXED_PRICE)
    )
    return PriceRule.objects.filter(adds).exists()


def selling_at_cost() -> bool:
    return default_markup_is_zero() and not markup_rules_exist()
