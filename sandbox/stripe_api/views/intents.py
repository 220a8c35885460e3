"""PaymentIntents: create (and confirm with a saved payment method), retrieve, capture, cancel."""

from __future__ import annotations

import time

from django.http import HttpRequest

from sandbox.stripe_api import currencies, objects, parameters, payments
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

# The payment methods the account's Dashboard has on (what an intent without a restriction takes at this API
# version): cards, and Link, which may redirect the customer.
DASHBOARD_METHODS = ("card", "link")
# Stripe's refusal, word for word, of a confirm that may need a redirect and has nowhere to send the customer back.
RETURN_URL_REQUIRED = (
    "A `return_url` must be specified because this Payment Intent is configured to automatically accept the "
    "payment methods enabled in the Dashboard, some of which may require a full page redirect to succeed. If you do "
    "not want to accept redirect-based payment methods, set `automatic_payment_methods[enabled]` to `true` and "
    "`automatic_payment_methods[allow_redirects]` to `never` when creating Setup Intents and Payment Intents."
)


def _methods(params: dict) -> tuple[list[str] | None, dict | None, list[str]]:
    """What the intent accepts, as Stripe decides it at the pinned API version: `allowed_payment_method_types`, or
    `automatic_payment_methods` (given, or by default the Dashboard's methods with redirects allowed).
    (allowed_payment_method_types, automatic_payment_methods, payment_method_types) as the object shows them."""
    allowed = params.get("allowed_payment_method_types")
    automatic = params.get("automatic_payment_methods")
    if allowed is not None and automatic is not None:
        raise ApiError(
            400,
            "You may only specify one of these parameters: allowed_payment_method_types, automatic_payment_methods.",
            param="allowed_payment_method_types",
        )
    if allowed is not None:
        if not allowed:
            raise ApiError(400, "Invalid array", param="allowed_payment_method_types")
        for index, method in enumerate(allowed):
            if method not in DASHBOARD_METHODS:
                raise ApiError(
                    400,
                    f"The payment method type provided: {method} is invalid. The payment sandbox offers "
                    f"{' and '.join(DASHBOARD_METHODS)} only.",
                    code="parameter_invalid",
                    param=f"allowed_payment_method_types[{index}]",
                )
        methods = list(dict.fromkeys(allowed))
        return methods, None, methods
    if automatic is None:
        return None, {"enabled": True, "allow_redirects": "always"}, list(DASHBOARD_METHODS)
    if "enabled" not in automatic:
        raise ApiError(
            400,
            "Missing required param: automatic_payment_methods[enabled].",
            code="parameter_missing",
            param="automatic_payment_methods[enabled]",
        )
    if not truthy(automatic["enabled"]):
        raise ApiError(
            400,
            "The payment sandbox implements automatic_payment_methods[enabled]=true only (or "
            "allowed_payment_method_types).",
            param="automatic_payment_methods[enabled]",
        )
    return None, {"enabled": True, "allow_redirects": automatic.get("allow_redirects") or "always"}, ["card"]


@api("POST", schema=parameters.INTENT_CREATE)
def intents(request: HttpRequest, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    """Create a payment intent; with `confirm=true` and a saved `payment_method` it is charged at once (off-session
    when `off_session=true`, the customer not being there to pass an authentication step)."""
    amount = integer(params, "amount", required=True)
    currency = check_currency(str(params.get("currency") or ""))
    if amount is None or amount < 1:
        raise ApiError(400, "Amount must be at least 1.", code="amount_too_small", param="amount")
    check_amount(amount, currency)
    too_small = currencies.below_minimum(amount, currency)
    if too_small:
        raise ApiError(400, f"Amount must be at least {too_small}.", code="amount_too_small", param="amount")
    customer_id = params.get("customer") or None
    if customer_id:
        get_object(key, customer_id, "customer", param="customer")
    allowed, automatic, method_types = _methods(params)
    confirm = truthy(params.get("confirm"))
    if "return_url" in params and not confirm:
        raise ApiError(
            400,
            "The parameter `return_url` can only be used with `confirm=true`.",
            code="parameter_invalid",
            param="return_url",
        )
    if confirm and automatic is not None and automatic["allow_redirects"] != "never" and not params.get("return_url"):
        raise ApiError(400, RETURN_URL_REQUIRED, param="return_url")
    data = objects.payment_intent(
        amount=amount,
        currency=currency,
        capture_method=params.get("capture_method") or "automatic_async",
        metadata=params.get("metadata") or {},
        description=params.get("description"),
        customer=customer_id,
        allowed=allowed,
        automatic=automatic,
        method_types=method_types,
    )
    data.update(setup_future_usage=params.get("setup_future_usage"), receipt_email=params.get("receipt_email"))
    row = StripeObject.make(data, api_key=key)
    if not confirm:
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
    if method.data["type"] not in method_types:
        raise ApiError(
            400,
            f"The PaymentMethod provided ({method.data['type']}) is not allowed for this PaymentIntent. Please attach "
            f"a PaymentMethod of one of the following types: {', '.join(method_types)}.",
            code="payment_intent_incompatible_payment_method",
            param="payment_method",
        )
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
