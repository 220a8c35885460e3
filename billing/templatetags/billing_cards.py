"""The customer's saved card for pages of other apps (the account page), which do not import billing."""

from __future__ import annotations

import uuid
from typing import Any

from django import template
from django.conf import settings

from billing.models import SavedCard

register = template.Library()


@register.simple_tag
def saved_card(user: Any) -> SavedCard | None:
    """The signed-in customer's saved card, or None."""
    if not getattr(user, "is_authenticated", False):
        return None
    card = SavedCard.objects.filter(customer__user=user).first()
    return card if card is not None and card.has_card else None


@register.simple_tag
def card_setup_offered() -> bool:
    """Whether a card can be added here (not where the store bills offline)."""
    return not settings.PAYMENTS_DISABLED


@register.simple_tag
def card_setup_token() -> str:
    """A fresh token for the "add a card" form: the same form posted twice opens one setup page."""
    return str(uuid.uuid4())
