"""Checkout Sessions: create (payment or setup mode), retrieve, list their line items, expire."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse

from sandbox.stripe_api import currencies, objects, parameters, payments, taxes
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

# The payment methods the hosted page offers: cards, and Link when the session does not restrict it to cards.
METHOD_TYPES = ("card", "link")


def _missing(param: str, why: str = "") -> ApiError:
    return ApiError(400, f"Missing required param: {param}.{why}", code="parameter_missing", param=param)


def _allowed_methods(params: dict) -> list[str] | None:
    """Which parameter restricts the payment methods (`allowed_payment_method_types` in the SDK's API version,
    `payment_method_types` in earlier ones; both are taken, the older one not in strict mode) and to what; None:
    not restricted."""
    if "payment_method_types" in params and Setup.current().strict:
        raise ApiError(
            400,
            "Received unknown parameter: payment_method_types (the API version 2026-10-28.endive names it "
            "allowed_payment_method_types).",
            code="parameter_unknown",
            param="payment_method_types",
        )
    given = [name for name in ("allowed_payment_method_types", "payment_method_types") if name in params]
    if len(given) > 1:
        raise ApiError(400, f"You may only specify one of these parameters: {', '.join(given)}.", param=given[0])
    if not given:
        return None
    name, methods = given[0], params[given[0]]
    if not methods:
        raise ApiError(400, f"Invalid array: {name} must name at least one payment method type.", param=name)
    for index, method in enumerate(methods):
        if method not in METHOD_TYPES:
            raise ApiError(
                400,
                f"The payment method type provided: {method} is invalid. The payment sandbox offers "
                f"{' and '.join(METHOD_TYPES)} only.",
                code="parameter_invalid",
                param=f"{name}[{index}]",
            )
    return list(dict.fromkeys(methods))


def _card_options(params: dict, *, manual: bool, mode: str) -> dict:
    card = dict((params.get("payment_method_options") or {}).get("card") or {})
    name = "payment_method_options[card][request_extended_authorization]"
    if "request_extended_authorization" in card and (mode != "payment" or not manual):
        raise ApiError(
            400,
            "request_extended_authorization is only available in payment mode with capture_method=manual.",
            param=name,
        )
    return {"card": card} if card else {}


def _tax_rates(key: str, ids: list[str], index: int) -> list[dict]:
    rates = []
    for position, rate_id in enumerate(ids):
        param = f"line_items[{index}][tax_rates][{position}]"
        rate = get_object(key, rate_id, "tax_rate", param=param).data
        if not rate["active"]:
            raise ApiError(400, f"Tax rate {rate_id} is archived (inactive): it cannot be applied.", param=param)
        rates.append(objects.public(rate))
    return rates


def _priced_lines(key: str, items: Any) -> tuple[str, list[dict], list[taxes.TaxedLine]]:
    """The line items checked, priced and taxed: (currency, line items, taxed lines)."""
    if not isinstance(items, list) or not items:
        raise _missing("line_items")
    found_currencies, lines, taxed = set(), [], []
    for index, item in enumerate(items):
        price = item.get("price_data")
        name = f"line_items[{index}][price_data]"
        if not isinstance(price, dict) or not (price.get("product_data") or {}).get("name"):
            raise _missing(name, " (with product_data[name])")
        currency = check_currency(str(price.get("currency", "")), param=f"{name}[currency]")
        unit = integer(price, "unit_amount", required=True, shown_as=f"{name}[unit_amount]")
        quantity = integer(item, "quantity", required=True, shown_as=f"line_items[{index}][quantity]")
        if unit is None or quantity is None or unit < 0 or quantity < 1:
            raise ApiError(400, "unit_amount must be 0 or more and quantity at least 1.", param=name)
        check_amount(unit, currency, param=f"{name}[unit_amount]")
        line = taxes.taxed(
            amount=unit * quantity, currency=currency, rates=_tax_rates(key, item.get("tax_rates") or [], index)
        )
        totals = {"amount_subtotal": line.amount, "amount_tax": line.amount_tax, "amount_total": line.amount_total}
        lines.append(
            objects.line_item(
                description=price["product_data"]["name"],
                quantity=quantity,
                unit_amount=unit,
                currency=currency,
                totals={**totals, "taxes": line.taxes},
            )
        )
        found_currencies.add(currency)
        taxed.append(line)
    if len(found_currencies) != 1:
        raise ApiError(400, "All line items must have one and the same currency.", param="line_items")
    return found_currencies.pop(), lines, taxed


def _payment_session(key: str, params: dict) -> dict[str, Any]:
    currency, lines, taxed = _priced_lines(key, params.get("line_items"))
    if params.get("currency") and params["currency"].lower() != currency:
        raise ApiError(400, "currency must be the line items' currency.", param="currency")
    subtotal = sum(line.amount for line in taxed)
    total = sum(line.amount_total for line in taxed)
    tax = sum(line.amount_tax for line in taxed)
    check_amount(total, currency, param="line_items")
    too_small = currencies.below_minimum(total, currency)
    if too_small and total > 0:
        raise ApiError(
            400,
            f"The Checkout Session's total amount due must add up to at least {too_small}.",
            code="amount_too_small",
            param="line_items",
        )
    intent_data = dict(params.get("payment_intent_data") or {})
    if ((params.get("payment_method_options") or {}).get("card") or {}).get("capture_method") == "manual":
        intent_data["capture_method"] = "manual"
    breakdown = {"discounts": [], "taxes": taxes.breakdown(taxed)}
    return {
        "currency": currency,
        "totals": (subtotal, total, tax),
        "manual": intent_data.get("capture_method") == "manual",
        "extra": {
            "_payment_intent_data": intent_data,
            "_expandable": {
                "line_items": {"object": "list", "data": lines, "has_more": False, "url": ""},
                "total_details.breakdown": breakdown,
            },
        },
    }


def _setup_session(params: dict, methods: list[str] | None) -> dict[str, Any]:
    for refused in ("line_items", "payment_intent_data"):
        if refused in params:
            raise ApiError(400, f"You can not pass `{refused}` in `setup` mode.", param=refused)
    currency = params.get("currency")
    if currency:
        currency = check_currency(currency)
    elif methods is None:
        raise _missing("currency", " In `setup` mode it is required when payment_method_types is not set.")
    return {
        "currency": currency,
        "totals": None,
        "manual": False,
        "extra": {"_setup_intent_data": params.get("setup_intent_data") or {}},
    }


@api("POST", schema=parameters.SESSION_CREATE)
def sessions(request: HttpRequest, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    mode = params.get("mode")
    if not mode:
        raise _missing("mode")
    if not params.get("success_url"):
        raise _missing("success_url")
    customer_id = params.get("customer")
    if customer_id and params.get("customer_email"):
        raise ApiError(400, "You may only specify one of these parameters: customer, customer_email.", param="customer")
    if customer_id and not StripeObject.objects.filter(pk=customer_id, object="customer", api_key=key).exists():
        raise ApiError(400, f"No such customer: '{customer_id}'", code="resource_missing", param="customer")
    if mode == "payment" and "setup_intent_data" in params:
        raise ApiError(400, "You can not pass `setup_intent_data` in `payment` mode.", param="setup_intent_data")
    methods = _allowed_methods(params)
    built = _setup_session(params, methods) if mode == "setup" else _payment_session(key, params)
    adaptive = params.get("adaptive_pricing") or {}
    session_id = f"cs_test_{objects.new_id('x')[2:]}"
    data = objects.checkout_session(
        params=params,
        session_id=session_id,
        url=request.build_absolute_uri(reverse("stripe_api:pay", args=[session_id])),
        currency=built["currency"],
        totals=built["totals"],
        offered=methods or list(METHOD_TYPES),
        allowed=methods if "allowed_payment_method_types" in params else None,
        options=_card_options(params, manual=built["manual"], mode=mode),
        # Stripe's default is the Dashboard's setting; the sandbox's "Dashboard" has it on. It converts nothing.
        adaptive_pricing=not ("enabled" in adaptive and not truthy(adaptive["enabled"])),
    )
    data.update(built["extra"])
    if "line_items" in data.get("_expandable", {}):
        data["_expandable"]["line_items"]["url"] = f"/v1/checkout/sessions/{session_id}/line_items"
    row = StripeObject.make(data, api_key=key, due_at=data["expires_at"])
    return 200, shown(row, params, key)


@api("GET")
def session_line_items(
    request: HttpRequest, session_id: str, *, key: str, params: dict, after: list
) -> tuple[int, dict]:
    row = get_object(key, session_id, "checkout.session")
    empty = {"object": "list", "data": [], "has_more": False, "url": f"/v1/checkout/sessions/{session_id}/line_items"}
    return 200, row.data.get("_expandable", {}).get("line_items") or empty


@api("POST")
def session_expire(request: HttpRequest, session_id: str, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    row = get_object(key, session_id, "checkout.session", lock=True)
    payments.expire(session=row)
    return 200, shown(row, params, key)
