"""Saved cards: Checkout keeps the card paid with on the customer's Stripe Customer; the account page shows it
and removes it (detached at Stripe); payment_charge_saved charges it off-session, once per payment."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.test import Client

from billing.models import Payment, SavedCard
from billing.payments.services import payment_charge_saved, payment_settle
from tests.billing.conftest import GOOD_CARD, LINES

pytestmark = pytest.mark.django_db
ALWAYS_AUTHENTICATES = "4000 0027 6000 3184"


def paid_with(start, stripe_sandbox, card: str = GOOD_CARD) -> Payment:
    started = start()
    outcome = stripe_sandbox.pay(started.payment.stripe_session_id, card)
    if outcome == "authenticate":
        outcome = stripe_sandbox.authenticate(started.payment.stripe_session_id)
    assert outcome == "authorised"
    return payment_settle(session_id=started.payment.stripe_session_id)


def test_a_checkout_payment_saves_the_card_on_one_stripe_customer(start, stripe_sandbox, registrar, customer):
    paid_with(start, stripe_sandbox)
    first = SavedCard.objects.get(customer=customer).payment_method_id
    paid_with(start, stripe_sandbox, "5555 5555 5555 4444")

    # The card chosen for renewals stays: paying with another at checkout does not silently replace it (the
    # session does not ask Stripe to keep the new one; "Use another card" on /account/ is how it is replaced).
    card = SavedCard.objects.get(customer=customer)
    assert card.payment_method_id == first
    assert stripe_sandbox.stored(first)["customer"] == card.stripe_customer_id
    assert (card.brand, card.last4, card.exp_month) == ("visa", "4242", 12)
    second = Payment.objects.order_by("pk").last()
    assert not stripe_sandbox.stored(second.stripe_payment_intent_id).get("setup_future_usage")
    session_params = stripe_sandbox.stored(Payment.objects.first().stripe_session_id)
    assert session_params["customer"] == card.stripe_customer_id
    method = stripe_sandbox.stored(card.payment_method_id)
    assert method["customer"] == card.stripe_customer_id
    # The Stripe Customer was created once for this customer, however many payments.
    creates = [c for c in stripe_sandbox.calls("/v1/customers") if c["method"] == "POST" and not c["replayed"]]
    assert len(creates) == 1


def test_the_account_page_shows_the_card_and_removes_it(client, start, stripe_sandbox, registrar, customer):
    paid_with(start, stripe_sandbox)
    card = SavedCard.objects.get(customer=customer)
    client.force_login(customer.user)

    page = client.get("/account/").content.decode()
    assert "Visa •••• 4242" in page
    assert f"expires 12/{card.exp_year}" in page

    # One click leads to a confirmation page, not to the removal.
    assert 'href="/payments/card/remove/"' in page
    confirm = client.get("/payments/card/remove/").content.decode()
    assert "Remove your saved card?" in confirm and "Visa •••• 4242" in confirm
    assert "you get renewal reminders instead" in confirm
    assert client.post("/payments/card/remove/").status_code == 200  # an older page's button: asks too
    assert SavedCard.objects.get(customer=customer).has_card
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(customer.user)
    assert strict.post("/payments/card/remove/", {"confirm": "yes"}).status_code == 403
    assert SavedCard.objects.get(customer=customer).has_card

    response = client.post("/payments/card/remove/", {"confirm": "yes"}, follow=True)
    html = response.content.decode()
    assert "Your saved card was removed" in html
    assert "No card is saved" in html
    assert stripe_sandbox.stored(card.payment_method_id)["customer"] is None
    assert not SavedCard.objects.get(customer=customer).has_card


def test_the_saved_card_is_charged_off_session_once_however_often_asked(start, stripe_sandbox, registrar, customer):
    paid_with(start, stripe_sandbox)
    registrar.reset()
    checkout_id = uuid.uuid4()

    first = payment_charge_saved(customer=customer, lines=LINES[:1], checkout_id=checkout_id)
    again = payment_charge_saved(customer=customer, lines=LINES[:1], checkout_id=checkout_id)

    assert first.pk == again.pk
    assert (again.status, again.amount_captured) == (Payment.Status.CAPTURED, Decimal("12.99"))
    assert dict(registrar.calls) == {"example.com": 1}
    creates = [c for c in stripe_sandbox.calls("/v1/payment_intents") if c["path"].endswith("/payment_intents")]
    assert len(creates) == 1
    intent = stripe_sandbox.stored(first.stripe_payment_intent_id)
    assert (intent["amount_received"], intent["capture_method"]) == (1299, "manual")


def test_a_declined_off_session_charge_registers_nothing(start, stripe_sandbox, registrar, customer):
    paid_with(start, stripe_sandbox)
    registrar.reset()
    stripe_sandbox.setup(decline_all_cards=True)

    payment = payment_charge_saved(customer=customer, lines=LINES[:1], checkout_id=uuid.uuid4())

    assert (payment.status, payment.failure_code, payment.amount_captured) == ("cancelled", "card_declined", 0)
    assert registrar.calls == {}
    assert len(stripe_sandbox.captures()) == 1  # the first checkout's, nothing since


def test_a_card_that_asks_for_authentication_fails_off_session(start, stripe_sandbox, registrar, customer):
    paid_with(start, stripe_sandbox, ALWAYS_AUTHENTICATES)
    registrar.reset()

    payment = payment_charge_saved(customer=customer, lines=LINES[:1], checkout_id=uuid.uuid4())

    assert (payment.status, payment.failure_code) == ("cancelled", "authentication_required")
    assert registrar.calls == {}


def test_a_stored_customer_unknown_to_stripe_is_replaced_by_a_new_one(start, stripe_sandbox, customer):
    # E.g. the keys were changed to another Stripe account, or the payment sandbox was reset.
    SavedCard.objects.create(customer=customer, stripe_customer_id="cus_from_another_account", payment_method_id="pm_x")

    started = start()

    card = SavedCard.objects.get(customer=customer)
    assert card.stripe_customer_id.startswith("cus_") and card.stripe_customer_id != "cus_from_another_account"
    assert not card.has_card
    assert stripe_sandbox.stored(started.payment.stripe_session_id)["customer"] == card.stripe_customer_id
