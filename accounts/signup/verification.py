"""Whether a customer may buy yet, in the customer's words (checkout shows it)."""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from django.utils.translation import gettext


def is_verified(user: Any) -> bool:
    return EmailAddress.objects.filter(user=user, email__iexact=user.email, verified=True).exists()


def not_ready_to_buy(user: Any) -> str:
    """Why this signed-in user cannot buy (their provider customer does not exist yet)."""
    if not is_verified(user):
        return gettext(
            "Please confirm your email address to buy: open the link we sent to %(email)s. "
            "You can ask for a new link on the Email page of your account."
        ) % {"email": user.email}
    return gettext(
        "Your account is not linked to the domain service yet, so it cannot buy domains. Please contact support."
    )
