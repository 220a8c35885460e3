"""The registrant's 14-day email check, in front of the customer: the confirmation page and email, the domain's page
while it runs, the day-7 and day-12 reminders (clock moved), a suspended domain's likely cause, the email change."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
import time_machine
from django.core import mail
from django.test import override_settings
from django.urls import reverse
from django.utils import formats, timezone

from domains.models import Order
from domains.tasks import send_verification_reminders
from domains.verification import verification_reminders_send
from tests.domains.checkout.test_checkout import place, review
from tests.domains.conftest import line, put_in_cart, wait_for_mail

pytest_plugins = ["tests.domains.fixtures_orders"]
pytestmark = pytest.mark.django_db(transaction=True)

NOTICE = "The domain service emails {email} a link to confirm the registrant's email address. Open it and confirm by"
START = dt.datetime(2026, 3, 2, 10, 0, tzinfo=dt.UTC)


def deadline_text(started: dt.datetime) -> str:
    return formats.date_format(started + dt.timedelta(days=14), "DATE_FORMAT")


def registered_order(customer, provider_orders, *, started: dt.datetime = START) -> Order:
    order = provider_orders.register(customer, f"ver{uuid.uuid4().hex[:8]}.com")
    Order.objects.filter(pk=order.pk).update(verification_started_at=started)
    order.refresh_from_db()
    return order


def test_the_confirmation_page_and_email_say_it_with_the_date(client, customer, seeded_partner):
    client.force_login(customer.user)
    name = f"ver{uuid.uuid4().hex[:8]}.com"
    put_in_cart(client, line(name))
    checkout_id = review(client).context["checkout_id"]
    place(client, checkout_id)

    order = Order.objects.get(domain_name=name)
    assert order.verification_started_at is not None  # the registration started the check
    deadline = deadline_text(order.verification_started_at)
    page = client.get(f"/checkout/{checkout_id}/").content.decode()
    assert NOTICE.format(email=customer.email) in page
    assert f"confirm by {deadline}: if the address is not confirmed within 14 days" in page
    [message] = wait_for_mail(1)
    assert NOTICE.format(email=customer.email) in message.body
    assert f"confirm by {deadline}" in message.body
    assert "the registry suspends the domain until it is" in message.alternatives[0][0]


def test_the_domain_page_shows_it_during_the_14_days_only(signed_in, customer, provider_orders):
    order = registered_order(customer, provider_orders, started=timezone.now() - dt.timedelta(days=3))
    page = signed_in.get(reverse("order_detail", args=[order.order_id])).content.decode()
    assert NOTICE.format(email=customer.email) in page
    assert f"confirm by {deadline_text(order.verification_started_at)}" in page

    Order.objects.filter(pk=order.pk).update(verification_started_at=timezone.now() - dt.timedelta(days=15))
    page = signed_in.get(reverse("order_detail", args=[order.order_id])).content.decode()
    assert "registrant-verification" not in page


def test_a_domain_this_store_did_not_register_shows_nothing(signed_in, customer, provider_orders):
    order = provider_orders.register(customer, f"old{uuid.uuid4().hex[:8]}.com")  # our copy from the listing
    page = signed_in.get(reverse("order_detail", args=[order.order_id])).content.decode()
    assert "registrant-verification" not in page


def test_i_have_confirmed_it_ends_the_notice_and_the_reminders(signed_in, customer, provider_orders):
    order = registered_order(customer, provider_orders, started=timezone.now() - dt.timedelta(days=8))
    response = signed_in.post(reverse("order_verification_confirmed", args=[order.order_id]), follow=True)
    page = response.content.decode()
    assert "We won&#x27;t remind you about confirming the registrant&#x27;s email address again." in page
    assert "registrant-verification" not in page
    assert verification_reminders_send() == 0


def test_confirming_someone_elses_domain_is_not_found(signed_in, other_customer, provider_orders, provider_calls):
    order = registered_order(other_customer, provider_orders)
    response = signed_in.post(reverse("order_verification_confirmed", args=[order.order_id]))
    assert response.status_code == 404
    assert Order.objects.get(pk=order.pk).verification_confirmed_at is None


@override_settings(SITE_URL="https://shop.example")
def test_reminders_go_on_day_7_and_day_12_once_each(customer, provider_orders):
    order = registered_order(customer, provider_orders)
    mail.outbox.clear()
    for days in (1, 6.9):
        with time_machine.travel(START + dt.timedelta(days=days), tick=False):
            send_verification_reminders.enqueue()
    assert mail.outbox == []

    with time_machine.travel(START + dt.timedelta(days=7, hours=1), tick=False):
        send_verification_reminders.enqueue()
        send_verification_reminders.enqueue()  # a second run that day
    [day7] = wait_for_mail(1)
    assert day7.to == [customer.email]
    assert order.domain_name in day7.subject
    assert f"You registered {order.domain_name} 7 days ago." in day7.body
    assert f"confirm by {deadline_text(START)}" in day7.body
    assert f"https://shop.example/orders/{order.order_id}/" in day7.body

    for days in (8, 11):
        with time_machine.travel(START + dt.timedelta(days=days), tick=False):
            send_verification_reminders.enqueue()
    assert len(mail.outbox) == 1
    with time_machine.travel(START + dt.timedelta(days=12, hours=2), tick=False):
        send_verification_reminders.enqueue()
    assert "12 days ago" in wait_for_mail(2)[1].body
    for days in (13, 14.5, 20):
        with time_machine.travel(START + dt.timedelta(days=days), tick=False):
            send_verification_reminders.enqueue()
    assert len(mail.outbox) == 2


def test_no_reminder_for_a_domain_no_longer_active(customer, provider_orders):
    order = registered_order(customer, provider_orders)
    Order.objects.filter(pk=order.pk).update(status=Order.Status.SUSPENDED)
    assert verification_reminders_send(now=START + dt.timedelta(days=7, hours=1)) == 0


def test_a_suspended_domain_names_the_unconfirmed_address_as_the_likely_cause(signed_in, customer, provider_orders):
    order = registered_order(customer, provider_orders, started=timezone.now() - dt.timedelta(days=20))
    provider_orders.set_status(order, "Suspended")
    Order.objects.filter(pk=order.pk).update(status=Order.Status.SUSPENDED)
    page = signed_in.get(reverse("order_detail", args=[order.order_id])).content.decode()
    assert "Most likely cause: the registrant's email address was not confirmed." in page
    assert f"domain service emails {customer.email} a link to confirm it" in page
    assert "Look for that email (check your spam folder) and open its link" in page
    assert "If you can't find it, please" in page and "contact support" in page


def test_the_contact_page_says_changing_the_email_restarts_the_check(signed_in):
    page = signed_in.get(reverse("account_contact")).content.decode()
    assert "Changing your email address restarts the registrant check" in page
