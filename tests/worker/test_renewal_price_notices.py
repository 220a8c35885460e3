"""Renewal price notices (domains/renewal_prices.py): a domain on auto-renew whose renewal price rose over what its
customer last paid is told once, in the renewal email of the day, 30 days or more before auto-renew charges the new
price; auto-renew never charges more than the price the customer was told in time."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest
import time_machine
from django.core import mail
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from billing.models import Payment, SaleCause
from domains.models import Order, RenewalPriceNotice
from domains.orders.services import order_fetch
from domains.orders.tasks import auto_renew_domains, send_renewal_reminders
from pricing.models import CostPrice
from tests.worker.test_auto_renew import due_on_auto_renew, renew_once_by_card  # noqa: F401  (the fixture)

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db(transaction=True)

# The demo catalogue's .com renewal costs 14.99 and the store adds 1.50: the customer last paid 16.49 a year.
PAID = "$16.49"


def com_renewal_costs(amount: str) -> None:
    """The provider's one-year .com renewal now costs `amount` (a price sync saw it)."""
    assert CostPrice.objects.filter(tld__name="com", operation="renew", years=1, current=True).update(
        amount=Decimal(amount)
    )


@pytest.fixture
def on_auto_renew(signed_in, customer, provider_orders, stripe_sandbox) -> Order:
    """A domain of `customer` 50 days from expiry (auto-renew charges it in 36), on auto-renew with a saved card,
    its last renewal paid at 16.49."""
    order = provider_orders.register(customer, f"notice{uuid.uuid4().hex[:8]}.com")
    renew_once_by_card(signed_in, order, stripe_sandbox)
    provider_orders.set_expiry_in_days(order, 50)
    order_fetch(order=order)  # our copy, as the order sync keeps it
    switched = signed_in.post(reverse("order_auto_renew", args=[order.order_id]), {"auto_renew": "on"}, follow=True)
    assert "Auto-renew is on" in switched.content.decode()
    mail.outbox.clear()
    return order


def auto_renewal_charged(order: Order) -> Decimal | None:
    payment = Payment.objects.filter(lines__cause=SaleCause.AUTO_RENEWAL, lines__reference=order.domain_name).first()
    assert payment is None or payment.status == Payment.Status.CAPTURED
    return payment.amount_captured if payment is not None else None


@override_settings(SITE_URL="https://shop.example")
def test_a_rise_is_told_once_shown_on_the_page_and_auto_renew_charges_the_told_price(on_auto_renew, signed_in):
    order = on_auto_renew
    com_renewal_costs("16.99")  # retail 18.49 a year

    send_renewal_reminders.enqueue()
    send_renewal_reminders.enqueue()
    with time_machine.travel(timezone.now() + dt.timedelta(days=1)):
        send_renewal_reminders.enqueue()

    [notice] = mail.outbox  # one, however often the job runs
    assert notice.to == [order.customer.email]
    assert notice.subject == f"The renewal price of {order.domain_name} is going up"
    assert f"The renewal price of {order.domain_name} has gone up from {PAID} to $18.49 a year." in notice.body
    assert "it will be renewed on" in notice.body and "at the new price, charged to your saved card." in notice.body
    assert "If you do not want it renewed at the new price, turn auto-renew off on its page" in notice.body
    assert f"https://shop.example/orders/{order.order_id}/" in notice.body
    assert RenewalPriceNotice.objects.get(order=order).new_price == Decimal("18.49")

    page = signed_in.get(reverse("order_detail", args=[order.order_id])).content.decode()
    assert f"The renewal price of this domain went up from {PAID} to $18.49 a year" in page

    # 36 days on, auto-renew's day: the notice is more than 30 days old, so the new price is charged.
    with time_machine.travel(timezone.now() + dt.timedelta(days=36, hours=1)):
        auto_renew_domains.enqueue()
        assert auto_renewal_charged(order) == Decimal("18.49")
        mail.outbox.clear()
        send_renewal_reminders.enqueue()
    assert mail.outbox == []  # paid at the new price: nothing more to tell
    assert RenewalPriceNotice.objects.filter(order=order).count() == 1


def test_a_rise_told_too_late_is_not_charged_this_time(due_on_auto_renew):  # noqa: F811
    """Six days from expiry, auto-renew charges at the next run: the customer is told, but charged what they knew."""
    order = due_on_auto_renew
    com_renewal_costs("16.99")

    send_renewal_reminders.enqueue()
    [notice] = mail.outbox
    assert f"has gone up from {PAID} to $18.49 a year." in notice.body
    assert f"at {PAID}, the price you knew, because we could not tell you 30 days ahead." in notice.body

    auto_renew_domains.enqueue()

    assert auto_renewal_charged(order) == Decimal("16.49")
    order.refresh_from_db()
    assert order.auto_renew and order.auto_renew_failed_at is None


def test_a_second_rise_is_told_again_and_charged_only_once_told_in_time(on_auto_renew):
    order = on_auto_renew
    com_renewal_costs("16.99")  # 18.49
    send_renewal_reminders.enqueue()
    assert len(mail.outbox) == 1

    with time_machine.travel(timezone.now() + dt.timedelta(days=20)):
        com_renewal_costs("18.99")  # 20.49: 16 days before auto-renew charges
        send_renewal_reminders.enqueue()
    assert len(mail.outbox) == 2
    second = mail.outbox[1]
    assert f"has gone up from {PAID} to $20.49 a year." in second.body
    assert "at $18.49, the price you knew" in second.body  # the first notice's price, told in time

    with time_machine.travel(timezone.now() + dt.timedelta(days=36, hours=1)):
        auto_renew_domains.enqueue()
    assert auto_renewal_charged(order) == Decimal("18.49")
    assert RenewalPriceNotice.objects.filter(order=order).count() == 2


def test_no_notice_when_the_price_did_not_rise(on_auto_renew):
    order = on_auto_renew
    send_renewal_reminders.enqueue()
    com_renewal_costs("13.99")  # it fell
    send_renewal_reminders.enqueue()

    assert mail.outbox == []
    assert not RenewalPriceNotice.objects.exists()
    with time_machine.travel(timezone.now() + dt.timedelta(days=36, hours=1)):
        auto_renew_domains.enqueue()
    assert auto_renewal_charged(order) == Decimal("15.49")  # a fall is passed on at once


def test_the_notice_is_in_the_customers_language(on_auto_renew, customer):
    customer.language = "es"
    customer.save(update_fields=["language"])
    com_renewal_costs("16.99")

    send_renewal_reminders.enqueue()

    [notice] = mail.outbox
    assert notice.subject == f"El precio de renovación de {on_auto_renew.domain_name} va a subir"
    assert "ha subido de" in notice.body and "desactiva la renovación automática" in notice.body
