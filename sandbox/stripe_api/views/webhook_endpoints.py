"""Webhook endpoints: create, list, retrieve, delete, as Stripe's Dashboard and API keep them per account.

What a store's go-live check reads (`GET /v1/webhook_endpoints`): which URLs receive which event types. Every
endpoint's `secret` is the sandbox's one signing secret (the setup's), shown on create only as Stripe does; the
sandbox delivers its events to the setup's webhook URL (SANDBOX_STRIPE_WEBHOOK_URL), not to each endpoint.
"""

from __future__ import annotations

from django.http import HttpRequest

from sandbox.stripe_api import objects, parameters
from sandbox.stripe_api.clock import now
from sandbox.stripe_api.models import Setup, StripeObject
from sandbox.stripe_api.views.base import ApiError, api, by_method, get_object, object_list

# Stripe's limit of endpoints per account (per mode).
MAX_ENDPOINTS = 16


def _endpoint(params: dict) -> dict:
    url = str(params.get("url") or "")
    if not url:
        raise ApiError(400, "Missing required param: url.", code="parameter_missing", param="url")
    if not url.startswith(("https://", "http://")):
        raise ApiError(400, f"Invalid URL: {url}. The URL must begin with https:// or http://.", param="url")
    events = params.get("enabled_events")
    if not events:
        raise ApiError(400, "Missing required param: enabled_events.", code="parameter_missing", param="enabled_events")
    return {
        "id": objects.new_id("we"),
        "object": "webhook_endpoint",
        "api_version": params.get("api_version") or objects.API_VERSION,
        "application": None,
        "created": now(),
        "description": params.get("description") or None,
        "enabled_events": list(dict.fromkeys(events)),
        "livemode": False,
        "metadata": params.get("metadata") or {},
        "status": "enabled",
        "url": url,
    }


@api("POST", schema=parameters.WEBHOOK_ENDPOINT_CREATE)
def _create(request: HttpRequest, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    if StripeObject.objects.filter(object="webhook_endpoint", api_key=key).count() >= MAX_ENDPOINTS:
        raise ApiError(400, f"You have reached the maximum of {MAX_ENDPOINTS} test webhook endpoints.")
    row = StripeObject.make(_endpoint(params), api_key=key)
    # Like Stripe, the signing secret is in the answer to create only.
    return 200, {**row.data, "secret": Setup.current().webhook_secret}


@api("GET", schema=parameters.WEBHOOK_ENDPOINT_LIST)
def _list(request: HttpRequest, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    return 200, object_list(key, "webhook_endpoint", params, url="/v1/webhook_endpoints")


webhook_endpoints = by_method(GET=_list, POST=_create)


@api("GET", "DELETE")
def webhook_endpoint(
    request: HttpRequest, endpoint_id: str, *, key: str, params: dict, after: list
) -> tuple[int, dict]:
    row = get_object(key, endpoint_id, "webhook_endpoint")
    if request.method == "GET":
        return 200, row.data
    row.delete()
    return 200, {"id": endpoint_id, "object": "webhook_endpoint", "deleted": True}
