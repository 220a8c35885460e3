"""What the payment sandbox's tests share: Stripe's wire format through Django's test client, a standard session,
paying on the hosted page, the official SDK pointed at a live server, the control endpoint."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import urlencode

import stripe
from django.conf import settings
from django.test import Client, override_settings

from sandbox.stripe_api.models import Setup

KEY = "sk_test_sandbox_payments"
WEBHOOK_SECRET = "whsec_x"
GOOD_CARD = "4242424242424242"
MASTERCARD = "5555555555554444"

SESSION = {
    "mode": "payment",
    "success_url": "https://shop.example/checkout/done/?session_id={CHECKOUT_SESSION_ID}",
    "cancel_url": "https://shop.example/checkout/",
    "client_reference_id": "chk-1",
    "metadata[checkout_id]": "chk-1",
    "payment_intent_data[capture_method]": "manual",
    "line_items[0][price_data][currency]": "usd",
    "line_items[0][price_data][unit_amount]": "1299",
    "line_items[0][price_data][product_data][name]": "example.com, 1 year",
    "line_items[0][quantity]": "1",
    "line_items[1][price_data][currency]": "usd",
    "line_items[1][price_data][unit_amount]": "2500",
    "line_items[1][price_data][product_data][name]": "example.net, 2 years",
    "line_items[1][quantity]": "1",
}


class Api:
    """Stripe's wire format: a bearer key and form-encoded bodies."""

    def __init__(self, key: str = KEY) -> None:
        self.client = Client()
        self.key = key

    def post(self, path: str, form: dict, idempotency_key: str = ""):
        headers = {"Authorization": f"Bearer {self.key}"}
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        return self.client.post(
            f"/stripe/v1/{path}", urlencode(form), content_type="application/x-www-form-urlencoded", headers=headers
        )

    def get(self, path: str, query: str = ""):
        return self.client.get(f"/stripe/v1/{path}?{query}", headers={"Authorization": f"Bearer {self.key}"})


def session(api: Api, **extra: str) -> dict:
    response = api.post("checkout/sessions", {**SESSION, **extra})
    assert response.status_code == 200, response.content
    return response.json()


def page_path(session: dict) -> str:
    """The hosted page's path (its URL names the test server or the live server)."""
    return "/" + session["url"].split("://", 1)[1].split("/", 1)[1]


def pay(session: dict, card: str = GOOD_CARD, **form: str):
    """Submit the hosted page with this card (or `method="link"`)."""
    return Client().post(page_path(session), {"card_number": card, **form})


def authorised(api: Api, card: str = GOOD_CARD, **extra: str) -> dict:
    """A session paid with a good card: its payment intent, read back."""
    made = session(api, **extra)
    assert pay(made, card).status_code == 302
    intent_id = api.get(f"checkout/sessions/{made['id']}").json()["payment_intent"]
    return api.get(f"payment_intents/{intent_id}").json()


def sdk(live_server, key: str = KEY) -> stripe.StripeClient:
    return stripe.StripeClient(key, base_addresses={"api": f"{live_server.url}/stripe"}, max_network_retries=0)


CONTROL_URLCONFS = ("sandbox.tests.urls_with_control", "sandbox.tests.urls_with_webhook_receiver")


def _control_call(method: str, path: str, body: dict | None) -> Any:
    if method == "GET":
        return Client().get(f"/_control/stripe/{path}", body or {})
    return getattr(Client(), method.lower())(
        f"/_control/stripe/{path}", json.dumps(body or {}), content_type="application/json"
    )


def control(method: str, path: str, body: dict | None = None, *, status: int = 200) -> Any:
    """The test-only control endpoint (the tests' URLs mount it); the answer must have this status.

    The URLs are swapped for the call only when the test's own do not mount it: settings are the whole process's,
    and a delivery the live server receives meanwhile (another thread) must still find the webhook receiver."""
    if settings.ROOT_URLCONF in CONTROL_URLCONFS:
        response = _control_call(method, path, body)
    else:
        with override_settings(ROOT_URLCONF="sandbox.tests.urls_with_control"):
            response = _control_call(method, path, body)
    assert response.status_code == status, response.content
    return response.json()


def saved_card(api: Api, card: str = GOOD_CARD) -> tuple[str, str]:
    """A Customer who paid on the hosted page with setup_future_usage: (customer id, saved payment method id)."""
    customer = api.post("customers", {"email": "ada@example.org"}).json()["id"]
    intent = authorised(api, card, customer=customer, **{"payment_intent_data[setup_future_usage]": "off_session"})
    return customer, intent["payment_method"]


def charge_off_session(api: Api, customer: str, method: str, amount: int = 2599, **extra: str):
    return api.post(
        "payment_intents",
        {
            "amount": str(amount),
            "currency": "usd",
            "customer": customer,
            "payment_method": method,
            "confirm": "true",
            "off_session": "true",
            "capture_method": "manual",
            "allowed_payment_method_types[0]": "card",
            **extra,
        },
    )


def charge_of(api: Api, intent: dict) -> dict:
    response = api.get(f"charges/{intent['latest_charge']}")
    assert response.status_code == 200, response.content
    return response.json()


def receiving(live_server, settings, *, delivery: str = "normal") -> list[tuple[str, str]]:
    """Point the webhook at a receiver in the live server: what it gets, (payload, Stripe-Signature) each."""
    from sandbox.tests import urls_with_webhook_receiver

    received: list[tuple[str, str]] = []
    settings.ROOT_URLCONF = "sandbox.tests.urls_with_webhook_receiver"
    urls_with_webhook_receiver.RECEIVED = received
    Setup.objects.update_or_create(
        pk=1,
        defaults={
            "webhook_url": f"{live_server.url}/receiver",
            "webhook_secret": WEBHOOK_SECRET,
            "webhook_delivery": delivery,
        },
    )
    return received


def wait_for(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the webhook thread did not deliver in time"
        time.sleep(0.05)
