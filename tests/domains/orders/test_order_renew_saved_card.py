"""Renewing with the saved card in one confirmation (POST /orders/<id>/renew/ with `pay_with=card`): the renewal's
price is authorised off-session on the saved card, then renewed and captured as after the payment page, once per
form however often it is posted. A declined card, or one whose bank asks for authentication, charges nothing and
the confirmation comes back saying so, with the payment page as the way on."""

from __future__ import annotations

import re
import uuid
from decimal import Decimal

import pytest
from django.urls import reverse

from accounts.models import Activity
from accounts.staff.acting import ActingRefused
from accounts.staff.activity import ActingAs, acting
from billing.errors import PaymentOutcomeUnknown
from billing.models import Payment, SavedCard
from billing.payments import services
from domains.models import Order, Renewal
from domains.orders.renewal_flow import RenewalAsked, renewal_request
from tests.billing.conftest import GOOD_CARD
from tests.domains.orders.test_order_renew import open_page, price_shown, renew_calls, url, years_later

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db(transaction=True)
ALWAYS_AUTHENTICATES = "4000 0027 6000 3184"


def save_card(client, stripe_sandbox, card: str = GOOD_CARD) -> SavedCard:
    """Add a card as the customer does on the account page: Stripe's page in setup mode, then back."""
    page = client.get(reverse("account")).content.decode()
    found = re.search(r'name="setup_token" value="([^"]+)"', page)
    assert found is not None, "no add-a-card form on the account page"
    token = found.group(1)
    response = client.post(reverse("billing:card_add"), {"setup_token": token})
    assert response.status_code == 303, response.content
    session_id = response["Location"].rstrip("/").rsplit("/", 1)[1]
    outcome = stripe_sandbox.pay(session_id, card)
    if outcome == "authenticate":
        outcome = stripe_sandbox.authenticate(session_id)
    assert outcome == "authorised"
    client.get(reverse("billing:card_added") + f"?session_id={session_id}")
    return SavedCard.objects.get(customer__user_id=client.session["_auth_user_id"])


def confirm_page(client, order: Order, years: int = 1) -> str:
    form = open_page(client, order)
    return client.post(url(order), {**form, "duration": years}).content.decode()


def confirm_fields(html: str) -> dict[str, str]:
    form = html[html.index('class="renew-form"') :]
    return dict(re.findall(r'name="(renew_token|expiry_timestamp|duration|confirm|price_shown)" value="([^"]*)"', form))


def charge_saved(client, order: Order, fields: dict[str, str], **kwargs):
    return client.post(url(order), {**fields, "pay_with": "card"}, **kwargs)


def intents_created(stripe_sandbox) -> list[dict]:
    return [
        call
        for call in stripe_sandbox.calls("/v1/payment_intents")
        if call["method"] == "POST" and call["path"].endswith("/payment_intents") and not call["replayed"]
    ]


def test_the_confirmation_offers_the_saved_card_and_one_click_renews_and_captures(
    signed_in, customer, provider_orders, provider_calls, stripe_sandbox, mailoutbox
):
    save_card(signed_in, stripe_sandbox)
    order = provider_orders.register(customer, "oneclick.com")
    before = provider_orders.at_provider(order).expires_at

    html = confirm_page(signed_in, order, 2)
    assert "Charge $32.98 to Visa •••• 4242 and renew" in html
    assert "Pay with another card" in html

    response = charge_saved(signed_in, order, confirm_fields(html))

    # No payment page: straight back to the domain page, which says how it went.
    assert response.status_code == 303
    assert reverse("order_detail", args=[order.order_id]) + "?renewal=" in response["Location"]
    page = signed_in.get(response["Location"], follow=True).content.decode()
    after = provider_orders.at_provider(order).expires_at
    assert after == years_later(before, 2)
    assert f"Renewed until {after.strftime('%b %-d, %Y')}." in page
    assert "Your card was charged $32.98." in page
    payment = Payment.objects.get()
    assert (payment.status, payment.amount_captured, payment.stripe_session_id) == (
        Payment.Status.CAPTURED,
        Decimal("32.98"),
        None,
    )
    card = SavedCard.objects.get(customer=customer)
    intent = stripe_sandbox.stored(payment.stripe_payment_intent_id)
    assert (intent["payment_method"], intent["capture_method"]) == (card.payment_method_id, "manual")
    assert len(stripe_sandbox.captures()) == 1
    assert renew_calls(provider_calls) == 1
    assert any(m.subject.startswith("Your receipt") for m in mailoutbox)
    logged = Activity.objects.get(action="renewal_card_charged")
    assert (logged.order_id, logged.detail["last4"], logged.actor) == (order.order_id, "4242", Activity.Actor.CUSTOMER)


def test_a_double_click_charges_and_renews_once(signed_in, customer, provider_orders, provider_calls, stripe_sandbox):
    save_card(signed_in, stripe_sandbox)
    order = provider_orders.register(customer, "doubleclick.com")
    before = provider_orders.at_provider(order).expires_at
    fields = confirm_fields(confirm_page(signed_in, order, 1))

    first = charge_saved(signed_in, order, fields)
    second = charge_saved(signed_in, order, fields)

    assert first.status_code == second.status_code == 303
    assert first["Location"] == second["Location"]
    assert len(intents_created(stripe_sandbox)) == 1
    assert len(stripe_sandbox.captures()) == 1
    assert renew_calls(provider_calls) == 1
    assert provider_orders.at_provider(order).expires_at == years_later(before, 1)
    assert Payment.objects.count() == Renewal.objects.count() == 1
    assert Activity.objects.filter(action="renewal_card_charged").count() == 1


