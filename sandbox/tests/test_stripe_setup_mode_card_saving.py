"""Checkout in setup mode as a storefront uses it to save a card without buying: the card restricted with
`allowed_payment_method_types` beside a currency, metadata on the session and on its SetupIntent, the same session
for a repeated idempotency key, and the saved card read in one call (`expand[]=setup_intent.payment_method`)."""

from __future__ import annotations

import pytest
from django.test import Client

from sandbox.tests.stripe_helpers import Api, page_path

pytestmark = pytest.mark.django_db


def _form(customer: str) -> dict[str, str]:
    return {
        "mode": "setup",
        "customer": customer,
        "currency": "usd",
        "allowed_payment_method_types[0]": "card",
        "success_url": "https://shop.example/payments/card/added/?session_id={CHECKOUT_SESSION_ID}",
        "cancel_url": "https://shop.example/account/",
        "metadata[purpose]": "card_setup",
        "setup_intent_data[metadata][purpose]": "card_setup",
    }


def test_a_repeated_key_answers_the_same_setup_session_and_the_card_is_read_in_one_call():
    api = Api()
    customer = api.post("customers", {"email": "ada@example.org"}, idempotency_key="c-1").json()["id"]
    made = api.post("checkout/sessions", _form(customer), idempotency_key="setup-1").json()
    again = api.post("checkout/sessions", _form(customer), idempotency_key="setup-1").json()
    assert again["id"] == made["id"]
    assert (made["mode"], made["payment_method_types"]) == ("setup", ["card"])
    assert made["metadata"] == {"purpose": "card_setup"}

    assert Client().post(page_path(made), {"card_number": "5555 5555 5555 4444"}).status_code == 302
    read = api.get(f"checkout/sessions/{made['id']}", "expand[]=setup_intent.payment_method").json()

    intent = read["setup_intent"]
    assert (read["status"], intent["status"]) == ("complete", "succeeded")
    assert intent["metadata"] == {"purpose": "card_setup"}
    method = intent["payment_method"]
    assert (method["customer"], method["card"]["brand"], method["card"]["last4"]) == (customer, "mastercard", "4444")


def test_a_setup_session_that_is_not_finished_has_no_setup_intent_to_expand():
    api = Api()
    customer = api.post("customers", {"email": "ada@example.org"}, idempotency_key="c-2").json()["id"]
    made = api.post("checkout/sessions", _form(customer), idempotency_key="setup-2").json()

    read = api.get(f"checkout/sessions/{made['id']}", "expand[]=setup_intent.payment_method").json()

    assert (read["status"], read["setup_intent"]) == ("open", None)
