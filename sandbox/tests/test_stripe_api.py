"""The payment sandbox: Stripe's API as the SDK calls it, the hosted page's test cards, faults and signed events."""

from __future__ import annotations

import json

import pytest
import stripe
from django.test import Client

from sandbox.stripe_api import webhooks
from sandbox.stripe_api.encoding import decode
from sandbox.stripe_api.models import ApiCall, Event, Setup, StripeObject
from sandbox.tests.stripe_helpers import KEY, SESSION, WEBHOOK_SECRET, Api, receiving, wait_for
from sandbox.tests.stripe_helpers import pay as _pay
from sandbox.tests.stripe_helpers import session as _session

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> Api:
    return Api()


def test_bracketed_form_fields_become_objects_and_lists():
    params = decode("a[b][0][c]=1&a[b][1][c]=2&expand[]=x&expand[]=y&plain=z")
    assert params == {"a": {"b": [{"c": "1"}, {"c": "2"}]}, "expand": ["x", "y"], "plain": "z"}


def test_a_session_totals_its_lines_and_has_a_payment_page(api):
    session = _session(api)
    assert session["object"] == "checkout.session"
    assert session["id"].startswith("cs_test_")
    assert (session["amount_total"], session["currency"], session["status"]) == (3799, "usd", "open")
    assert session["client_reference_id"] == "chk-1"
    assert session["metadata"] == {"checkout_id": "chk-1"}
    page = Client().get(session["url"].split("testserver", 1)[1])
    assert page.status_code == 200
    assert b"37.99 USD" in page.content
    assert b"example.net, 2 years" in page.content


def test_without_a_secret_test_key_the_api_answers_401(api):
    for key in ("pk_test_publishable", "sk_live_realkey12345", ""):
        response = Api(key).post("checkout/sessions", SESSION)
        assert response.status_code == 401
        assert response.json()["error"]["type"] == "invalid_request_error"
        assert "sk_live_realkey12345" not in response.content.decode()


def test_missing_line_items_are_a_400_naming_the_param(api):
    form = {k: v for k, v in SESSION.items() if not k.startswith("line_items")}
    response = api.post("checkout/sessions", form)
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "line_items"


def test_the_good_card_authorises_and_returns_to_the_success_url(api):
    session = _session(api)
    response = _pay(session, "4242 4242 4242 4242")
    assert response.status_code == 302
    assert response["Location"] == f"https://shop.example/checkout/done/?session_id={session['id']}"
    read = api.get(f"checkout/sessions/{session['id']}", "expand[0]=payment_intent").json()
    assert (read["status"], read["payment_status"]) == ("complete", "paid")
    intent = read["payment_intent"]
    assert (intent["status"], intent["amount_capturable"], intent["capture_method"]) == (
        "requires_capture",
        3799,
        "manual",
    )
    types = list(Event.objects.values_list("type", flat=True))
    assert types == ["charge.succeeded", "payment_intent.amount_capturable_updated", "checkout.session.completed"]


def test_the_declined_card_leaves_the_session_open_and_says_so(api):
    session = _session(api)
    response = _pay(session, "4000000000000002")
    assert response.status_code == 402
    assert b"Your card was declined." in response.content
    read = api.get(f"checkout/sessions/{session['id']}").json()
    assert read["status"] == "open"
    intent = api.get(f"payment_intents/{read['payment_intent']}").json()
    assert intent["status"] == "requires_payment_method"
    assert intent["last_payment_error"]["code"] == "card_declined"
    assert not Event.objects.filter(type="checkout.session.completed").exists()


def test_the_authentication_card_asks_for_a_confirm_step(api):
    session = _session(api)
    response = _pay(session, "4000 0025 0000 3155")
    assert response.status_code == 302
    assert response["Location"].endswith("/authenticate")
    assert api.get(f"checkout/sessions/{session['id']}").json()["status"] == "open"
    confirmed = Client().post(response["Location"], {"result": "complete"})
    assert confirmed.status_code == 302
    assert api.get(f"checkout/sessions/{session['id']}").json()["status"] == "complete"


