"""Renewals paid through Stripe Checkout (payments on): the confirmation answers 303 to the payment page; the
return and the webhook renew once from the confirmed expiry, then capture the renewal's retail price, or release
it when the renewal did not happen. Nothing is renewed before the payment is authorised.
"""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from billing.models import Payment, SavedCard
from domains.checkout.tasks import reconcile_registrations
from domains.models import Order, Renewal
from domains.orders.services import renew_quote
from pricing.money import Money
from tests.billing.conftest import DECLINED_CARD, GOOD_CARD, post_event
from tests.domains.orders.test_order_renew import confirm, open_page, renew_calls, years_later

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db(transaction=True)


def start_renewal(client, order: Order, years: int = 2) -> tuple[Payment, str]:
    form = open_page(client, order)
    response = confirm(client, order, form, years)
    assert response.status_code == 303, response.content
    payment = Payment.objects.get(checkout_id=uuid.UUID(form["renew_token"]))
    return payment, response["Location"]


def come_back(client, order: Order, payment: Payment) -> str:
    url = reverse("order_detail", args=[order.order_id]) + f"?renewal={payment.checkout_id}"
    return client.get(url, follow=True).content.decode()


def test_the_confirmation_pays_first_then_renews_once_and_captures_the_renewal_price(
    signed_in, customer, provider_orders, provider_calls, stripe_sandbox, mailoutbox
):
    order = provider_orders.register(customer, "payrenew.com")
    before = provider_orders.at_provider(order).expires_at
    # The retail price of two years: the demo catalogue's .com renewal cost, 2 * 14.99, plus the store's 1.50 a year.
    price = Money(Decimal("32.98"), "USD")
    assert renew_quote(domain_name="payrenew.com", years=2).cost == Money(Decimal("29.98"), "USD")

    payment, url = start_renewal(signed_in, order, 2)

    assert url.startswith(stripe_sandbox.api_base + "/pay/")
    assert (payment.amount, payment.currency) == (price.amount, price.currency), "not the retail renewal price"
    assert [line.description for line in payment.lines.all()] == ["payrenew.com, renewal for 2 years"]
    # Nothing renewed before the payment is authorised: the provider was not asked, its expiry did not move.
    assert renew_calls(provider_calls) == 0
    assert provider_orders.at_provider(order).expires_at == before
    assert not Renewal.objects.exists()

    assert stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD) == "authorised"
    html = come_back(signed_in, order, payment)

    after = provider_orders.at_provider(order).expires_at
    assert after == years_later(before, 2)
    assert f"Renewed until {after.strftime('%b %-d, %Y')}." in html
    assert "Your card was charged $32.98." in html
    payment.refresh_from_db()
    assert (payment.status, payment.amount_authorised, payment.amount_captured) == (
        Payment.Status.CAPTURED,
        price.amount,
        price.amount,
    ), "the card was not charged the retail renewal price"
    renewal = Renewal.objects.get()
    assert (renewal.status, renewal.price, renewal.token) == (Renewal.RENEWED, price.amount, payment.checkout_id)
    assert (renewal.cost_price, renewal.margin) == (Decimal("29.98"), Decimal("3.00"))
    assert (payment.receipt.amount, payment.receipt.currency) == (price.amount, "USD")
    [receipt_mail] = [m for m in mailoutbox if m.subject.startswith("Your receipt")]
    assert "payrenew.com, renewal for 2 years: $32.98" in receipt_mail.body
    assert "Total paid (USD): $32.98" in receipt_mail.body
    assert len(stripe_sandbox.captures()) == 1
    # The card paid with is kept for auto-renew.
    card = SavedCard.objects.get(customer=customer)
    assert (card.brand, card.last4) == ("visa", "4242")


def test_a_replayed_webhook_racing_the_return_renews_once(
    signed_in, customer, provider_orders, provider_calls, stripe_sandbox
):
    order = provider_orders.register(customer, "replayrenew.com")
    before = provider_orders.at_provider(order).expires_at
    payment, _ = start_renewal(signed_in, order, 1)
    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)

    for event in stripe_sandbox.events(type="checkout.session.completed") * 5:
        assert post_event(Client(), event).status_code == 200
    come_back(signed_in, order, payment)

    assert renew_calls(provider_calls) == 1
    assert provider_orders.at_provider(order).expires_at == years_later(before, 1)
    assert Renewal.objects.count() == 1
    assert len(stripe_sandbox.captures()) == 1


