"""Tax Rates (applied to Checkout line items with `tax_rates[]`): create, and list (filtered by `active`,
`inclusive`) as a store finds the rate it made before."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django.http import HttpRequest

from sandbox.stripe_api import objects, parameters
from sandbox.stripe_api.models import StripeObject
from sandbox.stripe_api.views.base import ApiError, api, by_method, object_list, shown, truthy


def _percentage(value: object) -> float:
    try:
        percentage = Decimal(str(value))
    except InvalidOperation as err:
        raise ApiError(400, f"Invalid decimal: {value}", code="parameter_invalid", param="percentage") from err
    # Stripe: "a number (up to 4 decimal places)", between 0 and 100.
    if not 0 <= percentage <= 100 or percentage != percentage.quantize(Decimal("0.0001")):
        raise ApiError(400, "percentage must be between 0 and 100, with up to 4 decimal places.", param="percentage")
    return float(percentage)


@api("POST", schema=parameters.TAX_RATE_CREATE)
def _create(request: HttpRequest, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    for required in ("display_name", "inclusive", "percentage"):
        if params.get(required) in (None, ""):
            raise ApiError(400, f"Missing required param: {required}.", code="parameter_missing", param=required)
    data = objects.tax_rate(
        params=params, percentage=_percentage(params["percentage"]), inclusive=truthy(params["inclusive"])
    )
    return 200, shown(StripeObject.make(data, api_key=key), params, key)


@api("GET", schema=parameters.TAX_RATE_LIST)
def _list(request: HttpRequest, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    filters = {f"data__{name}": truthy(params[name]) for name in ("active", "inclusive") if name in params}
    return 200, object_list(key, "tax_rate", params, url="/v1/tax_rates", **filters)


tax_rates = by_method(GET=_list, POST=_create)