def test_a_failed_authentication_is_a_decline(api):
    session = _session(api)
    step = _pay(session, "4000002500003155")["Location"]
    failed = Client().post(step, {"result": "fail"})
    assert failed.status_code == 402
    assert api.get(f"checkout/sessions/{session['id']}").json()["status"] == "open"


def test_the_decline_fault_declines_the_good_card(api):
    Setup.objects.update_or_create(pk=1, defaults={"decline_all_cards": True})
    session = _session(api)
    assert _pay(session, "4242424242424242").status_code == 402


def _authorised(api: Api) -> str:
    session = _session(api)
    _pay(session, "4242424242424242")
    return api.get(f"checkout/sessions/{session['id']}").json()["payment_intent"]


def test_a_partial_capture_releases_the_rest_and_a_second_capture_is_refused(api):
    intent_id = _authorised(api)
    captured = api.post(f"payment_intents/{intent_id}/capture", {"amount_to_capture": "1299"})
    assert captured.status_code == 200
    assert (captured.json()["status"], captured.json()["amount_received"]) == ("succeeded", 1299)
    assert captured.json()["amount_capturable"] == 0
    again = api.post(f"payment_intents/{intent_id}/capture", {"amount_to_capture": "1299"})
    assert again.status_code == 400
    assert again.json()["error"]["code"] == "payment_intent_unexpected_state"


def test_capturing_more_than_authorised_is_refused(api):
    intent_id = _authorised(api)
    response = api.post(f"payment_intents/{intent_id}/capture", {"amount_to_capture": "5000"})
    assert response.status_code == 400
    assert api.get(f"payment_intents/{intent_id}").json()["status"] == "requires_capture"


def test_an_idempotency_key_replays_the_first_answer_and_captures_once(api):
    intent_id = _authorised(api)
    first = api.post(f"payment_intents/{intent_id}/capture", {"amount_to_capture": "1299"}, idempotency_key="cap-1")
    second = api.post(f"payment_intents/{intent_id}/capture", {"amount_to_capture": "1299"}, idempotency_key="cap-1")
    assert second.status_code == 200
    assert second["Idempotent-Replayed"] == "true"
    assert second.json() == first.json()
    other = api.post(f"payment_intents/{intent_id}/capture", {"amount_to_capture": "99"}, idempotency_key="cap-1")
    assert other.status_code == 400
    assert other.json()["error"]["type"] == "idempotency_error"
    assert Event.objects.filter(type="payment_intent.succeeded").count() == 1


def test_cancel_releases_an_authorisation(api):
    intent_id = _authorised(api)
    response = api.post(f"payment_intents/{intent_id}/cancel", {"cancellation_reason": "abandoned"})
    assert (response.json()["status"], response.json()["amount_capturable"]) == ("canceled", 0)
    assert api.post(f"payment_intents/{intent_id}/capture", {}).status_code == 400


def test_refunds_up_to_what_was_captured(api):
    intent_id = _authorised(api)
    api.post(f"payment_intents/{intent_id}/capture", {"amount_to_capture": "3799"})
    first = api.post("refunds", {"payment_intent": intent_id, "amount": "2500"})
    assert (first.status_code, first.json()["status"], first.json()["amount"]) == (200, "succeeded", 2500)
    too_much = api.post("refunds", {"payment_intent": intent_id, "amount": "1300"})
    assert too_much.status_code == 400
    assert api.post("refunds", {"payment_intent": intent_id}).json()["amount"] == 1299


def test_expire_closes_an_open_session(api):
    session = _session(api)
    expired = api.post(f"checkout/sessions/{session['id']}/expire", {})
    assert expired.json()["status"] == "expired"
    assert _pay(session, "4242424242424242").status_code == 409
    assert api.post(f"checkout/sessions/{session['id']}/expire", {}).status_code == 400


