"""The parameters each endpoint takes, and Stripe's refusal of any other (`parameter_unknown`).

A parameter Stripe has but the sandbox does not implement is refused the same way: better a clear 400 than a
parameter silently ignored, which the storefront would then believe works. Enumerations are checked too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class ParamError(Exception):
    def __init__(self, message: str, param: str, code: str = "parameter_invalid") -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code


@dataclass(frozen=True)
class Choice:
    values: tuple[str, ...]


@dataclass(frozen=True)
class ValueOr:
    """One value, or an object of this schema (`created=123` or `created[gte]=123`)."""

    schema: dict[str, Any]


VALUE = "value"  # one string (numbers and booleans travel as strings)
MAP = "map"  # free keys with string values (metadata)
BOOL = Choice(("true", "false"))
Schema = dict[str, Any]


def check(params: dict, schema: Schema, prefix: str = "") -> None:
    """Raise ParamError for the first parameter the schema does not have, or whose shape or value is wrong."""
    for key, value in params.items():
        name = f"{prefix}[{key}]" if prefix else key
        if key not in schema and not (not prefix and key == "expand"):
            raise ParamError(f"Received unknown parameter: {name}", name, "parameter_unknown")
        _check_value(value, schema.get(key, [VALUE]), name)


def _check_value(value: Any, expected: Any, name: str) -> None:
    if expected == VALUE:
        if isinstance(value, dict | list):
            raise ParamError(f"Invalid string: {name} takes one value, not an object or a list.", name)
    elif expected == MAP:
        if value == "":  # `metadata=` clears it
            return
        if not isinstance(value, dict) or any(isinstance(item, dict | list) for item in value.values()):
            raise ParamError("Invalid object", name)
    elif isinstance(expected, ValueOr):
        if isinstance(value, dict):
            check(value, expected.schema, name)
        else:
            _check_value(value, VALUE, name)
    elif isinstance(expected, Choice):
        if value not in expected.values:
            if expected is BOOL:
                raise ParamError(f"Invalid boolean: {value}", name)
            raise ParamError(f"Invalid {name}: must be one of {', '.join(expected.values)}", name)
    elif isinstance(expected, list):
        if not isinstance(value, list):
            raise ParamError("Invalid array", name)
        for index, item in enumerate(value):
            _check_value(item, expected[0], f"{name}[{index}]")
    elif not isinstance(value, dict):
        raise ParamError("Invalid object", name)
    else:
        check(value, expected, name)


_CAPTURE_METHOD = Choice(("automatic", "automatic_async", "manual"))
_IF_AVAILABLE = Choice(("if_available", "never"))
_SETUP_FUTURE_USAGE = Choice(("off_session", "on_session"))

SESSION_CREATE: Schema = {
    "mode": Choice(("payment", "setup")),
    "success_url": VALUE,
    "cancel_url": VALUE,
    "client_reference_id": VALUE,
    "customer": VALUE,
    "customer_email": VALUE,
    "customer_creation": Choice(("always", "if_required")),
    "currency": VALUE,
    "expires_at": VALUE,
    "locale": VALUE,
    "metadata": MAP,
    "line_items": [
        {
            "quantity": VALUE,
            "tax_rates": [VALUE],
            "price_data": {
                "currency": VALUE,
                "unit_amount": VALUE,
                "product_data": {"name": VALUE, "description": VALUE, "metadata": MAP},
            },
        }
    ],
    "payment_intent_data": {
        "capture_method": _CAPTURE_METHOD,
        "description": VALUE,
        "metadata": MAP,
        "receipt_email": VALUE,
        "setup_future_usage": _SETUP_FUTURE_USAGE,
        "statement_descriptor": VALUE,
        "statement_descriptor_suffix": VALUE,
    },
    "setup_intent_data": {"description": VALUE, "metadata": MAP},
    "payment_method_types": [VALUE],
    "allowed_payment_method_types": [VALUE],
    "payment_method_options": {
        "card": {
            "capture_method": Choice(("manual",)),
            "request_extended_authorization": _IF_AVAILABLE,
            "request_incremental_authorization": _IF_AVAILABLE,
            "request_multicapture": _IF_AVAILABLE,
            "request_overcapture": _IF_AVAILABLE,
            "request_three_d_secure": Choice(("any", "automatic", "challenge")),
            "setup_future_usage": _SETUP_FUTURE_USAGE,
        },
    },
    "adaptive_pricing": {"enabled": BOOL},
    # The pinned API version's name of Stripe's own page (earlier versions called it `hosted`).
    "ui_mode": Choice(("hosted_page",)),
}
INTENT_CREATE: Schema = {
    "amount": VALUE,
    "currency": VALUE,
    "customer": VALUE,
    "payment_method": VALUE,
    "confirm": BOOL,
    "off_session": BOOL,
    "capture_method": _CAPTURE_METHOD,
    "description": VALUE,
    "metadata": MAP,
    "receipt_email": VALUE,
    "setup_future_usage": _SETUP_FUTURE_USAGE,
    # The current API version's ways to keep a confirm from needing a redirect (sandbox/stripe_api/intent_methods.py).
    "allowed_payment_method_types": [VALUE],
    "automatic_payment_methods": {"enabled": BOOL, "allow_redirects": Choice(("always", "never"))},
    "return_url": VALUE,
}
INTENT_CAPTURE: Schema = {"amount_to_capture": VALUE, "metadata": MAP}
INTENT_CANCEL: Schema = {
    "cancellation_reason": Choice(("abandoned", "duplicate", "fraudulent", "requested_by_customer")),
}
REFUND_CREATE: Schema = {
    "payment_intent": VALUE,
    "charge": VALUE,
    "amount": VALUE,
    "metadata": MAP,
    "reason": Choice(("duplicate", "fraudulent", "requested_by_customer")),
}
CUSTOMER_CREATE: Schema = {"email": VALUE, "name": VALUE, "description": VALUE, "phone": VALUE, "metadata": MAP}
TAX_RATE_CREATE: Schema = {
    "display_name": VALUE,
    "percentage": VALUE,
    "inclusive": BOOL,
    "active": BOOL,
    "country": VALUE,
    "state": VALUE,
    "jurisdiction": VALUE,
    "description": VALUE,
    "metadata": MAP,
    "tax_type": VALUE,
}
TAX_RATE_LIST: Schema = {
    "active": BOOL,
    "inclusive": BOOL,
    "limit": VALUE,
    "starting_after": VALUE,
    "ending_before": VALUE,
}
_RANGE = {"gt": VALUE, "gte": VALUE, "lt": VALUE, "lte": VALUE}
EVENT_LIST: Schema = {
    "type": VALUE,
    "types": [VALUE],
    "created": ValueOr(_RANGE),
    "limit": VALUE,
    "starting_after": VALUE,
    "ending_before": VALUE,
    "delivery_success": BOOL,
}
WEBHOOK_ENDPOINT_CREATE: Schema = {
    "url": VALUE,
    "enabled_events": [VALUE],
    "description": VALUE,
    "metadata": MAP,
    "api_version": VALUE,
    "connect": BOOL,
}
WEBHOOK_ENDPOINT_LIST: Schema = {"limit": VALUE, "starting_after": VALUE, "ending_before": VALUE}
NONE: Schema = {}  # retrieve, expire, detach: `expand` only
