"""Checkout in setup mode: the customer saves a payment method without paying, through a SetupIntent.

As in payment mode, the SetupIntent is made when the customer first submits the form, the test cards behave as
Stripe documents (4000 0000 0000 0002 declined, 3155 and 3184 ask for an authentication step), and a successful
setup attaches the payment method to the session's Customer.
"""

from __future__ import annotations

from sandbox.stripe_api import cards, objects, webhooks
from sandbox.stripe_api.customers import attach, customer_details
from sandbox.stripe_api.models import Setup, StripeObject
from sandbox.stripe_api.outcomes import PayResult, Unexpected


def _intent_for(session: StripeObject) -> StripeObject:
    if session.data["setup_intent"]:
        return StripeObject.objects.select_for_update().get(pk=session.data["setup_intent"])
    extra = session.data.get("_setup_intent_data", {})
    data = objects.setup_intent(
        customer=session.data["customer"],
        metadata=extra.get("metadata") or {},
        description=extra.get("description"),
        method_types=session.data["payment_method_types"],
    )
    intent = StripeObject.make(data, api_key=session.api_key)
    session.data["setup_intent"] = intent.id
    session.save_data()
    return intent


def pay(*, session: StripeObject, number: str, link_email: str | None) -> PayResult:
    intent = _intent_for(session)
    if link_email is None and (Setup.current().decline_all_cards or number == cards.CARD_DECLINED):
        _fail(intent, cards.DECLINED)
        return PayResult("declined", cards.DECLINED["message"])
    method = objects.link_payment_method(email=link_email) if link_email else cards.payment_method(number)
    StripeObject.make(method, api_key=session.api_key)
    intent.data["payment_method"] = method["id"]
    if link_email is None and cards.asks_on_session(number):
        cards.await_authentication(intent)
        return PayResult("authenticate")
    _succeed(session=session, intent=intent)
    return PayResult("authorised")


def authenticate(*, session: StripeObject, passed: bool) -> PayResult:
    intent = _intent_for(session)
    if session.data["status"] != "open" or intent.data["status"] != "requires_action":
        raise Unexpected("There is no authentication waiting for this session.", code="setup_intent_unexpected_state")
    intent.data["next_action"] = None
    if not passed:
        _fail(intent, cards.AUTHENTICATION_FAILED, code="setup_intent_authentication_failure")
        return PayResult("declined", cards.AUTHENTICATION_FAILED["message"])
    _succeed(session=session, intent=intent)
    return PayResult("authorised")


def _fail(intent: StripeObject, error: dict, code: str | None = None) -> None:
    intent.data.update(
        status="requires_payment_method",
        next_action=None,
        last_setup_error={**error, "code": code or error["code"]},
    )
    intent.save_data()
    webhooks.record([("setup_intent.setup_failed", intent.data)], api_key=intent.api_key)


def _succeed(*, session: StripeObject, intent: StripeObject) -> None:
    intent.data.update(status="succeeded", last_setup_error=None, next_action=None)
    intent.save_data()
    webhooks.record([("setup_intent.succeeded", intent.data)], api_key=intent.api_key)
    if session.data["customer"]:
        attach(method_id=intent.data["payment_method"], customer=session.data["customer"])
    session.data.update(status="complete", customer_details=customer_details(session))
    session.due_at = None
    session.save_data()
    webhooks.record([("checkout.session.completed", session.data)], api_key=session.api_key)


def cancel(*, session: StripeObject) -> list[webhooks.Step]:
    """The session expired: its unfinished SetupIntent is cancelled (`abandoned`)."""
    intent = StripeObject.objects.select_for_update().get(pk=session.data["setup_intent"])
    if intent.data["status"] in ("succeeded", "canceled"):
        return []
    intent.data.update(status="canceled", cancellation_reason="abandoned", next_action=None)
    intent.save_data()
    return [("setup_intent.canceled", intent.data)]
