"""What happens to sessions and payment intents: paying with a test card, capturing, cancelling, refunding.

Each function runs inside the caller's transaction, changes the stored objects as Stripe documents, and records
the events Stripe would send.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.stripe_api import objects, webhooks
from sandbox.stripe_api.models import Setup, StripeObject

# Stripe's documented test cards that the sandbox knows.
CARD_SUCCEEDS = "4242424242424242"
CARD_DECLINED = "4000000000000002"
CARD_AUTHENTICATES = "4000002500003155"  # on-session only: once saved, off-session charges need no step
CARD_ALWAYS_AUTHENTICATES = "4000002760003184"  # every payment, so off-session ones fail authentication_required
KNOWN_CARDS = (CARD_SUCCEEDS, CARD_DECLINED, CARD_AUTHENTICATES, CARD_ALWAYS_AUTHENTICATES)
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


class Unexpected(Exception):
    """The object is not in a state that allows this (Stripe's `payment_intent_unexpected_state`)."""

    def __init__(self, message: str, code: str = "payment_intent_unexpected_state") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True)
class PayResult:
    outcome: str  # "authorised", "declined", "authenticate"
    message: str = ""


def save(row: StripeObject) -> None:
    row.save(update_fields=["data"])


def _intent_for(session: StripeObject) -> StripeObject:
    """The session's payment intent, made when the customer first tries to pay (as Stripe does today)."""
    if session.data["payment_intent"]:
        return StripeObject.objects.select_for_update().get(pk=session.data["payment_intent"])
    intent_data = session.data.pop("_payment_intent_data", {})
    data = objects.payment_intent(
        amount=session.data["amount_total"],
        currency=session.data["currency"],
        capture_method=intent_data.get("capture_method", "automatic_async"),
        metadata=intent_data.get("metadata") or {},
        description=intent_data.get("description"),
        customer=session.data["customer"],
    )
    data["setup_future_usage"] = intent_data.get("setup_future_usage")
    intent = StripeObject.objects.create(id=data["id"], object="payment_intent", data=data, api_key=session.api_key)
    session.data["payment_intent"] = intent.id
    session.data["_payment_intent_data"] = intent_data
    save(session)
    return intent


def pay(*, session: StripeObject, card: str) -> PayResult:
    """The customer submits a card on the hosted page."""
    if session.data["status"] != "open":
        raise Unexpected(f"This Checkout Session is {session.data['status']}.", code="checkout_session_not_open")
    card = "".join(card.split())
    if card not in KNOWN_CARDS:
        return PayResult("invalid", "Your card number is incorrect. The sandbox knows Stripe's test cards only.")
    intent = _intent_for(session)
    if Setup.current().decline_all_cards or card == CARD_DECLINED:
        _fail(intent, DECLINED)
        return PayResult("declined", DECLINED["message"])
    method = objects.payment_method(number=card)
    StripeObject.objects.create(id=method["id"], object="payment_method", data=method, api_key=session.api_key)
    intent.data["payment_method"] = method["id"]
    if card in ASKS_AUTHENTICATION:
        intent.data.update(status="requires_action", next_action={"type": "use_stripe_sdk", "use_stripe_sdk": {}})
        save(intent)
        return PayResult("authenticate")
    authorise(session=session, intent=intent)
    return PayResult("authorised")


def authenticate(*, session: StripeObject, passed: bool) -> PayResult:
    """The customer completes or fails the card's authentication step."""
    intent = _intent_for(session)
    if session.data["status"] != "open" or intent.data["status"] != "requires_action":
        raise Unexpected("There is no authentication waiting for this session.")
    intent.data["next_action"] = None
    if not passed:
        _fail(intent, AUTHENTICATION_FAILED)
        return PayResult("declined", AUTHENTICATION_FAILED["message"])
    authorise(session=session, intent=intent)
    return PayResult("authorised")


def _fail(intent: StripeObject, error: dict) -> None:
    intent.data.update(
        status="requires_payment_method",
        last_payment_error={**error, "payment_method": {"id": objects.new_id("pm"), "type": "card"}},
    )
    save(intent)
    webhooks.record([("payment_intent.payment_failed", intent.data)])


def authorise(*, session: StripeObject, intent: StripeObject) -> None:
    amount = intent.data["amount"]
    intent.data.update(last_payment_error=None, latest_charge=objects.new_id("ch"))
    if intent.data["capture_method"] == "manual":
        intent.data.update(status="requires_capture", amount_capturable=amount)
        first = ("payment_intent.amount_capturable_updated", intent.data)
    else:
        intent.data.update(status="succeeded", amount_received=amount)
        first = ("payment_intent.succeeded", intent.data)
    save(intent)
    _attach_if_saved(intent)
    session.data.update(status="complete", payment_status="paid")
    session.data["customer_details"] = {
        "address": None,
        "email": session.data["customer_email"] or "customer@example.com",
        "name": None,
        "phone": None,
        "tax_exempt": "none",
        "tax_ids": [],
    }
    save(session)
    webhooks.record([first, ("checkout.session.completed", public(session.data))])


def _attach_if_saved(intent: StripeObject) -> None:
    """`setup_future_usage` with a customer: the card paid with is attached to the customer for later use."""
    data = intent.data
    if not (data.get("setup_future_usage") and data.get("customer") and data.get("payment_method")):
        return
    method = StripeObject.objects.select_for_update().filter(pk=data["payment_method"], object="payment_method").first()
    if method is not None and method.data["customer"] is None:
        method.data["customer"] = data["customer"]
        save(method)
        webhooks.record([("payment_method.attached", public(method.data))])


