"""Every authorised payment intent has a Charge in Stripe's shape, whose `capture_before` is the real deadline."""

from __future__ import annotations

import pytest

from sandbox.stripe_api.models import Setup
from sandbox.tests.stripe_helpers import (
    MASTERCARD,
    Api,
    authorised,
    charge_of,
    charge_off_session,
    saved_card,
    sdk,
    session,
)

pytestmark = pytest.mark.django_db
DAY = 24 * 3600


@pytest.fixture
def api() -> Api:
    return Api()


def test_an_authorised_payment_has_an_uncaptured_charge_held_for_seven_days(api):
    intent = authorised(api)
    charge = charge_of(api, intent)
    assert charge["id"].startswith("ch_") and charge["object"] == "charge"
    assert (charge["amount"], charge["amount_captured"], charge["amount_refunded"]) == (3799, 0, 0)
    assert (charge["captured"], charge["refunded"], charge["disputed"], charge["paid"]) == (False, False, False, True)
    assert (charge["currency"], charge["payment_intent"], charge["status"]) == ("usd", intent["id"], "succeeded")
    assert charge["payment_method"] == intent["payment_method"]
    card = charge["payment_method_details"]["card"]
    assert (card["brand"], card["last4"], card["exp_month"]) == ("visa", "4242", 12)
    assert card["exp_year"] > 2000
    assert card["capture_before"] == charge["created"] + 7 * DAY  # a customer-initiated online card payment
    assert card["extended_authorization"] == {"status": "disabled"}
    assert charge["refunds"] == {
        "object": "list",
        "data": [],
        "has_more": False,
        "total_count": 0,
        "url": f"/v1/charges/{charge['id']}/refunds",
    }


def test_a_partial_capture_captures_that_much_and_shows_the_rest_released(api):
    intent = authorised(api)
    api.post(f"payment_intents/{intent['id']}/capture", {"amount_to_capture": "1299"})
    charge = charge_of(api, intent)
    assert (charge["captured"], charge["amount_captured"], charge["amount_refunded"]) == (True, 1299, 2500)
    assert charge["refunded"] is False
    txn = api.get(f"balance_transactions/{charge['balance_transaction']}").json()
    # Stripe's US card pricing, 2.9% + 0.30: 37.67 -> 38 cents, plus 30.
    assert (txn["type"], txn["amount"], txn["fee"], txn["net"], txn["source"]) == (
        "charge",
        1299,
        68,
        1231,
        charge["id"],
    )


def test_automatic_capture_captures_the_charge_at_once(api):
    intent = authorised(api, **{"payment_intent_data[capture_method]": "automatic"})
    charge = charge_of(api, intent)
    assert intent["status"] == "succeeded"
    assert (charge["captured"], charge["amount_captured"]) == (True, 3799)
    assert charge["payment_method_details"]["card"]["capture_before"] is None


def test_an_off_session_visa_hold_must_be_captured_within_4_days_18_hours(api):
    customer, method = saved_card(api)
    intent = charge_off_session(api, customer, method).json()
    charge = charge_of(api, intent)
    assert charge["payment_method_details"]["card"]["capture_before"] == charge["created"] + 4 * DAY + 18 * 3600


def test_an_off_session_mastercard_hold_keeps_seven_days(api):
    customer, method = saved_card(api, MASTERCARD)
    intent = charge_off_session(api, customer, method).json()
    charge = charge_of(api, intent)
    assert charge["payment_method_details"]["card"]["brand"] == "mastercard"
    assert charge["payment_method_details"]["card"]["capture_before"] == charge["created"] + 7 * DAY


def test_extended_authorisation_is_granted_only_where_the_setup_allows_it(api):
    asked = {
        "payment_method_options[card][request_extended_authorization]": "if_available",
    }
    refused = charge_of(api, authorised(api, **asked))
    assert refused["payment_method_details"]["card"]["extended_authorization"] == {"status": "disabled"}
    assert refused["payment_method_details"]["card"]["capture_before"] == refused["created"] + 7 * DAY
    Setup.objects.update_or_create(pk=1, defaults={"extended_authorization": True})
    granted = charge_of(api, authorised(api, **asked))
    assert granted["payment_method_details"]["card"]["extended_authorization"] == {"status": "enabled"}
    assert granted["payment_method_details"]["card"]["capture_before"] == granted["created"] + 30 * DAY


def test_another_key_cannot_see_the_charge(api):
    intent = authorised(api)
    response = Api("sk_test_another_account").get(f"charges/{intent['latest_charge']}")
    assert (response.status_code, response.json()["error"]["code"]) == (404, "resource_missing")


def test_expand_puts_objects_in_place_of_their_ids_and_refuses_what_is_not_expandable(api):
    intent = authorised(api)
    expanded = api.get(f"payment_intents/{intent['id']}", "expand[]=latest_charge").json()
    assert expanded["latest_charge"]["id"] == intent["latest_charge"]
    made = session(api)
    refused = api.get(f"checkout/sessions/{made['id']}", "expand[]=success_url").json()
    assert refused["error"]["message"] == "This property cannot be expanded (success_url)."


def test_expanding_through_a_property_that_is_still_null_answers_null(api):
    # A session nobody tried to pay has no payment intent yet: Stripe answers it null rather than refusing.
    made = session(api)
    answer = api.get(f"checkout/sessions/{made['id']}", "expand[]=payment_intent.latest_charge")
    assert answer.status_code == 200
    assert answer.json()["payment_intent"] is None


@pytest.mark.django_db(transaction=True)
def test_the_sdk_expands_the_latest_charge_of_a_sessions_payment_intent(live_server):
    from django.test import Client

    client = sdk(live_server)
    made = client.v1.checkout.sessions.create(
        params={
            "mode": "payment",
            "success_url": "https://shop.example/done/",
            "payment_intent_data": {"capture_method": "manual"},
            "line_items": [
                {
                    "price_data": {"currency": "eur", "unit_amount": 1000, "product_data": {"name": "a.com"}},
                    "quantity": 1,
                }
            ],
        }
    )
    Client().post(made.url.split(live_server.url, 1)[1], {"card_number": "4242424242424242"})
    read = client.v1.checkout.sessions.retrieve(made.id, params={"expand": ["payment_intent.latest_charge"]})
    charge = read.payment_intent.latest_charge
    assert (charge.object, charge.amount, charge.captured) == ("charge", 1000, False)
    assert client.v1.charges.retrieve(charge.id).payment_method_details.card.capture_before == (
        charge.created + 7 * DAY
    )
