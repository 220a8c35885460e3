"""Customers and detaching their saved PaymentMethods."""

from __future__ import annotations

from django.http import HttpRequest

from sandbox.stripe_api import objects, parameters
from sandbox.stripe_api.models import StripeObject
from sandbox.stripe_api.views.base import ApiError, api, get_object, shown


@api("POST", schema=parameters.CUSTOMER_CREATE)
def customers(request: HttpRequest, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    data = objects.customer(email=params.get("email"), name=params.get("name"), metadata=params.get("metadata") or {})
    data.update(description=params.get("description"), phone=params.get("phone"))
    return 200, shown(StripeObject.make(data, api_key=key), params, key)


@api("POST")
def payment_method_detach(
    request: HttpRequest, method_id: str, *, key: str, params: dict, after: list
) -> tuple[int, dict]:
    row = get_object(key, method_id, "payment_method", lock=True)
    if row.data["customer"] is None:
        raise ApiError(
            400,
            f"The payment method {method_id} is not attached to a customer so detachment is impossible.",
            code="payment_method_unexpected_state",
        )
    row.data["customer"] = None
    row.save_data()
    return 200, shown(row, params, key)
