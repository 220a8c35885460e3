"""The activity log of money: every service that moves a customer's money writes one row per movement, with the right
actor (the system settling a payment in the worker, staff refunding or writing off in the admin, Stripe's events
processed as the system), and a card by its brand and last four at most."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client

from accounts.models import Activity
from accounts.staff.activity import ActingAs, acting, activity_text
from billing.models import Payment, SavedCard
from billing.payments.cards import card_remove
from billing.payments.collection import payment_write_off
from billing.payments.refunds import refund_line
from billing.payments.services import payment_settle
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


def test_a_chargeback_won_is_two_rows_of_the_systems_and_staff_only(paid, stripe_sandbox, client, customer):
    payment = paid()
    dispute = stripe_sandbox.open_dispute(payment.stripe_payment_intent_id)
    stripe_sandbox.review_dispute(dispute["id"])
    stripe_sandbox.close_dispute(dispute["id"], won=True)
    deliver(stripe_sandbox, times=2, reverse=True)
    assert actions(payment)[-2:] == [("dispute_withdrawn", Actor.SYSTEM), ("dispute_reinstated", Actor.SYSTEM)]
    client.force_login(customer.user)
    page = client.get("/account/").content.decode()
    assert "You were charged $47.49." in page and "Dispute" not in page  # the bank's dealings stay with staff


def test_staff_asking_to_collect_again_and_resolving_a_flag_are_logged(paid, admin_client, admin_user):
    unpaid, flagged = paid(), paid()
    Payment.objects.filter(pk=unpaid.pk).update(status=Payment.Status.UNPAID)
    Payment.objects.filter(pk=flagged.pk).update(needs_attention=True, attention_reason="amount not the quoted one")
    for action, payment in (("collect_unpaid", unpaid), ("resolve_attention", flagged)):
        response = admin_client.post("/admin/billing/payment/", {"action": action, "_selected_action": [payment.pk]})
        assert response.status_code == 302
    assert ("collection_asked", Actor.STAFF) in actions(unpaid)
    resolved = Activity.objects.get(action="alert_resolved")
    assert (resolved.actor_user_id, resolved.payment_id, resolved.detail["alert"]) == (
        admin_user.pk,
        flagged.pk,
        "payments",
    )
    assert "amount not the quoted one" in activity_text(resolved)
    flagged.refresh_from_db()
    assert not flagged.needs_attention
