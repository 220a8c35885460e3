"""Nothing left hanging: a hold that lapses after registration is collected (saved card, then a payment link) or
written off; a customer who paid and closed the tab while the webhook was lost gets what they paid for; a line left
"registering" by a worker that died is taken over once its lease has passed, and delivered once."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from billing.ledger.books import ledger_figures
from billing.ledger.lines import LineOutcome
from billing.models import LedgerEntry, Payment, PaymentLine
from billing.payments import reconcile, services
from billing.payments.collection import payment_write_off
from billing.payments.services import payment_line_resolve, payment_settle
from billing.tasks import reconcile_payments
from tests.billing.conftest import DECLINED_CARD, GOOD_CARD, TOTAL, deliver

pytestmark = pytest.mark.django_db
REGISTERED_TOTAL = Decimal("37.99")  # example.com and example.net; example.org's registration stays unknown


def total():
    [figures] = ledger_figures(group_by=())
    return figures


@pytest.fixture
def lapsed(paid, registrar, stripe_sandbox):
    """A payment whose lines registered but one stayed unknown, so nothing was captured; then the hold ran out."""

    def lapse(*, card_declines: bool = False) -> Payment:
        registrar.outcomes["example.org"] = LineOutcome.UNKNOWN
        payment = paid()
        assert payment.status == Payment.Status.AUTHORISED
        stripe_sandbox.setup(decline_all_cards=card_declines)  # the saved card, when it is tried
        deadline = int(payment.capture_before.timestamp())
        stripe_sandbox.move_clock_to(deadline + 1)  # Stripe lets the hold go: payment_intent.canceled
        deliver(stripe_sandbox, "charge.expired", "payment_intent.canceled", times=2, reverse=True)
        payment.refresh_from_db()
        return payment

    return lapse


def test_a_hold_that_lapses_after_registration_is_collected_on_the_saved_card(lapsed, stripe_sandbox, mailoutbox):
    payment = lapsed()
    # Once: the registered lines were charged on the card saved at checkout, captured at once.
    assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, REGISTERED_TOTAL)
    assert payment.unpaid_since is not None and payment.collection_intent_id
    intent = stripe_sandbox.stored(payment.collection_intent_id)
    assert (
        intent["status"],
        intent["amount_received"],
        intent["off_session"] if "off_session" in intent else True,
    ) == (
        "succeeded",
        3799,
        True,
    )
    assert total().captured == REGISTERED_TOTAL
    assert [m.subject for m in mailoutbox if "receipt" in m.subject.lower()] == [
        f"Your receipt {payment.receipt.number} from Domain Store"
    ]
    # The events of that collection, delivered too, change nothing.
    deliver(stripe_sandbox, times=2)
    assert total().captured == REGISTERED_TOTAL
    assert LedgerEntry.objects.filter(kind=LedgerEntry.Kind.CAPTURE).count() == 2


def test_a_declined_card_sends_a_payment_link_that_collects(lapsed, stripe_sandbox, customer, mailoutbox):
    payment = lapsed(card_declines=True)
    assert payment.status == Payment.Status.UNPAID
    assert payment.collection_failure_code == "card_declined"
    assert payment.needs_attention and "Registered, not paid" in payment.attention_reason
    [email] = [m for m in mailoutbox if m.subject.startswith("Payment due")]
    assert email.subject == "Payment due: $37.99 for your order at Domain Store"
    link = re.search(r"http://\S+/payments/pay/[0-9a-f-]+/", email.body).group(0)
    assert "example.org" not in email.body  # not registered (yet): not asked for

    client = Client()
    client.force_login(customer.user)
    billing = client.get("/account/billing/").content.decode()
    assert "Payment due: $37.99" in billing and f'href="/payments/pay/{payment.checkout_id}/"' in billing
    opened = client.get(link.split("testserver", 1)[-1] if "testserver" in link else link[link.index("/payments/") :])
    assert opened.status_code == 303 and opened["Location"].startswith(stripe_sandbox.api_base + "/pay/")
    payment.refresh_from_db()
    session = stripe_sandbox.stored(payment.collection_session_id)
    assert (session["amount_total"], session["payment_method_types"]) == (3799, ["card"])
    # Following the link again while the session is open leads to the same page.
    assert client.get(f"/payments/pay/{payment.checkout_id}/")["Location"] == opened["Location"]

    stripe_sandbox.setup(decline_all_cards=False)
    assert stripe_sandbox.pay(payment.collection_session_id, GOOD_CARD) == "authorised"
    deliver(stripe_sandbox, "checkout.session.completed", times=2)
    payment.refresh_from_db()
    assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, REGISTERED_TOTAL)
    assert not payment.needs_attention
    assert total().captured == REGISTERED_TOTAL
    # Paid: the link says so instead of charging again.
    back = client.get(f"/payments/pay/{payment.checkout_id}/", follow=True)
    assert "Nothing is due on this payment any more." in back.content.decode()


def test_someone_elses_payment_link_is_a_404(lapsed, stripe_sandbox, other_customer):
    payment = lapsed(card_declines=True)
    client = Client()
    client.force_login(other_customer.user)
    assert client.get(f"/payments/pay/{payment.checkout_id}/").status_code == 404
    assert Payment.objects.get(pk=payment.pk).collection_session_id is None  # nothing asked of Stripe


def test_staff_write_off_closes_the_link_and_books_the_cost(lapsed, stripe_sandbox, customer, registrar):
    registrar.costs.update({"example.com": Decimal("9.00"), "example.net": Decimal("20.00")})
    payment = lapsed(card_declines=True)
    client = Client()
    client.force_login(customer.user)
    client.get(f"/payments/pay/{payment.checkout_id}/")  # the customer opened the link, and left
    payment.refresh_from_db()
    session_id = payment.collection_session_id
    written = payment_write_off(payment=payment, by="staff@example.org")
    assert (written.status, written.written_off_by) == (Payment.Status.WRITTEN_OFF, "staff@example.org")
    assert stripe_sandbox.stored(session_id)["status"] == "expired"  # the customer cannot pay twice
    figures = total()
    assert (figures.captured, figures.written_off, figures.net) == (0, REGISTERED_TOTAL, 0)
    # Their cost stays: the provider charged for the registrations all the same.
    assert (figures.cost, figures.margin) == (Decimal("29.00"), Decimal("-29.00"))
    assert LedgerEntry.objects.filter(kind=LedgerEntry.Kind.WRITE_OFF).count() == 2


def test_the_abandoned_tab_is_settled_by_the_reconciler(start, stripe_sandbox, registrar):
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    # The customer closed the tab and the webhook never came: Stripe's list of events still has it.
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=4)):
        counts = reconcile_payments.enqueue().return_value
    assert counts["events_new"] >= 1
    payment = Payment.objects.get()
    assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, TOTAL)
    assert dict(registrar.calls) == {"example.com": 1, "example.net": 1, "example.org": 1}


def test_the_abandoned_tab_is_settled_from_its_session_without_any_event(start, stripe_sandbox, registrar, monkeypatch):
    monkeypatch.setattr(reconcile, "_events_catch_up", lambda now: 0)  # as if Stripe's events list said nothing
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    reconcile_payments.enqueue()
    assert Payment.objects.get().status == Payment.Status.CREATED  # too early: the customer may still come back
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=4)):
        counts = reconcile_payments.enqueue().return_value
    assert counts["created->captured"] == 1
    assert Payment.objects.get().amount_captured == TOTAL
    assert dict(registrar.calls) == {"example.com": 1, "example.net": 1, "example.org": 1}


def test_a_payment_never_paid_is_cancelled_once_its_session_expires(start, stripe_sandbox, registrar):
    start()
    stripe_sandbox.advance_clock(25 * 3600)
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=10)):
        reconcile_payments.enqueue()
    assert Payment.objects.get().status == Payment.Status.CANCELLED
    assert not registrar.calls


def test_a_line_left_registering_by_a_dead_worker_is_taken_over_once_after_its_lease(
    start, stripe_sandbox, registrar, monkeypatch
):
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    # The worker recorded the authorisation, claimed example.net, and died before delivering anything.
    with monkeypatch.context() as died:
        died.setattr(services, "_deliver_lines", lambda payment: None)
        payment = payment_settle(session_id=started.payment.stripe_session_id)
    assert payment.status == Payment.Status.AUTHORISED
    PaymentLine.objects.filter(payment=payment, reference="example.net").update(
        status=PaymentLine.Status.REGISTERING, claimed_at=timezone.now()
    )
    Payment.objects.filter(pk=payment.pk).update(updated_at=timezone.now() - dt.timedelta(minutes=10))

    with time_machine.travel(timezone.now() + dt.timedelta(minutes=3)):
        reconcile_payments.enqueue()
    # The free lines were delivered; the claimed one is within its lease (its worker may be alive): left alone.
    assert dict(registrar.calls) == {"example.com": 1, "example.org": 1}
    assert Payment.objects.get().status == Payment.Status.AUTHORISED

    with time_machine.travel(timezone.now() + dt.timedelta(minutes=9)):
        reconcile_payments.enqueue()
        reconcile_payments.enqueue()
    assert dict(registrar.calls) == {"example.com": 1, "example.net": 1, "example.org": 1}
    payment.refresh_from_db()
    assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, TOTAL)
    assert len(stripe_sandbox.captures()) == 1


def test_a_declined_card_on_the_payment_page_is_not_a_payment(start, stripe_sandbox, registrar):
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, DECLINED_CARD)
    deliver(stripe_sandbox, times=2)
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=4)):
        reconcile_payments.enqueue()
    assert Payment.objects.get().status == Payment.Status.CREATED
    assert not registrar.calls and not LedgerEntry.objects.exists()


@pytest.mark.parametrize("registered", [True, False])
def test_a_hold_that_lapses_while_every_line_is_unknown_waits_for_them(paid, registrar, stripe_sandbox, registered):
    # The bug this replaces: such a payment ended a quiet "cancelled", though its domains may well be registered.
    registrar.outcomes.update({ref: LineOutcome.UNKNOWN for ref in ("example.com", "example.net", "example.org")})
    payment = paid()
    stripe_sandbox.move_clock_to(int(payment.capture_before.timestamp()) + 1)
    deliver(stripe_sandbox, "payment_intent.canceled")
    payment.refresh_from_db()
    assert (payment.status, payment.collection_card_tried_at) == (Payment.Status.UNPAID, None)  # nothing owed yet
    for line in payment.lines.all():
        payment = payment_line_resolve(line=line, registered=registered and line.reference == "example.net")
    payment.refresh_from_db()
    if registered:
        # example.net turned out registered: it is collected (on the saved card), the others were not registered.
        assert (payment.status, payment.amount_captured) == (Payment.Status.CAPTURED, Decimal("25.00"))
    else:
        assert payment.status == Payment.Status.CANCELLED
        assert not LedgerEntry.objects.exists()
