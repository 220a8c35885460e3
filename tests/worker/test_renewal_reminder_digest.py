"""One renewal reminder email per customer per day, listing every domain of theirs that is due: never one email per
domain per offset. A domain that comes due later the same day waits for the next day's email (recorded then)."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.core import mail
from django.test import override_settings

from domains.models import RenewalReminder
from domains.orders.tasks import send_renewal_reminders
from storefront.models import OutgoingEmail
from tests.worker.test_renewal_reminders import NOW, order_expiring

pytestmark = pytest.mark.django_db(transaction=True)


@override_settings(SITE_URL="https://shop.example")
def test_every_domain_due_is_in_one_email_of_the_day(customer, other_customer):
    soon = order_expiring(customer, days=7, name="soon.com")
    month = order_expiring(customer, days=30, name="month.com")
    lapsed = order_expiring(customer, days=-3, name="lapsed.com")
    order_expiring(customer, days=200, name="far.com")
    theirs = order_expiring(other_customer, days=7, name="theirs.com")

    with time_machine.travel(NOW, tick=False):
        send_renewal_reminders.enqueue()
        send_renewal_reminders.enqueue()

    assert len(mail.outbox) == 2  # one per customer, however often the job runs
    [digest] = [m for m in mail.outbox if m.to == [customer.email]]
    assert digest.subject == "3 of your domains need renewing"
    body = digest.body
    assert "These domains of yours need renewing:" in body
    assert "Your domain lapsed.com expired on" in body
    assert "Your domain soon.com expires on Jun 8, 2026, in 7 days." in body
    assert "Your domain month.com expires on Jul 1, 2026, in 30 days." in body
    assert "far.com" not in body
    assert body.index("lapsed.com") < body.index("soon.com") < body.index("month.com")  # soonest first
    for order in (soon, month, lapsed):
        assert f"Renew it here: https://shop.example/orders/{order.order_id}/" in body
    assert "Or renew them together, in one payment, from your domains list: https://shop.example/orders/" in body
    [single] = [m for m in mail.outbox if m.to == [other_customer.email]]
    assert single.subject == "theirs.com expires in 7 days"
    assert f"/orders/{theirs.order_id}/" in single.body and "together" not in single.body
    assert RenewalReminder.objects.count() == 4
    assert OutgoingEmail.objects.filter(key__startswith=f"renewal-reminders:{customer.pk}:").count() == 1


def test_a_domain_due_later_the_same_day_waits_for_the_next_days_email(offline_customer):
    order_expiring(offline_customer, days=7, name="first.com")
    with time_machine.travel(NOW, tick=False):
        send_renewal_reminders.enqueue()
    later = order_expiring(offline_customer, days=7, name="later.com")  # e.g. synced in the afternoon

    with time_machine.travel(NOW + dt.timedelta(hours=3), tick=False):
        send_renewal_reminders.enqueue()
    assert len(mail.outbox) == 1
    assert not RenewalReminder.objects.filter(order=later).exists()  # not recorded unsent

    with time_machine.travel(NOW + dt.timedelta(days=1), tick=False):
        send_renewal_reminders.enqueue()
    assert len(mail.outbox) == 2
    assert "later.com expires in 6 days" in mail.outbox[1].subject
    assert "first.com" not in mail.outbox[1].body  # already reminded at this offset


def test_the_email_is_in_the_customers_language(offline_customer):
    offline_customer.language = "es"
    offline_customer.save(update_fields=["language"])
    order_expiring(offline_customer, days=7, name="uno.com")
    order_expiring(offline_customer, days=30, name="dos.com")

    with time_machine.travel(NOW, tick=False):
        send_renewal_reminders.enqueue()

    [digest] = mail.outbox
    assert "need renewing" not in digest.subject and "2" in digest.subject
    assert "uno.com" in digest.body and "dos.com" in digest.body
