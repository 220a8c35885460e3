"""The activity log of money: every service that moves a customer's money writes one row per movement, with the right
actor (the system settling a payment in the worker, staff refunding or writing off in the admin, Stripe's events
processed as the system), and a card by its brand and last four at most."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client

from accounts.activity import ActingAs, acting, activity_text
from accounts.models import Activity
from billing.cards import card_remove
from billing.collection import payment_write_off
from billing.models import Payment, SavedCard
from billing.refunds import refund_line
from billing.services import payment_settle
from tests.billing.conftest import GOOD_CARD, deliver
from tests.billing.fakes import LineOutcome

pytestmark = pytest.mark.django_db
Actor = Activity.Actor


def actions(payment: Payment | None = None) -> list[tuple[str, str]]:
    found = Activity.objects.order_by("pk")
    if payment is not None:
        found = found.filter(payment_id=payment.pk)
    return [(row.action, row.actor) for row in found]


def staff(user) -> ActingAs:
    return ActingAs(Actor.STAFF, user.pk, user.get_username())


def test_a_settled_payment_logs_its_capture_once_as_the_system(paid, customer):
    payment = paid()
    payment_settle(session_id=payment.stripe_session_id)  # a second door: booked already
    captured = Activity.objects.get(action="payment_captured")
    assert (captured.actor, captured.customer_id, captured.payment_id) == (Actor.SYSTEM, customer.pk, payment.pk)
    assert captured.detail["amount"] == "47.49"
    assert activity_text(captured) == "Charged $47.49"
    card = Activity.objects.get(action="card_saved")
    assert card.detail == {"brand": "visa", "last4": "4242"}
    assert actions(payment) == [("payment_captured", Actor.SYSTEM)]


def test_nothing_registered_logs_the_hold_released(start, stripe_sandbox, registrar):
    registrar.outcomes.update({ref: LineOutcome.FAILED for ref in ("example.com", "example.net", "example.org")})
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    payment = payment_settle(session_id=started.payment.stripe_session_id)
    assert actions(payment) == [("payment_released", Actor.SYSTEM)]


def test_a_staff_refund_names_the_staff_member_and_the_domain(paid, admin_user):
    payment = paid()
    line = payment.lines.get(reference="example.net")
    with acting(staff(admin_user)):
        refund_line(line=line)
        refund_line(line=line)  # refunded already: nothing moves, nothing logged
    refund = Activity.objects.get(action="payment_refunded")
    assert (refund.actor, refund.actor_user_id, refund.domain_name) == (Actor.STAFF, admin_user.pk, "example.net")
    assert Decimal(refund.detail["amount"]) == Decimal("25.00")


def test_a_refund_made_in_stripes_dashboard_is_logged_as_the_system(paid, stripe_sandbox):
    payment = paid()
    stripe_sandbox.refund_in_dashboard(payment.stripe_payment_intent_id, amount=950)
    deliver(stripe_sandbox, "charge.refunded", "refund.created", times=2)
    assert actions(payment)[-1] == ("payment_refunded", Actor.SYSTEM)
    assert [a for a, _ in actions(payment)].count("payment_refunded") == 1


def test_a_refund_through_the_admin_page_is_the_staff_members(paid, admin_user):
    payment = paid()
    line = payment.lines.get(reference="example.com")
    client = Client()
    client.force_login(admin_user)
    response = client.post(f"/admin/billing/payment/refund/?payments={payment.pk}", {"line": [str(line.pk)]})
    assert response.status_code == 302
    row = Activity.objects.get(action="payment_refunded")
    assert (row.actor, row.actor_name, row.domain_name) == (Actor.STAFF, admin_user.username, "example.com")


def test_a_write_off_is_the_staff_members(paid, admin_user):
    payment = paid()
    Payment.objects.filter(pk=payment.pk).update(status=Payment.Status.UNPAID)
    with acting(staff(admin_user)):
        payment_write_off(payment=payment, by=admin_user.username)
    assert actions(payment)[-1] == ("written_off", Actor.STAFF)


def test_removing_the_saved_card_is_logged_by_brand_and_last_four(paid, customer):
    paid()
    with acting(ActingAs(Actor.CUSTOMER, customer.user.pk, customer.user.username)):
        assert card_remove(customer=customer)
        assert not card_remove(customer=customer)  # nothing left to remove
    removed = Activity.objects.get(action="card_removed")
    assert (removed.actor, removed.detail) == (Actor.CUSTOMER, {"brand": "visa", "last4": "4242"})
    assert not SavedCard.objects.get(customer=customer).has_card