def test_a_declined_card_renews_nothing_and_charges_nothing(
    signed_in, customer, provider_orders, provider_calls, stripe_sandbox
):
    order = provider_orders.register(customer, "declinedrenew.com")
    before = provider_orders.at_provider(order).expires_at
    payment, _ = start_renewal(signed_in, order, 1)

    assert stripe_sandbox.pay(payment.stripe_session_id, DECLINED_CARD) == "declined"
    # Back anyway (the Back button): the page waits a while for a payment Stripe never confirms, then says so.
    assert "We are confirming your payment" in come_back(signed_in, order, payment)
    url = reverse("order_detail", args=[order.order_id]) + f"?renewal={payment.checkout_id}&polls=15"
    html = signed_in.get(url, follow=True).content.decode()

    assert "Your payment is not confirmed yet" in html
    assert renew_calls(provider_calls) == 0
    assert provider_orders.at_provider(order).expires_at == before
    assert not Renewal.objects.exists()
    assert stripe_sandbox.captures() == []


def test_a_renewal_refused_after_paying_is_released_not_charged(
    signed_in, customer, provider_orders, provider_calls, stripe_sandbox
):
    order = provider_orders.register(customer, "movedrenew.com")
    payment, _ = start_renewal(signed_in, order, 1)
    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    # Renewed elsewhere meanwhile (another tab, staff): the fresh expiry check refuses this one.
    provider_orders.set_expiry_in_days(order, 700)

    html = come_back(signed_in, order, payment)

    assert "could not be renewed" in html and "You have not been charged" in html
    assert renew_calls(provider_calls) == 0
    payment.refresh_from_db()
    assert (payment.status, payment.amount_captured) == (Payment.Status.CANCELLED, Decimal("0"))
    assert stripe_sandbox.captures() == []
    assert stripe_sandbox.stored(payment.stripe_payment_intent_id)["status"] == "canceled"
    assert Renewal.objects.get().status == Renewal.FAILED


def test_a_lost_renewal_answer_holds_the_money_until_reconciled_then_captures(
    signed_in, customer, provider_orders, fake_gateway, stripe_sandbox
):
    order = provider_orders.register(customer, "lostpaidrenew.com")
    before = provider_orders.at_provider(order).expires_at
    payment, _ = start_renewal(signed_in, order, 1)
    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)

    with fake_gateway.fault(hang_seconds=3, hang_after_commit=True, scope="renew"):
        html = come_back(signed_in, order, payment)

    assert "could not confirm the renewal" in html
    payment.refresh_from_db()
    assert (payment.status, payment.amount_captured) == (Payment.Status.AUTHORISED, Decimal("0"))
    assert stripe_sandbox.captures() == []

    reconcile_registrations.enqueue()  # the worker's periodic job (immediate backend in tests)

    payment.refresh_from_db()
    assert payment.status == Payment.Status.CAPTURED
    assert Renewal.objects.get().new_expires_at == years_later(before, 1)
    assert len(stripe_sandbox.captures()) == 1


def test_the_confirmation_button_says_the_renewal_is_paid_online(signed_in, customer, provider_orders, stripe_sandbox):
    order = provider_orders.register(customer, "buttonrenew.com")
    form = open_page(signed_in, order)

    html = signed_in.post(reverse("order_renew", args=[order.order_id]), {**form, "duration": 1}).content.decode()

    assert "Pay $" in html and "and renew" in html
    assert not Payment.objects.exists()


def test_the_return_checks_ownership_before_settling(
    signed_in, customer, other_customer, provider_orders, provider_calls, stripe_sandbox
):
    order = provider_orders.register(customer, "returnowner.com")
    payment, _ = start_renewal(signed_in, order, 1)
    stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD)
    stranger = Client()
    stranger.force_login(other_customer.user)
    provider_calls.clear()

    response = stranger.get(reverse("order_detail", args=[order.order_id]) + f"?renewal={payment.checkout_id}")

    assert response.status_code == 404
    assert provider_calls == []
    payment.refresh_from_db()
    assert payment.status == Payment.Status.CREATED


def test_with_payments_disabled_the_renewal_is_made_without_payment(
    signed_in, customer, provider_orders, stripe_sandbox, settings
):
    settings.PAYMENTS_DISABLED = True  # the reseller bills offline
    order = provider_orders.register(customer, "offlinerenew.com")
    before = provider_orders.at_provider(order).expires_at

    response = confirm(signed_in, order, open_page(signed_in, order), 1, follow=True)

    assert "Renewed until" in response.content.decode()
    assert provider_orders.at_provider(order).expires_at == years_later(before, 1)
    assert not Payment.objects.exists()
    assert stripe_sandbox.calls() == []
