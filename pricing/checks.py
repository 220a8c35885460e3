"""`check --deploy`: a store about to sell at cost (no default markup, no markup rule) is told so (pricing.W001).
Always: a store registered for the EU's One-Stop Shop without a rate for a member state (pricing.E001), and a store
charging tax with no seller address for its receipts (pricing.E002), refuse to start."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning, register
from django.db import DatabaseError

from pricing.margin import default_markup_is_zero, markup_rules_exist
from pricing.models import TaxRegistration
from pricing.tax import oss_rates_missing


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


@register("pricing")
def tax_registration_complete(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    try:
        registered = TaxRegistration.objects.exists()
        missing = oss_rates_missing() if registered else []
    except DatabaseError:
        return []  # not migrated yet (a first deploy): nothing registered
    errors: list[CheckMessage] = []
    if missing:
        errors.append(
            Error(
                f"The store is registered for the EU's One-Stop Shop but has no VAT rate for {', '.join(missing)}: "
                "consumers there would be charged no VAT.",
                hint="Add a tax rate for each in the admin (Prices → Tax rates), or upgrade eu-vat-rates-data.",
                id="pricing.E001",
            )
        )
    if registered and not settings.STORE_LEGAL_ADDRESS.strip():
        errors.append(
            Error(
                "The store charges tax (it has a tax registration) but STORE_LEGAL_ADDRESS is empty: a VAT receipt "
                "must carry the seller's address.",
                hint="Set STORE_LEGAL_ADDRESS to the registered address (lines separated by newlines).",
                id="pricing.E002",
            )
        )
    return errors
