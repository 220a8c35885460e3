"""What happens to sessions and payment intents: paying on the hosted page (a test card or Link), confirming a saved
card off-session, capturing, cancelling, a hold lapsing, a session expiring.

Each function runs inside the caller's transaction, changes the stored objects as Stripe documents, and records
the events Stripe would send.
"""

from __future__ import annotations

from sandbox.stripe_api import cards, charges, clock, objects, setups, webhooks
from sandbox.stripe_api.customers import attach, customer_details, payer_email
from sandbox.stripe_api.models import Setup, StripeObject
from sandbox.stripe_api.objects import public
from sandbox.stripe_api.outcomes import PayResult, Unexpected

__all__ = ["PayResult", "Unexpected", "public"]


def _intent_for(session: StripeObject) -> StripeObject:
    """The session's payment intent, made when the customer first tries to pay (as Stripe does today)."""
    if session.data["payment_intent"]:
        return StripeObject.objects.select_for_update().get(pk=session.data["payment_intent"])
    intent_data = session.data.get("_payment_intent_data", {})
    data = objects.payment_intent(
        amount=session.data["amount_total"],
        currency=session.data["currency"],
        capture_method=intent_data.get("capture_method", "automatic_async"),
        metadata=intent_data.get("metadata") or {},
        description=intent_data.get("description"),
        customer=session.data["customer"],
    )
    data.update(
        setup_future_usage=intent_data.get("setup_future_usage"),
        payment_method_types=session.data["payment_method_types"],
        payment_method_options=session.data["payment_method_options"],
    )
    intent = StripeObject.make(data, api_key=session.api_key)
    session.data["payment_intent"] = intent.id
    session.save_data()
    return intent


def pay(*, session: StripeObject, card: str = "", link: bool = False) -> PayResult:
    """The customer submits a card (or chooses Link) on the hosted page."""
    if session.data["status"] != "open":
        raise Unexpected(f"This Checkout Session is {session.data['status']}.", code="checkout_session_not_open")
    offered = session.data["payment_method_types"]
    if link and "link" not in offered:
        return PayResult("invalid", "This payment page takes cards only.")
    number = cards.normalised(card)
    if not link and ("card" not in offered or number not in cards.KNOWN_CARDS):
        return PayResult("invalid", cards.INVALID_NUMBER if "card" in offered else "Choose Link to pay.")
    if session.data["mode"] == "setup":
        return setups.pay(session=session, number=number, link_email=payer_email(session) if link else None)
    intent = _intent_for(session)
    if Setup.current().decline_all_cards or number == cards.CARD_DECLINED:
        _fail(intent, cards.DECLINED)
        return PayResult("declined", cards.DECLINED["message"])
    method = objects.link_payment_method(email=payer_email(session)) if link else cards.payment_method(number)
    StripeObject.make(method, api_key=session.api_key)
    intent.data["payment_method"] = method["id"]
    if not link and cards.asks_on_session(number):
        cards.await_authentication(intent)
        return PayResult("authenticate")
    authorise(session=session, intent=intent)
    return PayResult("authorised")


def authenticate(*, session: StripeObject, passed: bool) -> PayResult:
    """The customer completes or fails the card's authentication step."""
    if session.data["mode"] == "setup":
        return setups.authenticate(session=session, passed=passed)
    intent = _intent_for(session)
    if session.data["status"] != "open" or intent.data["status"] != "requires_action":
        raise Unexpected("There is no authentication waiting for this session.")
    intent.data["next_action"] = None
    if not passed:
        _fail(intent, cards.AUTHENTICATION_FAILED)
        return PayResult("declined", cards.AUTHENTICATION_FAILED["message"])
    authorise(session=session, intent=intent)
    return PayResult("authorised")


def _fail(intent: StripeObject, error: dict) -> None:
    intent.data.update(
        status="requires_payment_method",
        next_action=None,
        last_payment_error={**error, "payment_method": {"id": objects.new_id("pm"), "type": "card"}},
    )
    intent.save_data()
    webhooks.record([("payment_intent.payment_failed", intent.data)], api_key=intent.api_key)


def _authorised(intent: StripeObject, *, off_session: bool) -> list[webhooks.Step]:
    """The card (or Link) said yes: the charge is made and the intent waits for its capture (or is paid)."""
    method = StripeObject.objects.get(pk=intent.data["payment_method"])
    charge, deadline = charges.create(intent=intent, method=method, off_session=off_session)
    amount = intent.data["amount"]
    intent.data.update(last_payment_error=None, next_action=None, latest_charge=charge.id)
    if intent.data["capture_method"] == "manual":
        intent.data.update(status="requires_capture", amount_capturable=amount)
        intent.due_at = deadline
        moved = ("payment_intent.amount_capturable_updated", intent.data)
    else:
        intent.data.update(status="succeeded", amount_received=amount)
        moved = ("payment_intent.succeeded", intent.data)
    intent.save_data()
    return [("charge.succeeded", charge.data), moved]


