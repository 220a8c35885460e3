"""The payment sandbox's Customers, saved PaymentMethods and off-session PaymentIntents, driven by the real SDK."""

from __future__ import annotations

import pytest
import stripe
from django.test import Client

from sandbox.stripe_api.models import ApiCall, Event, Setup

KEY = "sk_test_sandbox_saved_cards"
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def client(live_server) -> stripe.StripeClient:
    return stripe.StripeClient(KEY, base_addresses={"api": f"{live_server.url}/stripe"}, max_network_retries=0)


def pay_and_save(client: stripe.StripeClient, live_server, card: str, *, authenticate: bool = False):
    """A Checkout payment for a Customer with setup_future_usage=off_session: (customer, its payment intent)."""
    customer = client.v1.customers.create(params={"email": "ada@example.org", "name": "Ada"})
    session = client.v1.checkout.sessions.create(
        params={
            "mode": "payment",
            "success_url": "https://shop.example/done/?s={CHECKOUT_SESSION_ID}",
            "customer": customer.id,
            "payment_intent_data": {"capture_method": "manual", "setup_future_usage": "off_session"},
            "line_items": [
                {
                    "price_data": {"currency": "usd", "unit_amount": 1299, "product_data": {"name": "a.com"}},
                    "quantity": 1,
                }
            ],
        }
    )
    page = session.url.split(live_server.url, 1)[1]
    answer = Client().post(page, {"card_number": card})
    if authenticate:
        Client().post(f"{page}/authenticate", {"result": "complete"})
    else:
        assert answer.status_code == 302
    read = client.v1.checkout.sessions.retrieve(session.id, params={"expand": ["payment_intent"]})
    assert read.payment_intent.status == "requires_capture"
    return customer, read.payment_intent


def charge(client: stripe.StripeClient, customer: str, method: str, key: str = ""):
    return client.v1.payment_intents.create(
        params={
            "amount": 2599,
            "currency": "usd",
            "customer": customer,
            "payment_method": method,
            "confirm": True,
            "off_session": True,
            "capture_method": "manual",
            "allowed_payment_method_types": ["card"],
        },
        options={"idempotency_key": key} if key else None,
    )


def test_a_checkout_payment_saves_its_card_on_the_customer(client, live_server):
    customer, intent = pay_and_save(client, live_server, "4242424242424242")
    assert intent.customer == customer.id and intent.setup_future_usage == "off_session"
    method = client.v1.payment_methods.retrieve(intent.payment_method)
    assert (method.customer, method.card.brand, method.card.last4) == (customer.id, "visa", "4242")
    assert method.card.exp_month == 12 and method.card.exp_year > 2000
    assert "_number" not in method.to_dict()  # the sandbox's bookkeeping is never shown
    assert client.v1.customers.retrieve(customer.id).email == "ada@example.org"
    assert Event.objects.filter(type="payment_method.attached").count() == 1


def test_an_off_session_charge_authorises_once_per_idempotency_key(client, live_server):
    customer, intent = pay_and_save(client, live_server, "4242424242424242")
    first = charge(client, customer.id, intent.payment_method, key="renew-1")
    again = charge(client, customer.id, intent.payment_method, key="renew-1")
    assert (first.status, first.amount_capturable, first.capture_method) == ("requires_capture", 2599, "manual")
    assert again.id == first.id
    assert ApiCall.objects.filter(path="/stripe/v1/payment_intents", replayed=True).count() == 1
    captured = client.v1.payment_intents.capture(first.id)
    assert captured.amount_received == 2599


def test_a_card_that_always_asks_for_authentication_fails_off_session(client, live_server):
    customer, intent = pay_and_save(client, live_server, "4000002760003184", authenticate=True)
    with pytest.raises(stripe.CardError) as refused:
        charge(client, customer.id, intent.payment_method)
    error = refused.value.error
    assert refused.value.http_status == 402
    assert (error.code, error.decline_code) == ("authentication_required", "authentication_required")
    assert error.payment_intent.status == "requires_payment_method"
    assert error.payment_intent.amount_capturable == 0


