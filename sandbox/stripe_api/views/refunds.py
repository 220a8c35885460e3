"""Refunds of captured payments, named by their payment intent or their charge."""

from __future__ import annotations

from django.http import HttpRequest

from sandbox.stripe_api import parameters
from sandbox.stripe_api import refunds as refunding
from sandbox.stripe_api.views.base import ApiError, api, get_object, integer, shown


@api("POST", schema=parameters.REFUND_CREATE)
def refunds(request: HttpRequest, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    """Refund a captured payment, named by its `payment_intent` or its `charge`."""
    if params.get("payment_intent") and params.get("charge"):
        raise ApiError(400, "You may only specify one of these parameters: charge, payment_intent.", param="charge")
    if params.get("charge"):
        found = get_object(key, params["charge"], "charge", lock=True, param="charge")
    elif params.get("payment_intent"):
        intent = get_object(key, params["payment_intent"], "payment_intent", lock=True, param="payment_intent")
        if intent.data["status"] != "succeeded":
            raise ApiError(
                400,
                f"This PaymentIntent has a status of {intent.data['status']}: there is no charge to refund.",
                code="charge_not_refundable",
            )
        found = get_object(key, intent.data["latest_charge"], "charge", lock=True)
    else:
        raise ApiError(
            400, "Missing required param: payment_intent (or charge).", code="parameter_missing", param="payment_intent"
        )
    made = refunding.create(
        charge=found,
        amount=integer(params, "amount"),
        metadata=params.get("metadata") or {},
        reason=params.get("reason"),
    )
    return 200, shown(made, params, key)
