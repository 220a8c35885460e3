"""Renewal reminders: one per order, expiry and offset, in one email per customer per day, with the renewal price
and a link to renew (the digest itself: tests/worker/test_renewal_reminder_digest.py)."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
import time_machine
from django.core import mail
from django.test import override_settings

from domains.models import Order, RenewalReminder
from domains.orders.tasks import send_renewal_reminders
from storefront.models import OutgoingEmail
from storefront.tasks import send_due_emails

pytestmark = pytest.mark.django_db(transaction=True)

NOW = dt.datetime(2026, 6, 1, 9, 0, tzinfo=dt.UTC)
_ids = itertools.count(700_001)


def order_expiring(customer, *, days: float, name: str = "reminded.com") -> Order:
    return Order.objects.create(
        order_id=next(_ids), customer=customer, domain_name=name, expires_at=NOW + dt.timedelta(days=days)
    )


@override_settings(SITE_URL="https://shop.example")
def test_a_domain_30_days_from_expiry_gets_exactly_one_reminder_even_when_the_job_runs_twice(customer):
    order = order_expiring(customer, days=30)
    with time_machine.travel(NOW, tick=False):
        send_renewal_reminders.enqueue()
        send_renewal_reminders.enqueue()

    [message] = mail.outbox
    assert message.to == [customer.email]
    assert message.subject == "reminded.com expires in 30 days"
    assert f"Renew it here: https://shop.example/orders/{order.order_id}/" in message.body
    # The demo catalogue's .com renewal at our retail price (14.99 + 1.50), as the order page shows it.
    assert "Renewal: $16.49 per year." in message.body
    assert RenewalReminder.objects.get().days_before == 30


def test_the_next_offset_sends_the_next_reminder_and_a_renewal_stops_them(offline_customer):
    order = order_expiring(offline_customer, days=30)
    with time_machine.travel(NOW, tick=False):
        send_renewal_reminders.enqueue()
    with time_machine.travel(NOW + dt.timedelta(days=10), tick=False):  # 20 days left: nothing new
        send_renewal_reminders.enqueue()
    assert len(mail.outbox) == 1
    with time_machine.travel(NOW + dt.timedelta(days=23, hours=1), tick=False):  # inside 7 days
        send_renewal_reminders.enqueue()
    assert len(mail.outbox) == 2
    assert "expires in 7 days" in mail.outbox[1].subject

    Order.objects.filter(pk=order.pk).update(expires_at=order.expires_at + dt.timedelta(days=365))  # renewed
    with time_machine.travel(NOW + dt.timedelta(days=29, hours=1), tick=False):  # the old 1-day mark
        send_renewal_reminders.enqueue()
    assert len(mail.outbox) == 2


def test_a_reminder_after_expiry_and_none_for_far_off_domains(offline_customer):
    order_expiring(offline_customer, days=-3, name="lapsed.com")
    order_expiring(offline_customer, days=200, name="far.com")
    with time_machine.travel(NOW, tick=False):
        send_renewal_reminders.enqueue()
    [message] = mail.outbox
    assert message.subject == "lapsed.com expired 3 days ago: renew it to keep it"


def test_a_failed_send_is_retried_by_the_outbox(offline_customer, mail_server):
    order_expiring(offline_customer, days=7)
    mail_server.down = True
    with time_machine.travel(NOW, tick=False):
        send_renewal_reminders.enqueue()
    assert RenewalReminder.objects.count() == 1
    email = OutgoingEmail.objects.get(key=f"renewal-reminders:{offline_customer.pk}:{NOW.date().isoformat()}")
    assert email.sent_at is None and email.attempts == 1 and mail.outbox == []

    mail_server.down = False
    with time_machine.travel(NOW + dt.timedelta(hours=1), tick=False):
        send_renewal_reminders.enqueue()  # the next hourly run records nothing new
        send_due_emails.enqueue()
        send_due_emails.enqueue()
    assert len(mail.outbox) == 1
    assert RenewalReminder.objects.count() == 1
