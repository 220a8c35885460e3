"""Authorise, register, then capture: what the customer is charged for, whatever door settles the payment."""

from __future__ import annotations

import datetime as dt
import threading
from decimal import Decimal

import pytest
import time_machine
from django.db import connections
from django.test import Client, override_settings
from django.utils import timezone

from billing.errors import CheckoutChanged, PaymentsDisabled, PaymentUnavailable
from billing.ledger.lines import LineOutcome
from billing.models import Payment, PaymentLine, WebhookEvent
from billing.payments import stripe_client
from billing.payments.refunds import refund_line
from billing.payments.services import payment_line_resolve, payment_settle
from billing.tasks import reconcile_payments
from tests.billing.conftest import AUTHENTICATION_CARD, DECLINED_CARD, GOOD_CARD, LINES, TOTAL, post_event

pytestmark = pytest.mark.django_db


def test_start_opens_one_hosted_session_for_the_quoted_lines(start, stripe_sandbox, customer):
    started = start()
    payment = started.payment
    assert (payment.status, payment.amount, payment.currency) == (Payment.Status.CREATED, TOTAL, "USD")
    assert [line.reference for line in payment.lines.all()] == ["example.com", "example.net", "example.org"]
    session = stripe_sandbox.stored(payment.stripe_session_id)
    assert session["amount_total"] == 4749
    assert session["client_reference_id"] == str(payment.checkout_id)
    assert session["metadata"]["checkout_id"] == str(payment.checkout_id)
    assert started.url == session["url"]
    assert started.url.startswith(stripe_sandbox.api_base + "/pay/")


def test_posting_the_same_checkout_again_reuses_its_payment_and_session(start, stripe_sandbox):
    first = start()
    again = start(checkout_id=first.payment.checkout_id)
    assert again.payment.pk == first.payment.pk
    assert again.url == first.url
    assert Payment.objects.count() == 1
    with pytest.raises(CheckoutChanged):
        start(lines=LINES[:1], checkout_id=first.payment.checkout_id)


def test_payments_disabled_starts_nothing(start, settings):
    settings.PAYMENTS_DISABLED = True
    with pytest.raises(PaymentsDisabled):
        start()
    assert not Payment.objects.exists()


def test_the_return_captures_the_whole_authorisation_once_every_line_registered(start, stripe_sandbox, registrar):
    started = start()
    assert stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD) == "authorised"
    payment = payment_settle(session_id=started.payment.stripe_session_id)
    assert payment.status == Payment.Status.CAPTURED
    assert (payment.amount_authorised, payment.amount_captured) == (TOTAL, TOTAL)
    assert dict(registrar.calls) == {"example.com": 1, "example.net": 1, "example.org": 1}
    intent = stripe_sandbox.stored(payment.stripe_payment_intent_id)
    assert (intent["status"], intent["amount_received"]) == ("succeeded", 4749)
    assert payment.receipt.number >= 1


def test_captured_amount_is_the_sum_of_the_lines_that_registered(start, stripe_sandbox, registrar):
    registrar.outcomes["example.net"] = LineOutcome.FAILED
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    payment = payment_settle(session_id=started.payment.stripe_session_id)
    assert payment.status == Payment.Status.PARTIALLY_CAPTURED
    assert payment.amount_captured == Decimal("22.49")
    intent = stripe_sandbox.stored(payment.stripe_payment_intent_id)
    assert (intent["amount_received"], intent["amount_capturable"]) == (2249, 0)
    assert payment.receipt.amount == Decimal("22.49")


def test_nothing_registered_cancels_the_authorisation(start, stripe_sandbox, registrar):
    registrar.outcomes.update({line.reference: LineOutcome.FAILED for line in LINES})
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    payment = payment_settle(session_id=started.payment.stripe_session_id)
    assert (payment.status, payment.amount_captured) == (Payment.Status.CANCELLED, 0)
    assert stripe_sandbox.stored(payment.stripe_payment_intent_id)["status"] == "canceled"
    assert stripe_sandbox.captures() == []
    assert payment.receipt is None