def test_another_key_cannot_see_the_session(api):
    session = _session(api)
    response = Api("sk_test_someone_else").get(f"checkout/sessions/{session['id']}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "resource_missing"


def test_the_api_error_fault_answers_500_and_changes_nothing(api):
    Setup.objects.update_or_create(pk=1, defaults={"api_error": True})
    response = api.post("checkout/sessions", SESSION)
    assert response.status_code == 500
    assert response.json()["error"]["type"] == "api_error"
    assert not StripeObject.objects.exists()


def test_events_are_signed_as_the_sdk_verifies_them(api):
    session = _session(api)
    _pay(session, "4242424242424242")
    event = Event.objects.get(type="checkout.session.completed")
    payload = webhooks.payload_of(event)
    header = webhooks.signature_header(payload=payload, secret="whsec_test_secret")
    verified = stripe.Webhook.construct_event(payload, header, "whsec_test_secret")
    assert verified.type == "checkout.session.completed"
    assert verified.data.object.id == session["id"]
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.Webhook.construct_event(payload, header, "whsec_another_secret")


@pytest.mark.django_db(transaction=True)
def test_the_official_sdk_drives_a_whole_payment(live_server):
    """The real `stripe` SDK, over HTTP, pointed at the sandbox with base_addresses."""
    client = stripe.StripeClient(KEY, base_addresses={"api": f"{live_server.url}/stripe"}, max_network_retries=0)
    session = client.v1.checkout.sessions.create(
        params={
            "mode": "payment",
            "success_url": "https://shop.example/done/?s={CHECKOUT_SESSION_ID}",
            "client_reference_id": "chk-9",
            "metadata": {"checkout_id": "chk-9"},
            "payment_intent_data": {"capture_method": "manual", "metadata": {"checkout_id": "chk-9"}},
            "line_items": [
                {
                    "price_data": {"currency": "eur", "unit_amount": 1000, "product_data": {"name": "a.com"}},
                    "quantity": 1,
                },
                {
                    "price_data": {"currency": "eur", "unit_amount": 500, "product_data": {"name": "b.com"}},
                    "quantity": 1,
                },
            ],
        },
        options={"idempotency_key": "checkout-chk-9"},
    )
    assert session.amount_total == 1500
    page = Client().post(session.url.split(live_server.url, 1)[1], {"card_number": "4242424242424242"})
    assert page.status_code == 302
    read = client.v1.checkout.sessions.retrieve(session.id, params={"expand": ["payment_intent"]})
    assert read.payment_intent.status == "requires_capture"
    captured = client.v1.payment_intents.capture(read.payment_intent.id, params={"amount_to_capture": 1000})
    assert (captured.status, captured.amount_received) == ("succeeded", 1000)
    refund = client.v1.refunds.create(params={"payment_intent": captured.id, "amount": 400})
    assert refund.amount == 400
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.payment_intents.cancel(captured.id)
    assert refused.value.code == "payment_intent_unexpected_state"
    with pytest.raises(stripe.AuthenticationError):
        stripe.StripeClient(
            "sk_live_nope_nope", base_addresses={"api": f"{live_server.url}/stripe"}
        ).v1.checkout.sessions.retrieve(session.id)
    Setup.objects.update_or_create(pk=1, defaults={"api_error": True})
    with pytest.raises(stripe.APIError):
        client.v1.payment_intents.retrieve(captured.id)
    assert ApiCall.objects.filter(status=500).count() == 1


@pytest.mark.django_db(transaction=True)
def test_events_are_posted_to_the_endpoint_signed_duplicated_and_out_of_order(live_server, settings):
    received = receiving(live_server, settings, delivery="duplicated")
    session = _session(Api())
    assert _pay(session, "4242424242424242").status_code == 302
    wait_for(lambda: len(received) == 6)
    types = [json.loads(payload)["type"] for payload, _ in received]
    assert types == (
        ["charge.succeeded"] * 2 + ["payment_intent.amount_capturable_updated"] * 2 + ["checkout.session.completed"] * 2
    )
    for payload, header in received:
        stripe.Webhook.construct_event(payload, header, WEBHOOK_SECRET)

    received.clear()
    Setup.objects.filter(pk=1).update(webhook_delivery="out_of_order")
    _pay(_session(Api()), "4242424242424242")
    wait_for(lambda: len(received) == 3)
    assert [json.loads(payload)["type"] for payload, _ in received] == [
        "checkout.session.completed",
        "payment_intent.amount_capturable_updated",
        "charge.succeeded",
    ]
