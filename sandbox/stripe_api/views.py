"""Stripe's API, the part the storefront uses: Checkout Sessions, PaymentIntents, Refunds, Customers and their
saved PaymentMethods.

Requests come as Stripe's SDK sends them: a `Bearer sk_test_…` key, form-encoded parameters, an optional
`Idempotency-Key` on POSTs (a retry with the same key and parameters gets the first answer again; other parameters
are refused). Errors have Stripe's `{"error": {type, code, message, param}}` shape and status codes.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt

from sandbox.stripe_api import objects, payments
from sandbox.stripe_api.encoding import MalformedParams, decode
from sandbox.stripe_api.models import ApiCall, IdempotentAnswer, Setup, StripeObject

logger = logging.getLogger(__name__)


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        code: str | None = None,
        param: str | None = None,
        extra: dict | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"error": {"type": type, "message": message, "code": code, "param": param, **(extra or {})}}


def _error_body(err: ApiError) -> dict:
    return {"error": {key: value for key, value in err.body["error"].items() if value is not None}}


def _key(request: HttpRequest) -> str:
    scheme, _, key = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not key:
        raise ApiError(
            401, "You did not provide an API key. Provide it in the Authorization header as 'Bearer sk_test_...'."
        )
    if not key.startswith("sk_test_") or len(key) < 12:
        # Like Stripe, only the start of a wrong key is repeated back.
        raise ApiError(
            401,
            f"Invalid API Key provided: {key[:8]}****. The payment sandbox takes test secret keys (sk_test_...) only.",
        )
    return key


def api(*methods: str) -> Callable:
    """The shared handling of every API endpoint: auth, faults, parameters, idempotency, errors, the call log."""

    def decorator(view: Callable[..., tuple[int, dict]]) -> Callable[..., HttpResponse]:
        @csrf_exempt
        @wraps(view)
        def wrapper(request: HttpRequest, **kwargs: Any) -> HttpResponse:
            idempotency_key = request.headers.get("Idempotency-Key", "")
            replayed = False
            after: list[Callable[[], None]] = []
            try:
                if request.method not in methods:
                    raise ApiError(405, f"Unrecognized request URL ({request.method}: {request.path}).")
                key = _key(request)
                if Setup.current().api_error:
                    raise ApiError(
                        500, "An unknown error occurred (a fault switched on in the payment sandbox).", type="api_error"
                    )
                try:
                    raw = request.body.decode() if request.method == "POST" else request.META.get("QUERY_STRING", "")
                    params = decode(raw)
                except (MalformedParams, UnicodeDecodeError) as err:
                    raise ApiError(400, f"Invalid parameters: {err}") from err
                with transaction.atomic():
                    stored = None
                    if request.method == "POST" and idempotency_key:
                        stored = IdempotentAnswer.objects.filter(api_key=key, key=idempotency_key).first()
                    if stored is not None:
                        if stored.path != request.path or stored.params != params:
                            raise ApiError(
                                400,
                                "Keys for idempotent requests can only be used with the same "
                                "parameters they were first used with.",
                                type="idempotency_error",
                            )
                        status, body, replayed = stored.status, stored.body, True
                    else:
                        try:
                            status, body = view(request, key=key, params=params, after=after, **kwargs)
                        except ApiError as err:
                            status, body = err.status, _error_body(err)
                        if request.method == "POST" and idempotency_key and status != 500:
                            IdempotentAnswer.objects.create(
                                api_key=key,
                                key=idempotency_key,
                                path=request.path,
                                params=params,
                                status=status,
                                body=body,
                            )
            except ApiError as err:
                status, body = err.status, _error_body(err)
            ApiCall.objects.create(
                method=request.method or "",
                path=request.path[:255],
                status=status,
                idempotency_key=idempotency_key[:255],
                replayed=replayed,
            )
            for step in after:
                step()
            response = JsonResponse(body, status=status)
            response["Request-Id"] = objects.new_id("req")
            if idempotency_key:
                response["Idempotency-Key"] = idempotency_key
            if replayed:
                response["Idempotent-Replayed"] = "true"
            return response

        return wrapper

    return decorator


def _get(key: str, object_id: str, kind: str, *, lock: bool = False) -> StripeObject:
    rows = StripeObject.objects.select_for_update() if lock else StripeObject.objects
    row = rows.filter(pk=object_id, object=kind, api_key=key).first()
    if row is None:
        raise ApiError(
            404, f"No such {kind.split('.')[-1].replace('_', '')}: '{object_id}'", code="resource_missing", param="id"
        )
    return row


def _int(params: dict, name: str, *, required: bool = False) -> int | None:
    value = params.get(name)
    if value in (None, ""):
        if required:
            raise ApiError(400, f"Missing required param: {name}.", code="parameter_missing", param=name)
        return None
    try:
        return int(value)
    except (TypeError, ValueError) as err:
        raise ApiError(400, f"Invalid integer: {value}", code="parameter_invalid_integer", param=name) from err


def _shown(row: StripeObject, params: dict) -> dict:
    data = payments.public(row.data)
    # `expand[]=payment_intent` on a session: the intent in place of its id.
    if "payment_intent" in (params.get("expand") or []) and data.get("payment_intent"):
        data["payment_intent"] = payments.public(StripeObject.objects.get(pk=data["payment_intent"]).data)
    return data


def _unexpected(err: payments.Unexpected) -> ApiError:
    return ApiError(400, err.message, code=err.code)


@api("POST")
def sessions(request: HttpRequest, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    if params.get("mode") != "payment":
        raise ApiError(400, "The payment sandbox supports mode=payment only.", param="mode")
    if not params.get("success_url"):
        raise ApiError(400, "Missing required param: success_url.", code="parameter_missing", param="success_url")
    customer_id = params.get("customer")
    if customer_id and params.get("customer_email"):
        raise ApiError(400, "You may only specify one of these parameters: customer, customer_email.", param="customer")
    if customer_id and not StripeObject.objects.filter(pk=customer_id, object="customer", api_key=key).exists():
        raise ApiError(400, f"No such customer: '{customer_id}'", code="resource_missing", param="customer")
    items = params.get("line_items")
    if not isinstance(items, list) or not items:
        raise ApiError(400, "Missing required param: line_items.", code="parameter_missing", param="line_items")
    amount, currencies, shown_items = 0, set(), []
    for index, item in enumerate(items):
        price = item.get("price_data") if isinstance(item, dict) else None
        name = f"line_items[{index}][price_data]"
        if not isinstance(price, dict) or not (price.get("product_data") or {}).get("name"):
            raise ApiError(
                400, f"Missing required param: {name} (with product_data[name]).", code="parameter_missing", param=name
            )
        unit = _int(price, "unit_amount", required=True)
        quantity = _int(item, "quantity", required=True)
        if unit < 0 or quantity < 1:
            raise ApiError(400, "unit_amount must be 0 or more and quantity at least 1.", param=name)
        currencies.add(str(price.get("currency", "")).lower())
        amount += unit * quantity
        shown_items.append(
            {"description": price["product_data"]["name"], "amount_total": unit * quantity, "quantity": quantity}
        )
    if len(currencies) != 1 or not next(iter(currencies)):
        raise ApiError(400, "All line items must have one and the same currency.", param="line_items")
    session_id = f"cs_test_{objects.new_id('x')[2:]}"
    url = request.build_absolute_uri(reverse("stripe_api:pay", args=[session_id]))
    data = objects.checkout_session(
        params=params, amount=amount, currency=currencies.pop(), url=url, session_id=session_id
    )
    data["_payment_intent_data"] = params.get("payment_intent_data") or {}
    data["_line_items"] = shown_items
    StripeObject.objects.create(id=session_id, object="checkout.session", data=data, api_key=key)
    return 200, payments.public(data)


@api("GET")
def session(request: HttpRequest, session_id: str, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    return 200, _shown(_get(key, session_id, "checkout.session"), params)


@api("POST")
def session_expire(request: HttpRequest, session_id: str, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    row = _get(key, session_id, "checkout.session", lock=True)
    try:
        payments.expire(session=row)
    except payments.Unexpected as err:
        raise _unexpected(err) from err
    return 200, _shown(row, params)


@api("GET")
def intent(request: HttpRequest, intent_id: str, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    return 200, _shown(_get(key, intent_id, "payment_intent"), params)


@api("POST")
def intent_capture(request: HttpRequest, intent_id: str, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    row = _get(key, intent_id, "payment_intent", lock=True)
    try:
        payments.capture(intent=row, amount_to_capture=_int(params, "amount_to_capture"))
    except payments.Unexpected as err:
        raise _unexpected(err) from err
    setup = Setup.current()
    if setup.timeout_after_capture:
        # The capture is committed; only its answer is held, past any sensible client timeout.
        after.append(lambda: time.sleep(setup.timeout_seconds))
    return 200, _shown(row, params)


@api("POST")
def intent_cancel(request: HttpRequest, intent_id: str, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    row = _get(key, intent_id, "payment_intent", lock=True)
    try:
        payments.cancel(intent=row, reason=params.get("cancellation_reason"))
    except payments.Unexpected as err:
        raise _unexpected(err) from err
    return 200, _shown(row, params)


@api("POST")
def refunds(request: HttpRequest, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    intent_id = params.get("payment_intent")
    if not intent_id:
        raise ApiError(400, "Missing required param: payment_intent.", code="parameter_missing", param="payment_intent")
    row = _get(key, intent_id, "payment_intent", lock=True)
    try:
        made = payments.refund(
            intent=row,
            amount=_int(params, "amount"),
            metadata=params.get("metadata") or {},
            reason=params.get("reason"),
        )
    except payments.Unexpected as err:
        raise _unexpected(err) from err
    return 200, made.data


@api("GET")
def refund(request: HttpRequest, refund_id: str, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    return 200, _get(key, refund_id, "refund").data


def not_found(request: HttpRequest, rest: str) -> HttpResponse:
    body = {
        "error": {
            "type": "invalid_request_error",
            "message": f"Unrecognized request URL ({request.method}: {request.path}).",
        }
    }
    return HttpResponse(json.dumps(body), status=404, content_type="application/json")


# --- Customers and their saved payment methods ------------------------------------------------------------------


@api("POST")
def customers(request: HttpRequest, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    data = objects.customer(email=params.get("email"), name=params.get("name"), metadata=params.get("metadata") or {})
    StripeObject.objects.create(id=data["id"], object="customer", data=data, api_key=key)
    return 200, data


@api("GET")
def customer(request: HttpRequest, customer_id: str, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    return 200, _get(key, customer_id, "customer").data


@api("GET")
def payment_method(request: HttpRequest, method_id: str, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    return 200, payments.public(_get(key, method_id, "payment_method").data)


@api("POST")
def payment_method_detach(
    request: HttpRequest, method_id: str, *, key: str, params: dict, after: list
) -> tuple[int, dict]:
    row = _get(key, method_id, "payment_method", lock=True)
    if row.data["customer"] is None:
        raise ApiError(
            400,
            f"The payment method {method_id} is not attached to a customer so detachment is impossible.",
            code="payment_method_unexpected_state",
        )
    row.data["customer"] = None
    payments.save(row)
    return 200, payments.public(row.data)


def _truthy(value: object) -> bool:
    return str(value).lower() in ("true", "1")


@api("POST")
def intents(request: HttpRequest, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    """Create a payment intent; with `confirm=true` and a saved `payment_method` it is charged at once (off-session
    when `off_session=true`, the customer not being there to pass an authentication step)."""
    amount = _int(params, "amount", required=True)
    currency = str(params.get("currency") or "").lower()
    if not currency:
        raise ApiError(400, "Missing required param: currency.", code="parameter_missing", param="currency")
    if amount is None or amount < 1:
        raise ApiError(400, "Amount must be at least 1.", code="amount_too_small", param="amount")
    customer_id = params.get("customer") or None
    if customer_id:
        _get(key, customer_id, "customer")
    capture_method = params.get("capture_method") or "automatic_async"
    data = objects.payment_intent(
        amount=amount,
        currency=currency,
        capture_method=capture_method,
        metadata=params.get("metadata") or {},
        description=params.get("description"),
        customer=customer_id,
    )
    row = StripeObject.objects.create(id=data["id"], object="payment_intent", data=data, api_key=key)
    if not _truthy(params.get("confirm")):
        return 200, payments.public(row.data)
    method_id = params.get("payment_method")
    if not method_id:
        raise ApiError(
            400,
            "You cannot confirm this PaymentIntent because it's missing a payment method.",
            code="payment_intent_unexpected_state",
            param="payment_method",
        )
    method = _get(key, method_id, "payment_method")
    if method.data["customer"] != customer_id:
        raise ApiError(
            400,
            f"The provided PaymentMethod was previously used without being attached to a Customer or was detached "
            f"from a Customer, and may not be used again (or it belongs to another Customer than {customer_id}).",
            code="payment_method_unexpected_state" if method.data["customer"] is None else "resource_missing",
            param="payment_method",
        )
    try:
        payments.confirm_off_session(intent=row, method=method, off_session=_truthy(params.get("off_session")))
    except payments.CardRefused as err:
        extra = {key: value for key, value in err.error.items() if key not in ("type", "message", "code")}
        raise ApiError(402, err.error["message"], type="card_error", code=err.error["code"], extra=extra) from err
    return 200, payments.public(row.data)
