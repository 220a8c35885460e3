"""Stripe releases an uncaptured authorisation at the deadline its charge states (capture_before): staff hear of one
still held PAYMENT_CAPTURE_ALERT_HOURS before it, once per payment, by email and on the admin's banner."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import override_settings
from django.utils import timezone

from billing.ledger.lines import LineOutcome
from billing.models import Payment
from billing.payments.services import payment_settle
from billing.tasks import alert_expiring_authorisations
from storefront.background.scheduler import jobs
from tests.billing.conftest import GOOD_CARD

pytestmark = pytest.mark.django_db
OPS = [("Ops", "ops@example.org")]


@pytest.fixture
def held(start, stripe_sandbox, registrar):
    """A payment authorised with one line's registration unknown: nothing captured, the authorisation held."""

    def hold(*, hours_left: float) -> Payment:
        registrar.outcomes["example.org"] = LineOutcome.UNKNOWN
        started = start()
        stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
        payment = payment_settle(session_id=started.payment.stripe_session_id)
        assert payment.status == Payment.Status.AUTHORISED
        deadline = timezone.now() + dt.timedelta(hours=hours_left)
        Payment.objects.filter(pk=payment.pk).update(capture_before=deadline)
        payment.refresh_from_db()
        return payment

    return hold


@override_settings(ADMINS=OPS, PAYMENT_CAPTURE_ALERT_HOURS=24)
def test_staff_are_mailed_once_per_payment_whose_authorisation_is_about_to_lapse(held, mailoutbox):
    old = held(hours_left=20)
    recent = held(hours_left=30)

    assert alert_expiring_authorisations.enqueue().return_value == 1
    [message] = mailoutbox
    assert message.to == ["ops@example.org"]
    assert "1 payment authorisation(s) expire soon" in message.subject
    assert f"Payment {old.pk} of " in message.body
    assert "47.49 USD authorised" in message.body
    assert f"to be captured before {old.capture_before:%Y-%m-%d %H:%M} UTC." in message.body
    assert f"/admin/billing/payment/{old.pk}/change/" in message.body
    assert f"Payment {recent.pk} " not in message.body

    # The next hourly runs: nothing new for the same payment.
    assert alert_expiring_authorisations.enqueue().return_value == 0
    assert len(mailoutbox) == 1

    # Hours later the other one crosses the line: it alone is mailed.
    Payment.objects.filter(pk=recent.pk).update(capture_before=timezone.now() + dt.timedelta(hours=23))
    assert alert_expiring_authorisations.enqueue().return_value == 1
    assert f"Payment {recent.pk} of " in mailoutbox[1].body
    assert f"Payment {old.pk} " not in mailoutbox[1].body


@override_settings(ADMINS=OPS, PAYMENT_CAPTURE_ALERT_HOURS=24)
def test_a_deadline_the_charge_did_not_state_is_assumed_the_shortest_stripe_documents(held, mailoutbox):
    # Visa, merchant-initiated: 4 days 18 hours. A payment begun 3 days 19 hours ago is within a day of it.
    payment = held(hours_left=100)
    Payment.objects.filter(pk=payment.pk).update(capture_before=None)
    Payment.objects.filter(pk=payment.pk).update(created_at=timezone.now() - dt.timedelta(days=3, hours=17))
    assert alert_expiring_authorisations.enqueue().return_value == 0
    Payment.objects.filter(pk=payment.pk).update(created_at=timezone.now() - dt.timedelta(days=3, hours=19))
    assert alert_expiring_authorisations.enqueue().return_value == 1
    assert "(assumed: its charge did not say)" in mailoutbox[-1].body


@override_settings(ADMINS=OPS, PAYMENT_CAPTURE_ALERT_HOURS=24)
def test_settled_payments_raise_no_alert(start, stripe_sandbox, registrar, mailoutbox):
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    captured = payment_settle(session_id=started.payment.stripe_session_id)
    assert captured.status == Payment.Status.CAPTURED
    Payment.objects.update(created_at=timezone.now() - dt.timedelta(days=6), capture_before=timezone.now())
    mailoutbox.clear()  # the receipt
    assert alert_expiring_authorisations.enqueue().return_value == 0
    assert mailoutbox == []


def test_without_admins_nothing_is_marked_and_the_admin_banner_shows_it(held, admin_client, mailoutbox):
    payment = held(hours_left=2)
    assert alert_expiring_authorisations.enqueue().return_value == 0
    payment.refresh_from_db()
    assert payment.expiry_alerted_at is None  # mailed as soon as someone is configured to receive it

    index = admin_client.get("/admin/").content.decode()
    assert "1 payment authorisation(s) within 24 hours of their capture deadline" in index
    assert "/admin/billing/payment/?attention=expiring" in index
    listing = admin_client.get("/admin/billing/payment/?attention=expiring")
    assert [p.pk for p in listing.context["cl"].result_list] == [payment.pk]

    with override_settings(ADMINS=OPS):
        assert alert_expiring_authorisations.enqueue().return_value == 1
    payment.refresh_from_db()
    assert payment.expiry_alerted_at is not None


def test_the_scheduler_runs_the_check_hourly():
    job = next(job for job in jobs() if job.task is alert_expiring_authorisations)
    assert job.cron == "37 * * * *"
