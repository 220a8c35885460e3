"""An order's status in templates, worded by domains/presentation.py: `{{ row.display_status|status_badge }}` (the
badge's CSS class), `|status_label` (the status in the customer's language), `|status_meaning` (one sentence), and
`{{ row|time_left }}` (how long until, or since, it expires)."""

from __future__ import annotations

from django import template
from django.utils.functional import Promise

from domains import presentation
from domains.orders.services import OrderRow
from domains.presentation import order_status_badge, order_status_label, order_status_meaning

register = template.Library()


@register.filter
def status_badge(status: str) -> str:
    return order_status_badge(status)


@register.filter
def status_label(status: str) -> str | Promise:
    return order_status_label(status)


@register.filter
def status_meaning(status: str) -> str | Promise:
    return order_status_meaning(status)


@register.filter
def time_left(row: OrderRow) -> str:
    return presentation.time_left(row)
