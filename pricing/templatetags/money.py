"""`{% load money %}{{ quote.retail|money }}`: money in the active language, as everywhere else."""

import logging

from django import template

from pricing.money import Money, format_money
from pricing.tax import tax_name

logger = logging.getLogger(__name__)
register = template.Library()


@register.filter(name="money")
def money_filter(value: Money | None) -> str:
    # Filters fail quietly (Django's rule): a missing price shows as nothing, and the template says what instead.
    if value is None or value == "":
        return ""
    if not isinstance(value, Money):
        # A bare number has no currency to show; printing one would invent it.
        logger.error("money filter given a non-Money value", extra={"type": type(value).__name__})
        return ""
    return format_money(value)


@register.filter(name="tax_name")
def tax_name_filter(label: str) -> str:
    """`{{ label|tax_name }}`: "VAT" as "TVA" on a French page (pricing.tax.tax_name)."""
    return tax_name(label or "")
