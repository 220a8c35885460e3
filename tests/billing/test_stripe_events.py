"""Every event that moves money is reflected, once, whatever the order: refunds made in Stripe's dashboard, refunds
that fail, disputes won and lost, authorisations and captures, and events that arrive twice, late or never."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest
import time_machine
from django.core import mail
from django.test import Client, override_settings
from django.utils import timezone

from billing.ledger.books import ledger_figures
from billing.models import Dispute, Document, LedgerEntry, Payment, PaymentLine, WebhookEvent
from billing.payments.disputes import customer_disputes_open
from billing.payments.refunds import refund_line
from billing.tasks import reconcile_payments
from tests.billing.conftest import GOOD_CARD, TOTAL, deliver, post_event

pytestmark = pytest.mark.django_db
OPS = [("Ops", "ops@example.org")]


def credit_notes(payment: Payment) -> list[Document]:
    return list(payment.documents.filter(kind=Document.Kind.CREDIT_NOTE).order_by("number"))


def refunds(payment: Payment) -> list[tuple[str, Decimal]]:
    rows = payment.ledger_entries.filter(kind=LedgerEntry.Kind.REFUND).order_by("line__position", "pk")
    return [(entry.line.reference, entry.amount) for entry in rows]


def total():
    [figures] = ledger_figures(group_by=())
    return figures


# --- Authorised, captured: the settling events, in any order, any number of times ------------------------------


@pytest.mark.parametrize(
    "only",
    [
        "checkout.session.completed",
        "payment_intent.amount_capturable_updated",
        "charge.succeeded",  # not acted on by itself: the reconciler's read-back settles it (below)
    ],
)
def test_any_one_authorisation_event_is_enough_to_settle(start, stripe_sandbox, registrar, only):
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    assert set(deliver(stripe_sandbox, only, times=2)) == {200}
    payment = Payment.objects.get()
    if only == "charge.succeeded":
        assert payment.status == Payment.Status.CREATED  # stored and ignored: it tells nothing the others do not
        assert set(WebhookEvent.objects.values_list("outcome", flat=True)) == {WebhookEvent.Outcome.IGNORED}
        with time_machine.travel(timezone.now() + dt.timedelta(minutes=4)):
            reconcile_payments.enqueue()
        payment.refresh_from_db()
    assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, TOTAL)
    assert len(stripe_sandbox.captures()) == 1
    assert dict(registrar.calls) == {"example.com": 1, "example.net": 1, "example.org": 1}


def test_every_event_delivered_twice_newest_first_settles_and_books_once(start, stripe_sandbox, registrar):
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    deliver(stripe_sandbox, times=2, reverse=True)
    payment = Payment.objects.get()
    assert payment.status == Payment.Status.CAPTURED
    # The capture's own events (intent succeeded, charge captured) came after: delivered too, they change nothing.
    deliver(stripe_sandbox, times=2, reverse=True)
    assert LedgerEntry.objects.filter(kind=LedgerEntry.Kind.CAPTURE).count() == 3
    assert total().captured == TOTAL
    assert payment.documents.count() == 1  # one receipt
    assert WebhookEvent.objects.count() == len(stripe_sandbox.events())  # each stored once, however often sent


def test_the_capture_deadline_is_read_from_the_charge(paid, stripe_sandbox):
    payment = paid()
    charge = stripe_sandbox.stored(stripe_sandbox.stored(payment.stripe_payment_intent_id)["latest_charge"])
    deadline = charge["payment_method_details"]["card"]["capture_before"]
    assert payment.capture_before == dt.datetime.fromtimestamp(deadline, tz=dt.UTC)


def test_events_that_move_no_money_of_ours_are_stored_and_ignored(paid, stripe_sandbox):
    paid()
    deliver(stripe_sandbox, "payment_method.attached", "charge.succeeded")
    ignored = WebhookEvent.objects.filter(type__in=["payment_method.attached", "charge.succeeded"])
    assert ignored.count() == 2
    assert {(e.outcome, e.processed_at is not None) for e in ignored} == {(WebhookEvent.Outcome.IGNORED, True)}


# --- Refunds made in Stripe's dashboard, and refunds that fail --------------------------------------------------


def test_a_dashboard_refund_is_booked_with_a_credit_note_once(paid, stripe_sandbox, mailoutbox):
    payment = paid()
    stripe_sandbox.refund_in_dashboard(payment.stripe_payment_intent_id, amount=2500)
    deliver(stripe_sandbox, "refund.created", "charge.refunded", times=2, reverse=True)
    payment.refresh_from_db()
    # No line named (a refund made elsewhere): split over the lines in order, each up to what it holds.
    assert refunds(payment) == [("example.com", Decimal("-12.99")), ("example.net", Decimal("-12.01"))]
    assert payment.amount_refunded == Decimal("25.00")
    assert payment.status == Payment.Status.CAPTURED
    statuses = dict(payment.lines.values_list("reference", "status"))
    assert statuses == {"example.com": "refunded", "example.net": "registered", "example.org": "registered"}
    [note] = credit_notes(payment)
    assert (note.amount, note.refund_id) == (
        Decimal("25.00"),
        payment.lines.get(reference="example.com").stripe_refund_id,
    )
    assert [m.subject for m in mailoutbox if "credit note" in m.subject] == [
        f"Your credit note {note.number} from Domain Store"
    ]
    assert (total().captured, total().refunded, total().net) == (TOTAL, Decimal("25.00"), TOTAL - Decimal("25.00"))


def test_a_refund_of_everything_left_marks_every_line_and_the_payment_refunded(paid, stripe_sandbox):
    payment = paid()
    refund_line(line=payment.lines.get(reference="example.net"))  # staff refund one line first
    stripe_sandbox.refund_in_dashboard(payment.stripe_payment_intent_id)  # then the rest, in the dashboard
    deliver(stripe_sandbox, "refund.created", "charge.refunded")
    payment.refresh_from_db()
    assert (payment.status, payment.amount_refunded) == (Payment.Status.REFUNDED, TOTAL)
    assert set(payment.lines.values_list("status", flat=True)) == {PaymentLine.Status.REFUNDED}
    assert len(credit_notes(payment)) == 2
    assert total().net == 0


def test_a_refund_that_fails_later_is_booked_back_and_put_before_staff(paid, stripe_sandbox):
    stripe_sandbox.setup(refund_flow="fails")
    payment = paid()
    line = refund_line(line=payment.lines.get(reference="example.org"))
    assert total().refunded == Decimal("9.50")  # pending: on its way back, booked
    stripe_sandbox.settle_refund(line.stripe_refund_id, outcome="failed")
    deliver(stripe_sandbox, "refund.updated", "refund.failed", "charge.refunded", times=2)
    payment.refresh_from_db()
    assert total().refunded == 0 and payment.amount_refunded == 0
    assert payment.needs_attention and "did not go back" in payment.attention_reason
    assert refunds(payment) == [("example.org", Decimal("-9.50")), ("example.org", Decimal("9.50"))]


# --- Disputes ---------------------------------------------------------------------------------------------------


@override_settings(ADMINS=OPS)
def test_a_lost_chargeback_counts_as_money_given_back(paid, stripe_sandbox, customer, mailoutbox):
    payment = paid()
    dispute = stripe_sandbox.open_dispute(payment.stripe_payment_intent_id, reason="fraudulent")
    deliver(stripe_sandbox, "charge.dispute.created", "charge.dispute.funds_withdrawn", times=2, reverse=True)
    payment.refresh_from_db()
    row = Dispute.objects.get()
    assert (row.stripe_dispute_id, row.status, row.amount, row.reason) == (
        dispute["id"],
        "needs_response",
        TOTAL,
        "fraudulent",
    )
    assert payment.needs_attention and "fraudulent" in payment.attention_reason
    assert customer_disputes_open(customer)  # the customer's auto-renewals wait
    assert (total().disputed, total().net) == (TOTAL, 0)
    staff = [m for m in mail.outbox if m.to == ["ops@example.org"]]
    assert [m.subject for m in staff] == [f"[Django] Dispute needs_response: {TOTAL} USD from {customer.email}"]

    stripe_sandbox.close_dispute(dispute["id"], won=False)
    deliver(stripe_sandbox, "charge.dispute.closed", times=2)
    row.refresh_from_db()
    assert row.status == "lost" and row.closed_at is not None
    assert not customer_disputes_open(customer)
    assert (total().disputed, total().net) == (TOTAL, 0)  # the money stays with the cardholder
    assert LedgerEntry.objects.filter(kind__startswith="dispute").count() == 3  # one withdrawal per line


def test_a_won_chargeback_gives_the_money_back(paid, stripe_sandbox):
    payment = paid()
    dispute = stripe_sandbox.open_dispute(payment.stripe_payment_intent_id)
    stripe_sandbox.review_dispute(dispute["id"])
    stripe_sandbox.close_dispute(dispute["id"], won=True)
    # Everything at once, newest first: the state is read back from Stripe each time.
    deliver(stripe_sandbox, times=2, reverse=True)
    assert Dispute.objects.get().status == "won"
    assert (total().disputed, total().net) == (0, TOTAL)
    assert LedgerEntry.objects.filter(kind=LedgerEntry.Kind.DISPUTE_REINSTATEMENT).count() == 3
    payment.refresh_from_db()
    assert not payment.needs_attention


def test_an_inquiry_moves_no_money_unless_it_is_lost(paid, stripe_sandbox):
    payment = paid()
    dispute = stripe_sandbox.open_dispute(payment.stripe_payment_intent_id, inquiry=True)
    deliver(stripe_sandbox, "charge.dispute.created")
    assert Dispute.objects.get().status == "warning_needs_response"
    assert total().disputed == 0
    stripe_sandbox.close_dispute(dispute["id"], won=False)
    deliver(stripe_sandbox, "charge.dispute.closed", "charge.dispute.funds_withdrawn")
    assert total().disputed == TOTAL


# --- Events that never arrive -------------------------------------------------------------------------------------


def test_a_refund_whose_events_never_arrived_is_read_back_from_stripes_events(paid, stripe_sandbox):
    payment = paid()
    deliver(stripe_sandbox)  # what happened so far reached us
    stripe_sandbox.refund_in_dashboard(payment.stripe_payment_intent_id, amount=950)
    assert total().refunded == 0
    counts = reconcile_payments.enqueue().return_value
    assert counts["events_new"] >= 2  # refund.created and charge.refunded, read from GET /v1/events
    assert total().refunded == Decimal("9.50")
    assert len(credit_notes(payment)) == 1
    assert reconcile_payments.enqueue().return_value["events_new"] == 0


def test_an_event_for_another_integrations_payment_is_kept_as_not_ours(paid, stripe_sandbox):
    payment = paid()
    # As if the payment were another integration's on the same Stripe account: none of its ids are ours.
    Payment.objects.filter(pk=payment.pk).update(
        stripe_payment_intent_id="pi_someone_else", stripe_session_id=None, checkout_id=uuid.uuid4()
    )
    deliver(stripe_sandbox, "payment_intent.succeeded", "checkout.session.completed")
    assert set(WebhookEvent.objects.values_list("outcome", flat=True)) == {WebhookEvent.Outcome.NOT_OURS}


def test_a_bad_signature_is_refused_and_stores_nothing(start, stripe_sandbox):
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    event = stripe_sandbox.events(type="checkout.session.completed")[0]
    assert post_event(Client(), event, signature="t=1,v1=00").status_code == 400
    assert not WebhookEvent.objects.exists()
