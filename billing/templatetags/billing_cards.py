"""The customer's saved card for pages of other apps (the account page), which do not import billing."""

from __future__ import annotations

from typing import Any

from django import template

from billing.models import SavedCard

register = template.Library()


@register.simple_tag
def saved_card(user: Any) -> SavedCard | None:
    """The signed-in customer's saved card, or None."""
    if not getattr(user, "is_authenticated", False):
        return None
    card = SavedCard.objects.filter(customer__user=user).first()
    return card if card is not None and card.has_card else None
