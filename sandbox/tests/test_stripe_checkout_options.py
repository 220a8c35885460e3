"""What a Checkout Session may be asked: only parameters the sandbox knows (others refused as Stripe refuses
unknown ones), card only or card and Link, card options such as extended authorisation, adaptive pricing."""

from __future__ import annotations

import pytest
from django.test import Client

from sandbox.stripe_api.models import StripeObject
from sandbox.tests.stripe_helpers import SESSION, Api, charge_of, control, page_path, sdk, session

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> Api:
    return Api()


def _error(api: Api, **extra: str) -> dict:
    response = api.post("checkout/sessions", {**SESSION, **extra})
    assert response.status_code == 400, response.content
    return response.json()["error"]


@pytest.mark.parametrize(
    ("sent", "name"),
    [
        ("colour", "colour"),
        ("payment_method_options[card][colour]", "payment_method_options[card][colour]"),
        ("line_items[0][price_data][colour]", "line_items[0][price_data][colour]"),
        # A parameter Stripe has but the sandbox does not implement is refused too, never silently ignored.
        ("discounts[0][coupon]", "discounts"),
    ],
)
def test_unknown_parameters_are_refused_by_their_full_name(api, sent, name):
    error = _error(api, **{sent: "x"})
    assert (error["type"], error["code"], error["param"]) == ("invalid_request_error", "parameter_unknown", name)
    assert error["message"] == f"Received unknown parameter: {name}"


def test_enumerations_are_checked(api):
    error = _error(api, **{"payment_method_options[card][request_extended_authorization]": "always"})
    assert error["param"] == "payment_method_options[card][request_extended_authorization]"
    assert "if_available, never" in error["message"]
    assert _error(api, **{"adaptive_pricing[enabled]": "maybe"})["message"] == "Invalid boolean: maybe"


def test_extended_authorisation_needs_manual_capture(api):
    error = _error(
        api,
        **{
            "payment_intent_data[capture_method]": "automatic",
            "payment_method_options[card][request_extended_authorization]": "if_available",
        },
    )
    assert "capture_method=manual" in error["message"]
    made = session(api, **{"payment_method_options[card][request_extended_authorization]": "if_available"})
    assert made["payment_method_options"] == {"card": {"request_extended_authorization": "if_available"}}


def test_a_card_only_session_offers_no_link(api):
    made = session(api, **{"payment_method_types[0]": "card"})
    assert made["payment_method_types"] == ["card"]
    page = Client().get(page_path(made)).content.decode()
    assert 'name="card_number"' in page and "Continue with Link" not in page
    assert control("POST", f"sessions/{made['id']}/pay", {"method": "link"})["outcome"] == "invalid"
    assert api.get(f"checkout/sessions/{made['id']}").json()["status"] == "open"


def test_an_unrestricted_session_offers_link_which_saves_no_card(api):
    customer = api.post("customers", {"email": "ada@example.org"}).json()["id"]
    made = session(api, customer=customer, **{"payment_intent_data[setup_future_usage]": "off_session"})
    assert made["payment_method_types"] == ["card", "link"]
    page = Client().get(page_path(made)).content.decode()
    assert 'name="card_number"' in page and "Continue with Link" in page
    assert control("POST", f"sessions/{made['id']}/pay", {"method": "link"})["outcome"] == "authorised"
    intent = api.get(f"checkout/sessions/{made['id']}", "expand[]=payment_intent").json()["payment_intent"]
    assert intent["status"] == "requires_capture"
    method = api.get(f"payment_methods/{intent['payment_method']}").json()
    assert (method["type"], method["customer"], method.get("card")) == ("link", customer, None)
    assert not [row for row in StripeObject.objects.filter(object="payment_method") if row.data.get("type") == "card"]
    charge = charge_of(api, intent)
    assert charge["payment_method_details"]["type"] == "link"
    assert "card" not in charge["payment_method_details"]


def test_the_hosted_page_pays_with_link(api):
    made = session(api)
    response = Client().post(page_path(made), {"method": "link"})
    assert response.status_code == 302
    assert api.get(f"checkout/sessions/{made['id']}").json()["status"] == "complete"


def test_payment_methods_the_sandbox_does_not_offer_are_refused(api):
    error = _error(api, **{"payment_method_types[0]": "sepa_debit"})
    assert (error["param"], error["code"]) == ("payment_method_types[0]", "parameter_invalid")
    both = _error(api, **{"payment_method_types[0]": "card", "allowed_payment_method_types[0]": "card"})
    assert both["message"].startswith("You may only specify one of these parameters")


def test_adaptive_pricing_is_on_unless_turned_off(api):
    default = session(api)
    assert default["adaptive_pricing"] == {"enabled": True}
    assert "Adaptive pricing is on" in Client().get(page_path(default)).content.decode()
    off = session(api, **{"adaptive_pricing[enabled]": "false"})
    assert off["adaptive_pricing"] == {"enabled": False}
    assert "Adaptive pricing is on" not in Client().get(page_path(off)).content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_sdk_restricts_a_session_to_cards_and_turns_adaptive_pricing_off(live_server):
    made = sdk(live_server).v1.checkout.sessions.create(
        params={
            "mode": "payment",
            "success_url": "https://shop.example/done/",
            "allowed_payment_method_types": ["card"],
            "adaptive_pricing": {"enabled": False},
            "payment_intent_data": {"capture_method": "manual"},
            "payment_method_options": {"card": {"request_extended_authorization": "if_available"}},
            "line_items": [
                {"price_data": {"currency": "usd", "unit_amount": 500, "product_data": {"name": "a"}}, "quantity": 1}
            ],
        }
    )
    assert (made.allowed_payment_method_types, made.payment_method_types) == (["card"], ["card"])
    assert made.adaptive_pricing.enabled is False
    assert made.payment_method_options.card.request_extended_authorization == "if_available"