def test_the_3155_card_once_saved_is_charged_off_session_without_a_step(client, live_server):
    customer, intent = pay_and_save(client, live_server, "4000002500003155", authenticate=True)
    assert charge(client, customer.id, intent.payment_method).status == "requires_capture"


def test_declined_off_session_when_every_card_is_declined(client, live_server):
    customer, intent = pay_and_save(client, live_server, "4242424242424242")
    Setup.objects.update_or_create(pk=1, defaults={"decline_all_cards": True})
    with pytest.raises(stripe.CardError) as refused:
        charge(client, customer.id, intent.payment_method)
    assert refused.value.code == "card_declined"


def test_a_detached_card_cannot_be_charged_again(client, live_server):
    customer, intent = pay_and_save(client, live_server, "4242424242424242")
    detached = client.v1.payment_methods.detach(intent.payment_method)
    assert detached.customer is None
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.payment_methods.detach(intent.payment_method)
    with pytest.raises(stripe.InvalidRequestError):
        charge(client, customer.id, intent.payment_method)


def test_another_keys_customer_is_not_found(client, live_server):
    customer = client.v1.customers.create(params={"email": "x@example.org"})
    other = stripe.StripeClient(
        "sk_test_another_account", base_addresses={"api": f"{live_server.url}/stripe"}, max_network_retries=0
    )
    with pytest.raises(stripe.InvalidRequestError) as missing:
        other.v1.customers.retrieve(customer.id)
    assert missing.value.code == "resource_missing"


def test_a_session_for_an_unknown_customer_or_with_both_customer_and_email_is_refused(client):
    base = {
        "mode": "payment",
        "success_url": "https://shop.example/done/",
        "line_items": [
            {"price_data": {"currency": "usd", "unit_amount": 100, "product_data": {"name": "a.com"}}, "quantity": 1}
        ],
    }
    with pytest.raises(stripe.InvalidRequestError) as missing:
        client.v1.checkout.sessions.create(params={**base, "customer": "cus_nobody"})
    assert (missing.value.code, missing.value.param) == ("resource_missing", "customer")
    known = client.v1.customers.create(params={"email": "b@example.org"})
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.checkout.sessions.create(params={**base, "customer": known.id, "customer_email": "b@example.org"})
    assert client.v1.checkout.sessions.create(params={**base, "customer": known.id}).customer == known.id


def test_an_off_session_charge_that_may_redirect_is_refused_without_a_return_url(client, live_server):
    """At the pinned API version an intent without a restriction takes the Dashboard's methods, which may redirect:
    Stripe refuses to confirm it without a `return_url`, in these words, and charges nothing."""
    customer, intent = pay_and_save(client, live_server, "4242424242424242")
    bare = {
        "amount": 2599,
        "currency": "usd",
        "customer": customer.id,
        "payment_method": intent.payment_method,
        "confirm": True,
        "off_session": True,
    }
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.payment_intents.create(params=bare)
    assert refused.value.http_status == 400
    assert refused.value.error.message.startswith("A `return_url` must be specified because this Payment Intent")
    assert not Event.objects.filter(type="payment_intent.succeeded").exists()
    never = client.v1.payment_intents.create(
        params={**bare, "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}}
    )
    assert never.status == "succeeded"
    assert never.automatic_payment_methods.allow_redirects == "never"
    with_url = client.v1.payment_intents.create(params={**bare, "return_url": "https://shop.example/back/"})
    assert with_url.status == "succeeded" and with_url.automatic_payment_methods.allow_redirects == "always"
    cards_only = client.v1.payment_intents.create(params={**bare, "allowed_payment_method_types": ["card"]})
    assert cards_only.status == "succeeded" and cards_only.allowed_payment_method_types == ["card"]
    assert cards_only.automatic_payment_methods is None


def test_a_payment_method_of_a_type_the_intent_does_not_allow_is_refused(client, live_server):
    customer, intent = pay_and_save(client, live_server, "4242424242424242")
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.payment_intents.create(
            params={
                "amount": 2599,
                "currency": "usd",
                "customer": customer.id,
                "payment_method": intent.payment_method,
                "confirm": True,
                "allowed_payment_method_types": ["link"],
            }
        )
    assert refused.value.error.code == "payment_intent_incompatible_payment_method"