def test_a_declined_saved_card_charges_nothing_and_offers_the_payment_page(
    signed_in, customer, provider_orders, provider_calls, stripe_sandbox
):
    save_card(signed_in, stripe_sandbox)
    order = provider_orders.register(customer, "declinedsaved.com")
    before = provider_orders.at_provider(order).expires_at
    fields = confirm_fields(confirm_page(signed_in, order, 1))
    stripe_sandbox.setup(decline_all_cards=True)  # the bank declines the card from now on

    response = charge_saved(signed_in, order, fields)

    html = response.content.decode()
    assert response.status_code == 200
    assert "Your Visa •••• 4242 was declined, so nothing was charged and nothing was renewed." in html
    assert "Charge $" not in html  # the saved card is not offered again on this page
    assert renew_calls(provider_calls) == 0
    assert provider_orders.at_provider(order).expires_at == before
    assert Payment.objects.get().status == Payment.Status.CANCELLED
    assert stripe_sandbox.captures() == []
    logged = Activity.objects.get(action="renewal_card_refused")
    assert logged.detail["reason"] == "card_declined"
    # The way on: the payment page, with a form of its own (the declined one's payment is over).
    retry = confirm_fields(html)
    assert retry["renew_token"] != fields["renew_token"]
    stripe_sandbox.setup(decline_all_cards=False)
    to_page = signed_in.post(url(order), {**retry, "pay_with": "page"})
    assert to_page.status_code == 303
    assert to_page["Location"].startswith(stripe_sandbox.api_base + "/pay/")


def test_a_card_whose_bank_asks_for_authentication_goes_to_the_payment_page(
    signed_in, customer, provider_orders, provider_calls, stripe_sandbox
):
    save_card(signed_in, stripe_sandbox, ALWAYS_AUTHENTICATES)
    order = provider_orders.register(customer, "authsaved.com")
    fields = confirm_fields(confirm_page(signed_in, order, 1))

    html = charge_saved(signed_in, order, fields).content.decode()

    assert "Your bank wants to confirm this payment with you, which it can only do on the payment page." in html
    assert "Pay $" in html and "and renew" in html
    assert renew_calls(provider_calls) == 0
    assert Payment.objects.get().failure_code == "authentication_required"
    assert stripe_sandbox.captures() == []


def test_without_a_saved_card_the_confirmation_only_offers_the_payment_page(
    signed_in, customer, provider_orders, stripe_sandbox
):
    order = provider_orders.register(customer, "nocard.com")

    html = confirm_page(signed_in, order, 1)

    assert "Charge $" not in html and "Pay $" in html
    # A forged "card" button with no card saved charges nothing and says so.
    answer = charge_saved(signed_in, order, confirm_fields(html)).content.decode()
    assert "No card is saved any more, so nothing was charged." in answer
    assert not Payment.objects.exists()


def test_another_customers_order_is_refused_before_anything_is_charged(
    signed_in, customer, other_customer, provider_orders, provider_calls, stripe_sandbox
):
    save_card(signed_in, stripe_sandbox)
    theirs = provider_orders.register(other_customer, "notmine.com")
    provider_calls.clear()

    response = signed_in.post(
        url(theirs),
        {
            "renew_token": str(uuid.uuid4()),
            "expiry_timestamp": "1",
            "duration": 1,
            "confirm": "on",
            "pay_with": "card",
            **price_shown(theirs, 1),
        },
    )

    assert response.status_code == 404
    assert provider_calls == [] and intents_created(stripe_sandbox) == []


def test_a_lost_authorisation_answer_waits_then_is_read_back_with_the_same_key(
    signed_in, customer, provider_orders, provider_calls, stripe_sandbox, monkeypatch
):
    save_card(signed_in, stripe_sandbox)
    order = provider_orders.register(customer, "lostanswer.com")
    before = provider_orders.at_provider(order).expires_at
    fields = confirm_fields(confirm_page(signed_in, order, 1))
    real = services.saved_card_charge

    def answer_lost(**kwargs):
        real(**kwargs)  # Stripe authorised it; the answer never came back
        raise PaymentOutcomeUnknown("payment intent create: APIConnectionError")

    monkeypatch.setattr(services, "saved_card_charge", answer_lost)
    response = charge_saved(signed_in, order, fields)
    monkeypatch.setattr(services, "saved_card_charge", real)

    # Not an error, not a second try: the domain page waits for that payment.
    assert response.status_code == 302 and "?renewal=" in response["Location"]
    assert renew_calls(provider_calls) == 0
    page = signed_in.get(response["Location"], follow=True).content.decode()  # the worker asks again, same key

    assert "Your card was charged $16.49." in page
    assert provider_orders.at_provider(order).expires_at == years_later(before, 1)
    assert len(intents_created(stripe_sandbox)) == 1  # the second ask was Stripe's first answer replayed
    payment = Payment.objects.get()
    assert (payment.status, payment.failure_code) == (Payment.Status.CAPTURED, "")


def test_the_one_click_service_refuses_staff_acting_as_the_customer(
    signed_in, customer, provider_orders, stripe_sandbox
):
    save_card(signed_in, stripe_sandbox)
    order = provider_orders.register(customer, "actingoneclick.com")
    fields = confirm_fields(confirm_page(signed_in, order, 1))
    asked = RenewalAsked(
        token=uuid.UUID(fields["renew_token"]),
        duration=1,
        shown_expiry_timestamp=int(fields["expiry_timestamp"]),
        confirm=True,
        price_shown=Decimal(fields["price_shown"]),
        pay_with_card=True,
    )

    with acting(ActingAs(Activity.Actor.STAFF_AS_CUSTOMER, None, "support@example.com")), pytest.raises(ActingRefused):
        renewal_request(order=order, asked=asked, token_issued=True, return_url="http://testserver/")

    assert intents_created(stripe_sandbox) == [] and not Payment.objects.exists()
