"""The store's webhook endpoint at Stripe: which endpoint (if any) sends this store's `SITE_URL` every event type it
handles, and registering one (bin/run does, against the payment sandbox; an operator may, against Stripe)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.urls import reverse

from billing.payments import stripe_client
from billing.payments.webhooks import HANDLED_EVENTS

if TYPE_CHECKING:  # types only: the calls go through billing.payments.stripe_client
    from stripe.params import WebhookEndpointCreateParams, WebhookEndpointListParams

# Endpoints per account are few (Stripe allows 16 per mode); past this many pages the rest are not read.
_PAGES = 5


@dataclass(frozen=True)
class EndpointFound:
    url: str  # where this store receives Stripe's events
    endpoint_id: str  # "" when no endpoint sends there
    missing: tuple[str, ...]  # handled event types the endpoint does not send (all of them when none)


def store_webhook_url() -> str:
    return f"{settings.SITE_URL}{reverse('billing:stripe_webhook')}"


def store_endpoint_find() -> EndpointFound:
    """The enabled endpoint that sends this store's URL the most of the event types it handles. Raises PaymentError
    when Stripe cannot be asked."""
    url = store_webhook_url()
    best = EndpointFound(url=url, endpoint_id="", missing=HANDLED_EVENTS)
    params: WebhookEndpointListParams = {"limit": 100}
    for _ in range(_PAGES):
        page = stripe_client.call(
            "webhook endpoint list", lambda client: client.v1.webhook_endpoints.list(params=params)
        )
        for endpoint in page.data:
            if endpoint.url.rstrip("/") != url.rstrip("/") or endpoint.status != "enabled":
                continue
            sent = set(endpoint.enabled_events)
            missing = () if "*" in sent else tuple(event for event in HANDLED_EVENTS if event not in sent)
            if not best.endpoint_id or len(missing) < len(best.missing):
                best = EndpointFound(url=url, endpoint_id=endpoint.id, missing=missing)
        if not page.has_more or not page.data:
            break
        params["starting_after"] = page.data[-1].id
    return best


def store_endpoint_register() -> EndpointFound:
    """An endpoint for this store's URL with every handled event type, unless one already sends them all."""
    found = store_endpoint_find()
    if found.endpoint_id and not found.missing:
        return found
    params: WebhookEndpointCreateParams = {
        "url": found.url,
        # The SDK types these as Stripe's literal event names; HANDLED_EVENTS are such names, kept as strings.
        "enabled_events": cast("Any", list(HANDLED_EVENTS)),
        "description": f"{settings.STORE_NAME} storefront",
    }
    created = stripe_client.call(
        "webhook endpoint create",
        lambda client: client.v1.webhook_endpoints.create(
            params=params, options={"idempotency_key": f"webhook-endpoint-{found.url}-{len(HANDLED_EVENTS)}"}
        ),
        changes_state=True,
    )
    return EndpointFound(url=found.url, endpoint_id=created.id, missing=())
