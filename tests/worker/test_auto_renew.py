"""Auto-renew: a domain switched to it is charged off-session on the saved card and renewed, once, however often
the daily job runs; a declined charge renews nothing, tells the customer and staff, and the reminders resume."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.core import mail
from django.test import Client, override_settings
from django.urls import reverse

from billing.models import Payment, SavedCard
from domains.alerts import staff_alerts
from domains.models import Order, Renewal
from domains.orders.auto_renew import auto_renew_checkout_id
from domains.orders.services import order_fetch, renew_quote
from domains.orders.tasks import auto_renew_domains, send_renewal_reminders
from pricing.money import Money
from tests.billing.conftest import GOOD_CARD
from tests.domains.orders.test_order_renew import confirm, open_page, renew_calls, years_later

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db(transaction=True)
STAFF = [("Staff", "staff@example.org")]


def renew_once_by_card(client, order: Order, stripe_sandbox) -> None:
    """A renewal paid on the order page, as the customer does: it keeps their card for auto-renew."""
    form = open_page(client, order)
    response = confirm(client, order, form, 1)
    payment = Payment.objects.get(checkout_id=uuid.UUID(form["renew_token"]))
    assert response.status_code == 303
    assert stripe_sandbox.pay(payment.stripe_session_id, GOOD_CARD) == "authorised"
    client.get(reverse("order_detail", args=[order.order_id]) + f"?renewal={payment.checkout_id}")
    assert SavedCard.objects.get(customer=order.customer).has_card


@pytest.fixture
def due_on_auto_renew(signed_in, customer, provider_orders, stripe_sandbox):
    """A domain of `customer` six days from expiry, on auto-renew, with a saved card."""
    order = provider_orders.register(customer, f"auto{uuid.uuid4().hex[:8]}.com")
    renew_once_by_card(signed_in, order, stripe_sandbox)
    provider_orders.set_expiry_in_days(order, 6)
    order_fetch(order=order)  # our copy, as the order sync keeps it
    switched = signed_in.post(reverse("order_auto_renew", args=[order.order_id]), {"auto_renew": "on"}, follow=True)
    assert "Auto-renew is on" in switched.content.decode()
    order.refresh_from_db()
    assert order.auto_renew
    mail.outbox.clear()
    return order


@override_settings(ADMINS=STAFF)
def test_an_auto_renew_domain_is_charged_and_renewed_once_when_the_job_runs_twice(
    due_on_auto_renew, provider_orders, provider_calls, stripe_sandbox
):
    order = due_on_auto_renew
    before = provider_orders.at_provider(order).expires_at
    # The retail price of a year: the demo catalogue's .com renewal cost, 14.99, plus the store's 1.50 a year.
    price = Decimal("16.49")
    assert renew_quote(domain_name=order.domain_name, years=1).cost == Money(Decimal("14.99"), "USD")
    provider_calls.clear()

    auto_renew_domains.enqueue()
    auto_renew_domains.enqueue()

    assert renew_calls(provider_calls) == 1
    assert provider_orders.at_provider(order).expires_at == years_later(before, 1)
    checkout_id = auto_renew_checkout_id(order=order, expiry_timestamp=int(before.timestamp()))
    payment = Payment.objects.get(checkout_id=checkout_id)
    assert (payment.status, payment.amount_authorised, payment.amount_captured) == (
        Payment.Status.CAPTURED,
        price,
        price,
    ), "the saved card was not charged the retail renewal price"
    intent = stripe_sandbox.stored(payment.stripe_payment_intent_id)
    assert (intent["amount_received"], intent["capture_method"]) == (1649, "manual")
    created = [c for c in stripe_sandbox.calls("/v1/payment_intents") if c["path"].endswith("/payment_intents")]
    assert [c["status"] for c in created] == [200]  # one off-session charge, whatever the runs
    renewal = Renewal.objects.get(token=checkout_id)
    assert (renewal.status, renewal.price, renewal.cost_price) == (Renewal.RENEWED, price, Decimal("14.99"))
    assert payment.receipt.amount == price
    # The customer gets the renewal's confirmation and its receipt, once each; nobody gets a failure.
    assert sorted((m.to, m.subject.split()[0]) for m in mail.outbox) == [
        ([order.customer.email], "Your"),
        ([order.customer.email], order.domain_name),
    ]
    receipt_mail = next(m for m in mail.outbox if m.subject.startswith("Your"))
    assert "receipt" in receipt_mail.subject
    assert f"{order.domain_name}, renewal for 1 year: $16.49" in receipt_mail.body
    order.refresh_from_db()
    assert order.auto_renew and order.auto_renew_failed_at is None


@override_settings(ADMINS=STAFF)
def test_a_declined_charge_renews_nothing_tells_customer_and_staff_and_reminders_resume(
    due_on_auto_renew, provider_orders, provider_calls, stripe_sandbox
):
    order = due_on_auto_renew
    before = provider_orders.at_provider(order).expires_at
    send_renewal_reminders.enqueue()
    assert mail.outbox == []  # on auto-renew with a card: no reminder
    stripe_sandbox.setup(decline_all_cards=True)
    provider_calls.clear()

    auto_renew_domains.enqueue()
    auto_renew_domains.enqueue()

    assert renew_calls(provider_calls) == 0
    assert provider_orders.at_provider(order).expires_at == before
    order.refresh_from_db()
    assert (order.auto_renew, order.auto_renew_failure) == (False, "card_declined")
    customer_mail, staff_mail = sorted(mail.outbox, key=lambda m: m.to != [order.customer.email])
    assert customer_mail.subject == f"Auto-renew of {order.domain_name} did not go through: please renew it yourself"
    assert "your saved card was declined" in customer_mail.body and "You have not been charged" in customer_mail.body
    assert staff_mail.to == ["staff@example.org"] and order.domain_name in staff_mail.subject
    assert [alert.key for alert in staff_alerts() if alert.key == "auto_renew"] == ["auto_renew"]  # admin banner
    assert len(stripe_sandbox.captures()) == 1  # only the first renewal's, paid on the page

    mail.outbox.clear()
    send_renewal_reminders.enqueue()
    [reminder] = mail.outbox
    assert reminder.subject == f"{order.domain_name} expires in 6 days"


def test_the_switch_checks_ownership_and_csrf_and_needs_a_saved_card(
    signed_in, customer, other_customer, provider_orders, stripe_sandbox
):
    order = provider_orders.register(customer, f"switch{uuid.uuid4().hex[:8]}.com")
    url = reverse("order_auto_renew", args=[order.order_id])

    page = signed_in.post(url, {"auto_renew": "on"}, follow=True).content.decode()
    assert "Auto-renew needs a saved card, and none is saved." in page
    order.refresh_from_db()
    assert not order.auto_renew

    stranger = Client()
    stranger.force_login(other_customer.user)
    assert stranger.post(url, {"auto_renew": "off"}).status_code == 404
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(customer.user)
    assert strict.post(url, {"auto_renew": "on"}).status_code == 403
    assert signed_in.get(url).status_code == 405


@override_settings(ADMINS=STAFF)
def test_a_renewal_refused_after_the_charge_releases_the_money(
    due_on_auto_renew, provider_orders, fake_gateway, stripe_sandbox
):
    order = due_on_auto_renew
    before = provider_orders.at_provider(order).expires_at

    with fake_gateway.fault(error_200_message="Renewal is not possible for this domain", scope="renew"):
        auto_renew_domains.enqueue()

    payment = Payment.objects.get(
        checkout_id=auto_renew_checkout_id(order=order, expiry_timestamp=int(before.timestamp()))
    )
    assert (payment.status, payment.amount_captured) == (Payment.Status.CANCELLED, 0)
    assert stripe_sandbox.stored(payment.stripe_payment_intent_id)["status"] == "canceled"
    assert provider_orders.at_provider(order).expires_at == before
    order.refresh_from_db()
    assert (order.auto_renew, order.auto_renew_failure) == (False, "not_renewed")
    customer_mail = next(m for m in mail.outbox if m.to == [order.customer.email])
    assert "the domain service did not renew it" in customer_mail.body
    assert any(m.to == ["staff@example.org"] for m in mail.outbox)