def authorise(*, session: StripeObject, intent: StripeObject) -> None:
    steps = _authorised(intent, off_session=False)
    _attach_if_saved(intent)
    session.data.update(status="complete", payment_status="paid", customer_details=customer_details(session))
    session.due_at = None
    session.save_data()
    webhooks.record([*steps, ("checkout.session.completed", session.data)], api_key=session.api_key)


def _attach_if_saved(intent: StripeObject) -> None:
    """`setup_future_usage` with a customer: the payment method paid with is attached to the customer."""
    data = intent.data
    if data.get("setup_future_usage") and data.get("customer") and data.get("payment_method"):
        attach(method_id=data["payment_method"], customer=data["customer"])


class CardRefused(Exception):
    """A confirmation refused by the card (Stripe answers 402 with the error and the payment intent)."""

    def __init__(self, error: dict, intent: StripeObject, method: StripeObject) -> None:
        super().__init__(error["message"])
        self.error = {**error, "payment_intent": public(intent.data), "payment_method": public(method.data)}


def confirm_off_session(*, intent: StripeObject, method: StripeObject, off_session: bool) -> None:
    """Confirm a payment intent with a saved payment method, without the customer when `off_session`: as Stripe's
    test cards behave once saved (3155 needs no step any more; 3184 always asks, which fails off-session)."""
    number = cards.number_of(method.data)
    intent.data["payment_method"] = method.id
    if Setup.current().decline_all_cards or number == cards.CARD_DECLINED:
        _fail(intent, cards.DECLINED)
        raise CardRefused(cards.DECLINED, intent, method)
    if cards.asks_off_session(number=number, saved=method.data["customer"] is not None):
        if off_session:
            _fail(intent, cards.AUTHENTICATION_REQUIRED)
            raise CardRefused(cards.AUTHENTICATION_REQUIRED, intent, method)
        cards.await_authentication(intent)
        return
    webhooks.record(_authorised(intent, off_session=off_session), api_key=intent.api_key)


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
    charge = charges.of(intent)
    assert charge is not None, "an intent that requires capture has its charge"
    # What is not captured is released: one capture settles a payment intent.
    charges.capture(charge=charge, amount=amount)
    data.update(status="succeeded", amount_received=amount, amount_capturable=0)
    intent.due_at = None
    intent.save_data()
    webhooks.record([("payment_intent.succeeded", data), ("charge.captured", charge.data)], api_key=intent.api_key)


def cancel(*, intent: StripeObject, reason: str | None, at: int | None = None) -> list[webhooks.Step]:
    """Cancel the intent (its hold, if any, released); the events to record."""
    data = intent.data
    if data["status"] in ("succeeded", "canceled"):
        raise Unexpected(
            f"You cannot cancel this PaymentIntent because it has a status of {data['status']}. Only a "
            "PaymentIntent with one of the following statuses may be canceled: requires_payment_method, "
            "requires_capture, requires_confirmation, requires_action, processing."
        )
    steps: list[webhooks.Step] = []
    if data["status"] == "requires_capture":
        charge = charges.of(intent)
        assert charge is not None, "an intent that requires capture has its charge"
        charges.release(charge=charge)
        if reason == "automatic":
            steps.append(("charge.expired", charge.data))
    data.update(status="canceled", canceled_at=at or clock.now(), cancellation_reason=reason, amount_capturable=0)
    intent.due_at = None
    intent.save_data()
    return [*steps, ("payment_intent.canceled", data)]


def cancel_and_record(*, intent: StripeObject, reason: str | None) -> None:
    webhooks.record(cancel(intent=intent, reason=reason), api_key=intent.api_key)


def lapse(*, intent: StripeObject) -> None:
    """The capture deadline passed: Stripe releases the hold and cancels the intent (`automatic`)."""
    webhooks.record(cancel(intent=intent, reason="automatic", at=intent.due_at), api_key=intent.api_key)


def expire(*, session: StripeObject) -> None:
    if session.data["status"] != "open":
        raise Unexpected(
            f"This Checkout Session is {session.data['status']}; only an open one can be expired.",
            code="checkout_session_not_open",
        )
    session.data["status"] = "expired"
    session.due_at = None
    session.save_data()
    steps: list[webhooks.Step] = []
    if session.data["payment_intent"]:
        intent = StripeObject.objects.select_for_update().get(pk=session.data["payment_intent"])
        if intent.data["status"] not in ("succeeded", "canceled"):
            steps = cancel(intent=intent, reason="abandoned")
    if session.data.get("setup_intent"):
        steps = setups.cancel(session=session)
    webhooks.record([*steps, ("checkout.session.expired", session.data)], api_key=session.api_key)
