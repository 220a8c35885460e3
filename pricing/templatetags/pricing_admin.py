"""`{% selling_at_cost_warning %}`: the admin's warning, on every page, while the store sells at cost."""

from django import template

from pricing.margin import selling_at_cost

register = template.Library()


@register.inclusion_tag("admin/_selling_at_cost.html")
def selling_at_cost_warning() -> dict[str, bool]:
    return {"at_cost": selling_at_cost()}