class CardRefused(Exception):
    """A confirmation refused by the card (Stripe answers 402 with the error and the payment intent)."""

    def __init__(self, error: dict, intent: StripeObject, method: StripeObject) -> None:
        super().__init__(error["message"])
        self.error = {**error, "payment_intent": public(intent.data), "payment_method": public(method.data)}


def confirm_off_session(*, intent: StripeObject, method: StripeObject, off_session: bool) -> None:
    """Confirm a payment intent with a saved card, without the customer when `off_session`: as Stripe's test cards
    behave once saved (3155 needs no step any more; 3184 always asks, which fails off-session)."""
    number = method.data.get("_number", "")
    intent.data["payment_method"] = method.id
    if Setup.current().decline_all_cards or number == CARD_DECLINED:
        _fail(intent, DECLINED)
        raise CardRefused(DECLINED, intent, method)
    if number == CARD_ALWAYS_AUTHENTICATES or (number == CARD_AUTHENTICATES and not method.data["customer"]):
        if off_session:
            _fail(intent, AUTHENTICATION_REQUIRED)
            raise CardRefused(AUTHENTICATION_REQUIRED, intent, method)
        intent.data.update(status="requires_action", next_action={"type": "use_stripe_sdk", "use_stripe_sdk": {}})
        save(intent)
        return
    amount = intent.data["amount"]
    intent.data.update(last_payment_error=None, latest_charge=objects.new_id("ch"))
    if intent.data["capture_method"] == "manual":
        intent.data.update(status="requires_capture", amount_capturable=amount)
        webhooks.record([("payment_intent.amount_capturable_updated", intent.data)])
    else:
        intent.data.update(status="succeeded", amount_received=amount)
        webhooks.record([("payment_intent.succeeded", intent.data)])
    save(intent)


def capture(*, intent: StripeObject, amount_to_capture: int | None) -> None:
    data = intent.data
    if data["status"] != "requires_capture":
        raise Unexpected(
            f"This PaymentIntent could not be captured because it has a status of {data['status']}. Only a "
            "PaymentIntent with one of the following statuses may be captured: requires_capture."
        )
    amount = data["amount_capturable"] if amount_to_capture is None else amount_to_capture
    if amount <= 0 or amount > data["amount_capturable"]:
        raise Unexpected(
            f"The amount_to_capture ({amount}) must be positive and at most the amount capturable "
            f"({data['amount_capturable']}).",
            code="amount_too_large",
        )
    # What is not captured is released: one capture settles a payment intent.
    data.update(status="succeeded", amount_received=amount, amount_capturable=0)
    save(intent)
    webhooks.record([("payment_intent.succeeded", data), ("charge.captured", {"id": data["latest_charge"]})])


def cancel(*, intent: StripeObject, reason: str | None) -> None:
    data = intent.data
    if data["status"] in ("succeeded", "canceled"):
        raise Unexpected(
            f"You cannot cancel this PaymentIntent because it has a status of {data['status']}. Only a "
            "PaymentIntent with one of the following statuses may be canceled: requires_payment_method, "
            "requires_capture, requires_confirmation, requires_action, processing."
        )
    data.update(status="canceled", canceled_at=objects.now(), cancellation_reason=reason, amount_capturable=0)
    save(intent)
    webhooks.record([("payment_intent.canceled", data)])


def refunded_so_far(intent: StripeObject) -> int:
    return sum(row.data["amount"] for row in StripeObject.objects.filter(object="refund", payment_intent=intent.id))


def refund(*, intent: StripeObject, amount: int | None, metadata: dict, reason: str | None) -> StripeObject:
    data = intent.data
    if data["status"] != "succeeded":
        raise Unexpected(
            f"This PaymentIntent has a status of {data['status']}: there is no charge to refund.",
            code="charge_not_refundable",
        )
    left = data["amount_received"] - refunded_so_far(intent)
    amount = left if amount is None else amount
    if amount <= 0 or amount > left:
        raise Unexpected(
            f"Refund amount ({amount}) is greater than unrefunded amount on charge ({left}).", code="amount_too_large"
        )
    made = objects.refund(
        amount=amount,
        currency=data["currency"],
        charge=data["latest_charge"],
        intent_id=intent.id,
        metadata=metadata,
        reason=reason,
    )
    row = StripeObject.objects.create(
        id=made["id"], object="refund", data=made, api_key=intent.api_key, payment_intent=intent.id
    )
    webhooks.record([("refund.created", made), ("charge.refunded", {"id": data["latest_charge"]})])
    return row


def expire(*, session: StripeObject) -> None:
    if session.data["status"] != "open":
        raise Unexpected(
            f"This Checkout Session is {session.data['status']}; only an open one can be expired.",
            code="checkout_session_not_open",
        )
    session.data["status"] = "expired"
    save(session)
    if session.data["payment_intent"]:
        intent = StripeObject.objects.select_for_update().get(pk=session.data["payment_intent"])
        if intent.data["status"] not in ("succeeded", "canceled"):
            cancel(intent=intent, reason="abandoned")
    webhooks.record([("checkout.session.expired", public(session.data))])


def public(data: dict) -> dict:
    """An object as the API shows it (without the sandbox's own bookkeeping fields)."""
    return {key: value for key, value in data.items() if not key.startswith("_")}
