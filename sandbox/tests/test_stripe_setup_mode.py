"""Checkout in setup mode: a customer saves a card without buying; a SetupIntent succeeds and the card is attached
to the Customer, and `checkout.session.completed` names the SetupIntent."""

from __future__ import annotations

import pytest
from django.test import Client

from sandbox.stripe_api.models import Event
from sandbox.tests.stripe_helpers import Api, charge_off_session, control, page_path, sdk

pytestmark = pytest.mark.django_db
ALWAYS_AUTHENTICATES = "4000002760003184"


@pytest.fixture
def api() -> Api:
    return Api()


def _setup_session(api: Api, **extra: str) -> tuple[str, dict]:
    customer = api.post("customers", {"email": "ada@example.org"}).json()["id"]
    form = {
        "mode": "setup",
        "customer": customer,
        "currency": "eur",
        "success_url": "https://shop.example/account/?s={CHECKOUT_SESSION_ID}",
        "setup_intent_data[metadata][purpose]": "auto-renew",
        **extra,
    }
    response = api.post("checkout/sessions", form)
    assert response.status_code == 200, response.content
    return customer, response.json()


def test_setup_mode_needs_a_currency_unless_the_methods_are_named_and_takes_no_line_items(api):
    base = {"mode": "setup", "success_url": "https://shop.example/"}
    missing = api.post("checkout/sessions", base).json()["error"]
    assert (missing["code"], missing["param"]) == ("parameter_missing", "currency")
    assert api.post("checkout/sessions", {**base, "payment_method_types[0]": "card"}).status_code == 200
    lines = {
        "line_items[0][price_data][currency]": "eur",
        "line_items[0][price_data][unit_amount]": "100",
        "line_items[0][price_data][product_data][name]": "a",
        "line_items[0][quantity]": "1",
    }
    assert api.post("checkout/sessions", {**base, "currency": "eur", **lines}).json()["error"]["param"] == "line_items"
    refused = api.post(
        "checkout/sessions", {**base, "currency": "eur", "payment_intent_data[capture_method]": "manual"}
    )
    assert refused.json()["error"]["param"] == "payment_intent_data"


def test_a_saved_card_is_attached_to_the_customer_and_the_session_names_its_setup_intent(api):
    customer, made = _setup_session(api)
    assert (made["mode"], made["payment_status"], made["amount_total"], made["setup_intent"]) == (
        "setup",
        "no_payment_required",
        None,
        None,
    )
    page = Client().get(page_path(made)).content.decode()
    assert "Save a card" in page and "Pay " not in page
    assert Client().post(page_path(made), {"card_number": "4242 4242 4242 4242"}).status_code == 302
    read = api.get(f"checkout/sessions/{made['id']}", "expand[]=setup_intent").json()
    assert read["status"] == "complete"
    intent = read["setup_intent"]
    assert intent["id"].startswith("seti_")
    assert (intent["status"], intent["customer"], intent["metadata"]) == (
        "succeeded",
        customer,
        {"purpose": "auto-renew"},
    )
    method = api.get(f"payment_methods/{intent['payment_method']}").json()
    assert (method["customer"], method["card"]["last4"]) == (customer, "4242")
    [completed] = Event.objects.filter(type="checkout.session.completed")
    assert completed.data["data"]["object"]["setup_intent"] == intent["id"]
    assert Event.objects.filter(type__in=["setup_intent.succeeded", "payment_method.attached"]).count() == 2
    # Saved for later: charged without the customer.
    charged = charge_off_session(api, customer, method["id"])
    assert charged.json()["status"] == "requires_capture"


def test_the_card_that_always_authenticates_asks_here_and_fails_later_off_session(api):
    customer, made = _setup_session(api)
    assert control("POST", f"sessions/{made['id']}/pay", {"card": ALWAYS_AUTHENTICATES})["outcome"] == "authenticate"
    assert api.get(f"checkout/sessions/{made['id']}").json()["status"] == "open"
    assert control("POST", f"sessions/{made['id']}/authenticate", {"passed": True})["outcome"] == "authorised"
    intent_id = api.get(f"checkout/sessions/{made['id']}").json()["setup_intent"]
    method_id = api.get(f"setup_intents/{intent_id}").json()["payment_method"]
    later = charge_off_session(api, customer, method_id)
    assert (later.status_code, later.json()["error"]["code"]) == (402, "authentication_required")


def test_a_declined_card_leaves_the_setup_open_with_the_error(api):
    _, made = _setup_session(api)
    assert control("POST", f"sessions/{made['id']}/pay", {"card": "4000000000000002"})["outcome"] == "declined"
    intent_id = api.get(f"checkout/sessions/{made['id']}").json()["setup_intent"]
    intent = api.get(f"setup_intents/{intent_id}").json()
    assert (intent["status"], intent["last_setup_error"]["code"]) == ("requires_payment_method", "card_declined")
    assert Event.objects.filter(type="setup_intent.setup_failed").count() == 1
    expired = api.post(f"checkout/sessions/{made['id']}/expire", {}).json()
    assert expired["status"] == "expired"
    assert api.get(f"setup_intents/{intent_id}").json()["status"] == "canceled"


@pytest.mark.django_db(transaction=True)
def test_the_sdk_makes_a_setup_session_and_reads_its_setup_intent(live_server):
    client = sdk(live_server)
    customer = client.v1.customers.create(params={"email": "ada@example.org"})
    made = client.v1.checkout.sessions.create(
        params={
            "mode": "setup",
            "customer": customer.id,
            "currency": "usd",
            "success_url": "https://shop.example/account/",
            "setup_intent_data": {"description": "card for renewals"},
        }
    )
    Client().post(page_path({"url": made.url}), {"card_number": "5555555555554444"})
    read = client.v1.checkout.sessions.retrieve(made.id)
    intent = client.v1.setup_intents.retrieve(read.setup_intent)
    assert (intent.status, intent.description, intent.customer) == ("succeeded", "card for renewals", customer.id)
    assert client.v1.payment_methods.retrieve(intent.payment_method).card.brand == "mastercard"