def test_a_declined_card_captures_nothing_and_registers_nothing(start, stripe_sandbox, registrar):
    started = start()
    assert stripe_sandbox.pay(started.payment.stripe_session_id, DECLINED_CARD) == "declined"
    payment = payment_settle(session_id=started.payment.stripe_session_id)
    assert (payment.status, payment.amount_authorised, payment.amount_captured) == (Payment.Status.CREATED, 0, 0)
    assert not registrar.calls
    assert stripe_sandbox.captures() == []


def test_a_card_waiting_for_its_authentication_step_is_not_paid_yet(start, stripe_sandbox, registrar):
    started = start()
    assert stripe_sandbox.pay(started.payment.stripe_session_id, AUTHENTICATION_CARD) == "authenticate"
    assert payment_settle(session_id=started.payment.stripe_session_id).status == Payment.Status.CREATED
    assert not registrar.calls


def test_an_unknown_line_holds_its_part_until_reconciliation_settles_it(start, stripe_sandbox, registrar):
    registrar.outcomes["example.org"] = LineOutcome.UNKNOWN
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    payment = payment_settle(session_id=started.payment.stripe_session_id)
    assert payment.status == Payment.Status.AUTHORISED
    assert payment.needs_attention
    assert stripe_sandbox.captures() == []
    # Another delivery changes nothing while the line is unknown.
    assert payment_settle(session_id=payment.stripe_session_id).status == Payment.Status.AUTHORISED
    assert registrar.calls["example.org"] == 1
    line = payment.lines.get(reference="example.org")
    payment = payment_line_resolve(line=line, registered=False)
    assert (payment.status, payment.amount_captured) == (Payment.Status.PARTIALLY_CAPTURED, Decimal("37.99"))
    assert not payment.needs_attention
    assert len(stripe_sandbox.captures()) == 1


def test_a_capture_whose_answer_is_lost_is_read_back_not_repeated(start, stripe_sandbox, registrar, monkeypatch):
    # The sandbox captures, then holds its answer past the capture call's read timeout (a second, for that call
    # alone: every other call waits as long as a loaded machine needs).
    stripe_sandbox.setup(timeout_after_capture=True, timeout_seconds=3)
    real_call = stripe_client.call

    def call(what, operation, *, changes_state=False):
        if what != "payment intent capture":
            return real_call(what, operation, changes_state=changes_state)
        with override_settings(STRIPE_READ_TIMEOUT=1.0):
            return real_call(what, operation, changes_state=changes_state)

    monkeypatch.setattr(stripe_client, "call", call)
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    payment = payment_settle(session_id=started.payment.stripe_session_id)
    assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, TOTAL)
    assert len(stripe_sandbox.captures()) == 1


def test_stripe_down_leaves_the_payment_for_the_next_door(start, stripe_sandbox, registrar):
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    stripe_sandbox.setup(api_error=True)
    with pytest.raises(PaymentUnavailable):
        payment_settle(session_id=started.payment.stripe_session_id)
    assert Payment.objects.get().status == Payment.Status.CREATED
    stripe_sandbox.setup(api_error=False)
    assert payment_settle(session_id=started.payment.stripe_session_id).status == Payment.Status.CAPTURED


def test_refunding_a_line_refunds_its_amount_once(start, stripe_sandbox, registrar):
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    payment = payment_settle(session_id=started.payment.stripe_session_id)
    line = payment.lines.get(reference="example.net")
    refunded = refund_line(line=line)
    assert refunded.status == PaymentLine.Status.REFUNDED
    assert refund_line(line=line).stripe_refund_id == refunded.stripe_refund_id
    payment.refresh_from_db()
    assert (payment.amount_refunded, payment.status) == (Decimal("25.00"), Payment.Status.CAPTURED)
    # Refunds made (the worker's GET of the refund, for its fee, is no second refund).
    made = [c for c in stripe_sandbox.calls("/refunds") if c["method"] == "POST"]
    refunds = [c for c in made if c["status"] == 200 and not c["replayed"]]
    assert len(refunds) == 1


# --- The webhook door ---------------------------------------------------------------------------------------


