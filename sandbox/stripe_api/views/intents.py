"""PaymentIntents: create (and confirm with a saved payment method), retrieve, capture, cancel."""

from __future__ import annotations

import time

from django.http import HttpRequest

from sandbox.stripe_api import objects, parameters, payments
from sandbox.stripe_api.models import Setup, StripeObject
from sandbox.stripe_api.views.base import (
    ApiError,
    api,
    check_amount,
    check_currency,
    get_object,
    integer,
    shown,
    truthy,
)


@api("POST", schema=parameters.INTENT_CREATE)
def intents(request: HttpRequest, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    """Create a payment intent; with `confirm=true` and a saved `payment_method` it is charged at once (off-session
    when `off_session=true`, the customer not being there to pass an authentication step)."""
    amount = integer(params, "amount", required=True)
    currency = check_currency(str(params.get("currency") or ""))
    if amount is None or amount < 1:
        raise ApiError(400, "Amount must be at least 1.", code="amount_too_small", param="amount")
    check_amount(amount, currency)
    customer_id = params.get("customer") or None
    if customer_id:
        get_object(key, customer_id, "customer", param="customer")
    data = objects.payment_intent(
        amount=amount,
        currency=currency,
        capture_method=params.get("capture_method") or "automatic_async",
        metadata=params.get("metadata") or {},
        description=params.get("description"),
        customer=customer_id,
    )
    data.update(setup_future_usage=params.get("setup_future_usage"), receipt_email=params.get("receipt_email"))
    row = StripeObject.make(data, api_key=key)
    if not truthy(params.get("confirm")):
        return 200, shown(row, params, key)
    method_id = params.get("payment_method")
    if not method_id:
        raise ApiError(
            400,
            "You cannot confirm this PaymentIntent because it's missing a payment method.",
            code="payment_intent_unexpected_state",
            param="payment_method",
        )
    method = get_object(key, method_id, "payment_method", param="payment_method")
    if method.data["customer"] != customer_id:
        raise ApiError(
            400,
            f"The provided PaymentMethod was previously used without being attached to a Customer or was detached "
            f"from a Customer, and may not be used again (or it belongs to another Customer than {customer_id}).",
            code="payment_method_unexpected_state" if method.data["customer"] is None else "resource_missing",
            param="payment_method",
        )
    row.data["payment_method_types"] = [method.data["type"]]
    try:
        payments.confirm_off_session(intent=row, method=method, off_session=truthy(params.get("off_session")))
    except payments.CardRefused as err:
        extra = {key: value for key, value in err.error.items() if key not in ("type", "message", "code")}
        raise ApiError(402, err.error["message"], type="card_error", code=err.error["code"], extra=extra) from err
    return 200, shown(row, params, key)


@api("POST", schema=parameters.INTENT_CAPTURE)
def intent_capture(request: HttpRequest, intent_id: str, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    row = get_object(key, intent_id, "payment_intent", lock=True)
    amount = integer(params, "amount_to_capture")
    if amount is not None:
        check_amount(amount, row.data["currency"], param="amount_to_capture")
    payments.capture(intent=row, amount_to_capture=amount)
    setup = Setup.current()
    if setup.timeout_after_capture:
        # The capture is committed; only its answer is held, past any sensible client timeout.
        after.append(lambda: time.sleep(setup.timeout_seconds))
    return 200, shown(row, params, key)


@api("POST", schema=parameters.INTENT_CANCEL)
def intent_cancel(request: HttpRequest, intent_id: str, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    row = get_object(key, intent_id, "payment_intent", lock=True)
    payments.cancel_and_record(intent=row, reason=params.get("cancellation_reason"))
    return 200, shown(row, params, key)
