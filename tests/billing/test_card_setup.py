"""Adding a card without buying (POST /payments/card/add/): Stripe Checkout in setup mode; the card saved there
becomes the saved card, from the return page or the webhook's event, once, whichever comes first; the card it
replaces is detached; staff acting as the customer are refused."""

from __future__ import annotations

import re
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Activity
from accounts.staff.acting import ActingRefused
from accounts.staff.activity import ActingAs, acting
from billing.models import SavedCard, WebhookEvent
from billing.payments.card_setup import card_setup_start
from tests.billing.conftest import DECLINED_CARD, GOOD_CARD, post_event
from tests.domains.orders.test_acting import REFUSED, staff_member, start_acting

pytestmark = pytest.mark.django_db(transaction=True)
MASTERCARD = "5555 5555 5555 4444"


def open_setup(client: Client) -> str:
    """The account page's "Add a card" button pressed: the setup session's id (Stripe's page is the redirect)."""
    page = client.get(reverse("account")).content.decode()
    found = re.search(r'name="setup_token" value="([^"]+)"', page)
    assert found is not None, "no add-a-card form on the account page"
    response = client.post(reverse("billing:card_add"), {"setup_token": found.group(1)})
    assert response.status_code == 303, response.content
    return response["Location"].rstrip("/").rsplit("/", 1)[1]


def back_from(client: Client, session_id: str) -> str:
    return client.get(reverse("billing:card_added") + f"?session_id={session_id}", follow=True).content.decode()


@pytest.fixture
def signed_in(client, customer) -> Client:
    client.force_login(customer.user)
    return client


def test_a_card_added_in_setup_mode_is_the_saved_card_and_is_logged(signed_in, customer, stripe_sandbox):
    page = signed_in.get(reverse("account")).content.decode()
    assert "No card is saved" in page and "Add a card" in page

    session_id = open_setup(signed_in)
    session = stripe_sandbox.stored(session_id)
    assert (session["mode"], session["customer"], session["metadata"]["purpose"]) == (
        "setup",
        SavedCard.objects.get(customer=customer).stripe_customer_id,
        "card_setup",
    )
    assert stripe_sandbox.pay(session_id, MASTERCARD) == "authorised"
    html = back_from(signed_in, session_id)

    assert "Your Mastercard •••• 4444 is saved" in html
    assert "Mastercard •••• 4444" in html and "Use another card" in html
    card = SavedCard.objects.get(customer=customer)
    assert (card.brand, card.last4) == ("mastercard", "4444")
    assert stripe_sandbox.stored(card.payment_method_id)["customer"] == card.stripe_customer_id
    logged = Activity.objects.get(action="card_saved")
    assert (logged.actor, logged.detail) == (Activity.Actor.CUSTOMER, {"brand": "mastercard", "last4": "4444"})
    assert stripe_sandbox.captures() == []  # nothing bought, nothing charged


def test_the_webhook_and_the_return_page_keep_the_card_once_and_replace_the_old_one(
    signed_in, customer, stripe_sandbox
):
    first = open_setup(signed_in)
    stripe_sandbox.pay(first, GOOD_CARD)
    back_from(signed_in, first)
    old = SavedCard.objects.get(customer=customer).payment_method_id

    second = open_setup(signed_in)
    assert stripe_sandbox.pay(second, MASTERCARD) == "authorised"
    for event in stripe_sandbox.events(type="checkout.session.completed", session=second) * 3:
        assert post_event(Client(), event).status_code == 200
    back_from(signed_in, second)
    back_from(signed_in, second)

    card = SavedCard.objects.get(customer=customer)
    assert card.last4 == "4444"
    assert stripe_sandbox.stored(old)["customer"] is None  # one card is kept: the old one is detached
    assert Activity.objects.filter(action="card_saved").count() == 2  # one per card, not per door
    processed = WebhookEvent.objects.filter(type="checkout.session.completed").values_list("outcome", flat=True)
    assert set(processed) == {WebhookEvent.Outcome.PROCESSED}


def test_a_double_click_opens_one_setup_page(signed_in, stripe_sandbox):
    page = signed_in.get(reverse("account")).content.decode()
    token = re.search(r'name="setup_token" value="([^"]+)"', page)
    assert token is not None
    first = signed_in.post(reverse("billing:card_add"), {"setup_token": token.group(1)})
    second = signed_in.post(reverse("billing:card_add"), {"setup_token": token.group(1)})
    assert first["Location"] == second["Location"]


def test_a_declined_card_saves_nothing_and_the_page_says_it_is_not_confirmed(signed_in, customer, stripe_sandbox):
    session_id = open_setup(signed_in)
    assert stripe_sandbox.pay(session_id, DECLINED_CARD) == "declined"

    html = back_from(signed_in, session_id)

    assert "We are confirming your card" in html and "No card is saved" in html
    assert not SavedCard.objects.get(customer=customer).has_card
    assert not Activity.objects.filter(action="card_saved").exists()


def test_another_customers_setup_session_is_not_kept_on_this_account(
    signed_in, customer, other_customer, stripe_sandbox
):
    session_id = open_setup(signed_in)
    stripe_sandbox.pay(session_id, GOOD_CARD)
    stranger = Client()
    stranger.force_login(other_customer.user)

    asked = len(stripe_sandbox.calls("/v1/"))
    back_from(stranger, session_id)
    back_from(stranger, "cs_test_made_up")

    assert len(stripe_sandbox.calls("/v1/")) == asked  # not a session this browser started: Stripe is not asked
    assert not SavedCard.objects.filter(customer=other_customer, payment_method_id__gt="").exists()
    assert not SavedCard.objects.get(customer=customer).has_card  # only its owner's return (or the event) keeps it


def test_a_forged_form_adds_nothing(signed_in, stripe_sandbox):
    response = signed_in.post(reverse("billing:card_add"), {"setup_token": "not-a-token"}, follow=True)
    assert "This form has expired" in response.content.decode()
    assert stripe_sandbox.calls("/v1/checkout/sessions") == []


def test_staff_acting_as_the_customer_cannot_add_a_card(client, customer, stripe_sandbox):
    start_acting(client, staff_member(), customer, reverse("account"))

    page = client.get(reverse("account"))
    response = client.post(reverse("billing:card_add"), {"setup_token": "8f8d2a3c-9a4e-4a5c-8f7e-3b0d4c1e2f10"})

    assert page.status_code == 200
    assert response.status_code == 403 and REFUSED in response.content.decode()
    assert stripe_sandbox.calls("/v1/checkout/sessions") == []


def test_a_late_event_of_an_older_setup_does_not_bring_its_replaced_card_back(signed_in, customer, stripe_sandbox):
    older = open_setup(signed_in)
    stripe_sandbox.pay(older, GOOD_CARD)
    back_from(signed_in, older)
    newer = open_setup(signed_in)
    stripe_sandbox.pay(newer, MASTERCARD)
    back_from(signed_in, newer)

    for event in stripe_sandbox.events(type="checkout.session.completed", session=older):
        assert post_event(Client(), event).status_code == 200

    assert SavedCard.objects.get(customer=customer).last4 == "4444"
    assert Activity.objects.filter(action="card_saved").count() == 2


def test_the_service_itself_refuses_staff_acting_as_the_customer(customer, stripe_sandbox):
    with acting(ActingAs(Activity.Actor.STAFF_AS_CUSTOMER, None, "support@example.com")), pytest.raises(ActingRefused):
        card_setup_start(
            customer=customer, token=uuid.uuid4(), success_url="http://testserver/", cancel_url="http://testserver/"
        )
    assert stripe_sandbox.calls("/v1/") == []