def test_an_invalid_signature_is_refused_and_changes_nothing(start, stripe_sandbox, registrar):
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    event = stripe_sandbox.events(type="checkout.session.completed")[0]
    client = Client()
    forged = event.signature.replace("v1=", "v1=0")
    for signature in (forged, "", "t=1,v1=abc"):
        assert post_event(client, event, signature=signature).status_code == 400
    tampered = event.payload.replace('"complete"', '"open"')
    response = client.post(
        "/payments/stripe/webhook/",
        tampered,
        content_type="application/json",
        headers={"Stripe-Signature": event.signature},
    )
    assert response.status_code == 400
    assert not WebhookEvent.objects.exists()
    assert Payment.objects.get().status == Payment.Status.CREATED
    assert not registrar.calls


def test_the_webhook_replayed_five_times_after_the_return_captures_once(start, stripe_sandbox, registrar):
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    assert payment_settle(session_id=started.payment.stripe_session_id).status == Payment.Status.CAPTURED
    event = stripe_sandbox.events(type="checkout.session.completed")[0]
    client = Client()
    for _ in range(5):
        assert post_event(client, event).status_code == 200
    assert WebhookEvent.objects.get().deliveries == 5
    assert len(stripe_sandbox.captures()) == 1
    assert set(registrar.calls.values()) == {1}


def test_every_event_in_reverse_order_settles_the_payment_as_one_door(start, stripe_sandbox, registrar):
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    client = Client()
    for event in reversed(stripe_sandbox.events()):
        assert post_event(client, event).status_code == 200
    assert Payment.objects.get().status == Payment.Status.CAPTURED
    assert len(stripe_sandbox.captures()) == 1


def test_a_webhook_while_stripe_is_down_is_acknowledged_and_processed_once_stripe_answers(
    start, stripe_sandbox, registrar
):
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    event = stripe_sandbox.events(type="checkout.session.completed")[0]
    stripe_sandbox.setup(api_error=True)
    client = Client()
    assert post_event(client, event).status_code == 200  # stored: Stripe is not asked to deliver it again
    stored = WebhookEvent.objects.get()
    assert stored.processed_at is None and "APIError" in stored.error and stored.attempts == 1
    assert Payment.objects.get().status == Payment.Status.CREATED
    stripe_sandbox.setup(api_error=False)
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=2)):
        counts = reconcile_payments.enqueue().return_value
    assert counts["events_processed"] == 1
    stored.refresh_from_db()
    assert (stored.outcome, stored.error) == (WebhookEvent.Outcome.PROCESSED, "")
    assert Payment.objects.get().status == Payment.Status.CAPTURED


@pytest.mark.django_db(transaction=True)
def test_five_webhook_deliveries_racing_the_return_register_each_line_once_and_capture_once(
    start, stripe_sandbox, registrar
):
    started = start()
    session_id = started.payment.stripe_session_id
    stripe_sandbox.pay(session_id, GOOD_CARD)
    event = stripe_sandbox.events(type="checkout.session.completed")[0]
    barrier = threading.Barrier(6)
    answers: list[object] = []

    def webhook() -> None:
        try:
            barrier.wait()
            answers.append(post_event(Client(), event).status_code)
        finally:
            connections.close_all()

    def the_return() -> None:
        try:
            barrier.wait()
            answers.append(payment_settle(session_id=session_id).status)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=webhook) for _ in range(5)] + [threading.Thread(target=the_return)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert answers.count(200) == 5
    # Whichever door came last, the payment ends captured once, each line registered once.
    payment = payment_settle(session_id=session_id)
    assert payment.status == Payment.Status.CAPTURED
    assert dict(registrar.calls) == {"example.com": 1, "example.net": 1, "example.org": 1}
    assert len(stripe_sandbox.captures()) == 1
    assert payment.documents.count() == 1


def test_every_state_changing_call_carries_an_idempotency_key_of_ours(start, stripe_sandbox, registrar):
    # The fixture has the payment sandbox refuse a POST without one; this also reads its log of what was sent.
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    payment = payment_settle(session_id=started.payment.stripe_session_id)
    refund_line(line=payment.lines.get(reference="example.net"))
    posts = [call for call in stripe_sandbox.calls() if call["method"] == "POST"]
    assert {call["path"].rsplit("/", 1)[-1] for call in posts} >= {"customers", "sessions", "capture", "refunds"}
    assert all(call["status"] == 200 and call["idempotency_key"] for call in posts), posts
