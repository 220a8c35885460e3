"""`check --deploy`: a store about to sell at cost (no default markup, no markup rule) is told so (pricing.W001)."""

from __future__ import annotations

from typing import Any

from django.core.checks import CheckMessage, Warning, register
from django.db import DatabaseError

from pricing.margin import default_markup_is_zero, markup_rules_exist


@register("pricing", deploy=True)
def selling_at_cost(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    if not default_markup_is_zero():
        return []
    try:
        if markup_rules_exist():
            return []
    except DatabaseError:
        pass  # not migrated yet (a first deploy): the settings alone say no markup
    return [
        Warning(
            "No markup: PRICE_MARKUP_PERCENT and PRICE_MARKUP_FIXED are 0 and no price rule adds one, so every "
            "domain sells at the provider's cost and earns nothing.",
            hint=(
                "Set PRICE_MARKUP_PERCENT (e.g. 20) or PRICE_MARKUP_FIXED, or add price rules in the admin (Prices → "
                "Price rules). If selling at cost is meant, silence this with SILENCED_SYSTEM_CHECKS=['pricing.W001']."
            ),
            id="pricing.W001",
        )
    ]
