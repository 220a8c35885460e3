"""Stripe's test cards that the sandbox knows, how each behaves, and the card errors Stripe answers with."""

from __future__ import annotations

from sandbox.stripe_api import objects
from sandbox.stripe_api.models import StripeObject

CARD_SUCCEEDS = "4242424242424242"
CARD_MASTERCARD = "5555555555554444"
CARD_DECLINED = "4000000000000002"
CARD_AUTHENTICATES = "4000002500003155"  # on-session only: once saved, off-session charges need no step
CARD_ALWAYS_AUTHENTICATES = "4000002760003184"  # every payment, so off-session ones fail authentication_required
KNOWN_CARDS = (CARD_SUCCEEDS, CARD_MASTERCARD, CARD_DECLINED, CARD_AUTHENTICATES, CARD_ALWAYS_AUTHENTICATES)
ASKS_AUTHENTICATION = (CARD_AUTHENTICATES, CARD_ALWAYS_AUTHENTICATES)

DECLINED = {
    "type": "card_error",
    "code": "card_declined",
    "decline_code": "generic_decline",
    "message": "Your card was declined.",
}
AUTHENTICATION_REQUIRED = {
    "type": "card_error",
    "code": "authentication_required",
    "decline_code": "authentication_required",
    "message": "Your card was declined. This transaction requires authentication.",
}
AUTHENTICATION_FAILED = {
    "type": "card_error",
    "code": "payment_intent_authentication_failure",
    "message": "We are unable to authenticate your payment method. Please choose a different payment method and "
    "try again.",
}
INVALID_NUMBER = "Your card number is incorrect. The sandbox knows Stripe's test cards only."


def normalised(number: str) -> str:
    return "".join(number.split())


def number_of(method: dict) -> str:
    """The test card behind a saved card payment method ("" for Link)."""
    return method.get("_number", "")


def payment_method(number: str) -> dict:
    return objects.payment_method(number=number)


def asks_on_session(number: str) -> bool:
    return number in ASKS_AUTHENTICATION


def asks_off_session(*, number: str, saved: bool) -> bool:
    """Whether a later charge without the customer needs an authentication step, which then fails: 3184 always;
    3155 only if it was not saved for later use (once saved it is exempt, as Stripe's test card behaves)."""
    return number == CARD_ALWAYS_AUTHENTICATES or (number == CARD_AUTHENTICATES and not saved)


def await_authentication(intent: StripeObject) -> None:
    """The card asks the customer to authenticate (3-D Secure): the payment or setup intent waits for it."""
    intent.data.update(status="requires_action", next_action={"type": "use_stripe_sdk", "use_stripe_sdk": {}})
    intent.save_data()
