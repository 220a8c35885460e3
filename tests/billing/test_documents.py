"""Receipts and credit notes as the customer gets them: emailed once, listed on the Billing page (their own only),
printable; credit notes numbered without gaps, one per refunded line."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
import time_machine
from django.db import transaction
from django.test import Client, override_settings
from django.utils import timezone

from billing.documents.issuing import credit_note_issue, receipt_issue
from billing.models import Document, Payment, PaymentLine
from billing.payments.refunds import refund_line
from billing.payments.services import payment_settle
from storefront.models import OutgoingEmail
from storefront.tasks import send_due_emails
from tests.billing.conftest import GOOD_CARD
from tests.worker.mailserver import FlakyServer

pytestmark = pytest.mark.django_db

LEGAL = {"STORE_LEGAL_NAME": "Example Domains Ltd", "STORE_LEGAL_ADDRESS": "1 Harbour Street\nBristol BS1 4AA\nUK"}


@pytest.fixture
def paid(start, stripe_sandbox, registrar, django_capture_on_commit_callbacks):
    """Pay with the test card and settle, running what is queued after commit (the receipt's email)."""

    def pay(**kwargs) -> Payment:
        started = start(**kwargs)
        stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
        with django_capture_on_commit_callbacks(execute=True):
            return payment_settle(session_id=started.payment.stripe_session_id)

    return pay


@pytest.fixture
def refund(django_capture_on_commit_callbacks):
    def refunded(payment: Payment, reference: str) -> PaymentLine:
        with django_capture_on_commit_callbacks(execute=True):
            return refund_line(line=payment.lines.get(reference=reference))

    return refunded


def note_of(line: PaymentLine) -> Document:
    """The credit note of the line's refund."""
    return Document.objects.get(kind=Document.Kind.CREDIT_NOTE, refund_id=line.stripe_refund_id)


CREDIT_NOTES = Document.objects.filter(kind=Document.Kind.CREDIT_NOTE)
RECEIPTS = Document.objects.filter(kind=Document.Kind.RECEIPT)


def _signed_in(customer) -> Client:
    client = Client()
    client.force_login(customer.user)
    return client


def _stripe_refunds(stripe_sandbox) -> list[dict]:
    # Refunds made: the worker's GET of a refund (its fee) is no second refund.
    made = [c for c in stripe_sandbox.calls("/refunds") if c["method"] == "POST"]
    return [c for c in made if c["status"] == 200 and not c["replayed"]]


# --- Receipts by email ------------------------------------------------------------------------------------------


@override_settings(**LEGAL)
def test_the_receipt_is_emailed_once_after_capture(paid, customer, mailoutbox, registrar):
    from billing.ledger.lines import LineOutcome

    registrar.outcomes["example.net"] = LineOutcome.FAILED
    payment = paid()
    [message] = mailoutbox
    number = payment.receipt.number
    assert message.to == [customer.email]
    assert message.subject == f"Your receipt {number} from Example Domains Ltd"
    charged, not_charged = message.body.split("Not charged")
    assert f"Receipt {number}, " in charged
    assert "1 Harbour Street\n      Bristol BS1 4AA\n      UK" in charged
    assert "example.com, register 1 year: $12.99" in charged
    assert "example.net" not in charged
    assert "Total paid (USD): $22.49" in charged
    assert "example.net, register 2 years" in not_charged
    assert f"/payments/receipts/{number}/" in message.body

    # Capture reached again (the webhook after the return), the receipt issued again, the sweep: no second email.
    payment_settle(session_id=payment.stripe_session_id)
    receipt_issue(payment=payment)
    assert send_due_emails.enqueue().return_value == 0
    assert len(mailoutbox) == 1


def test_a_receipt_whose_email_failed_is_sent_by_the_sweep(paid, mailoutbox):
    with override_settings(EMAIL_BACKEND="tests.worker.mailserver.EmailBackend"):
        FlakyServer.down = True
        try:
            paid()  # the outbox's task runs (immediate backend) and fails: the email waits for its retry
        finally:
            FlakyServer.down = False
        receipt = RECEIPTS.get()
        [queued] = OutgoingEmail.objects.filter(key=f"document:receipt:{receipt.store}:{receipt.number}")
        assert queued.sent_at is None and queued.attempts == 1 and "SMTPServerDisconnected" in queued.last_error
        assert mailoutbox == []
        assert receipt.payment.status == Payment.Status.CAPTURED  # the payment does not depend on the email

        assert send_due_emails.enqueue().return_value == 0  # not before its wait is over
        with time_machine.travel(timezone.now() + dt.timedelta(minutes=3)):
            assert send_due_emails.enqueue().return_value == 1
            assert send_due_emails.enqueue().return_value == 0
    [message] = mailoutbox
    assert f"Your receipt {receipt.number}" in message.subject


# --- The Billing page and the documents' pages ---------------------------------------------------------------------


@override_settings(**LEGAL)
def test_the_billing_page_lists_the_customers_receipts_and_credit_notes_only(
    paid, refund, customer, other_customer, start
):
    first = paid()
    second = paid()
    theirs = paid(who=other_customer)
    note = note_of(refund(first, "example.org"))

    account = _signed_in(customer).get("/account/").content.decode()
    assert 'href="/account/billing/"' in account

    page = _signed_in(customer).get("/account/billing/")
    assert page.status_code == 200
    text = page.content.decode()
    for receipt in (first.receipt, second.receipt):
        assert f"Receipt {receipt.number}</span>" in text
        assert f'href="/payments/receipts/{receipt.number}/"' in text
    assert f"Credit note {note.number}</span>" in text
    assert f"Receipt {first.receipt.number}: example.org, register 1 year" in text
    assert "\N{MINUS SIGN}$9.50" in text and "$47.49" in text
    assert f'href="/payments/credit-notes/{note.number}/"' in text
    assert f"/payments/receipts/{theirs.receipt.number}/" not in text

    other = _signed_in(other_customer)
    listing = other.get("/account/billing/").content.decode()
    assert f"/payments/receipts/{theirs.receipt.number}/" in listing
    assert f"/payments/receipts/{first.receipt.number}/" not in listing
    assert "Credit note" not in listing
    assert other.get(f"/payments/receipts/{first.receipt.number}/").status_code == 404
    assert other.get(f"/payments/credit-notes/{note.number}/").status_code == 404
    assert other.get("/payments/receipts/999999/").status_code == 404
    assert Client().get("/account/billing/").status_code == 302


@override_settings(**LEGAL)
def test_the_receipt_page_names_the_seller_and_marks_refunded_lines(paid, refund, customer):
    payment = paid()
    note = note_of(refund(payment, "example.net"))
    page = _signed_in(customer).get(f"/payments/receipts/{payment.receipt.number}/").content.decode()
    assert "Example Domains Ltd" in page
    assert "1 Harbour Street<br>Bristol BS1 4AA<br>UK" in page
    assert payment.receipt.issued_at.strftime("%b %-d, %Y") in page  # DATE_FORMAT in English
    assert "Total paid (USD)" in page and "$47.49" in page
    assert f'Refunded: credit note <a href="/payments/credit-notes/{note.number}/">{note.number}</a>' in page
    assert "\N{MINUS SIGN}$25.00" in page
    assert "Not charged" not in page  # every line registered


@override_settings(**LEGAL)
def test_the_credit_note_page_shows_the_refunded_line_and_its_receipt(paid, refund, customer):
    payment = paid()
    note = note_of(refund(payment, "example.com"))
    response = _signed_in(customer).get(f"/payments/credit-notes/{note.number}/")
    assert response.status_code == 200
    page = response.content.decode()
    assert f"Credit note {note.number}</h1>" in page
    assert f'<a href="/payments/receipts/{payment.receipt.number}/">{payment.receipt.number}</a>' in page
    assert "example.com, register 1 year" in page
    assert "example.net" not in page
    assert "Total refunded (USD)" in page and "$12.99" in page
    assert "Example Domains Ltd" in page


# --- Credit notes -------------------------------------------------------------------------------------------------


def test_refunding_the_same_line_twice_gives_one_refund_and_one_credit_note_emailed_once(
    paid, refund, stripe_sandbox, mailoutbox, customer
):
    payment = paid()
    mailoutbox.clear()  # the receipt
    line = refund(payment, "example.net")
    again = refund(payment, "example.net")
    assert again.stripe_refund_id == line.stripe_refund_id
    assert len(_stripe_refunds(stripe_sandbox)) == 1
    [note] = CREDIT_NOTES.all()
    assert (note.payment_id, note.receipt_id, note.amount, note.currency) == (
        payment.pk,
        payment.receipt.pk,
        Decimal("25.00"),
        "USD",
    )
    assert note.refund_id == line.stripe_refund_id
    assert credit_note_issue(payment=payment, refund_id=note.refund_id, amount=note.amount).pk == note.pk
    [message] = [m for m in mailoutbox if "credit note" in m.subject]
    assert message.to == [customer.email]
    assert message.subject.startswith(f"Your credit note {note.number} from ")
    assert f"for receipt {payment.receipt.number}" in message.body
    assert "example.net, register 2 years: $25.00" in message.body
    assert "Total refunded (USD): $25.00" in message.body


def test_credit_notes_are_numbered_without_gaps_in_their_own_series(paid, refund):
    first, second = paid(), paid()
    numbers = [note_of(refund(first, "example.com")).number]
    with pytest.raises(RuntimeError), transaction.atomic():
        # A refund whose recording transaction fails takes its credit note number back with it.
        refund(second, "example.com")
        raise RuntimeError("the transaction failed after the credit note was issued")
    assert not CREDIT_NOTES.filter(payment=second).exists()
    numbers.append(note_of(refund(second, "example.com")).number)  # Stripe's refund replayed by its key
    numbers.append(note_of(refund(first, "example.org")).number)
    assert numbers == [numbers[0], numbers[0] + 1, numbers[0] + 2]
    # Receipts keep their own series: two payments, receipts n and n+1, whatever the credit notes did.
    assert second.receipt.number == first.receipt.number + 1


def test_the_admin_refund_action_issues_credit_notes_staff_can_see(
    paid, admin_client, mailoutbox, django_capture_on_commit_callbacks
):
    payment = paid()
    mailoutbox.clear()
    action = admin_client.post(
        "/admin/billing/payment/", {"action": "refund_registered_lines", "_selected_action": [payment.pk]}
    )
    confirm = action.url
    assert confirm == f"/admin/billing/payment/refund/?payments={payment.pk}"
    page = admin_client.get(confirm).content.decode()
    assert "A <strong>credit note</strong> is issued and emailed to the customer" in page
    assert "A registration refunded in full marks its domain <strong>refunded</strong>" in page
    assert "$47.49" in page  # what the three lines give back
    lines = [str(pk) for pk in payment.lines.values_list("pk", flat=True)]
    for _ in range(2):  # a double click on the confirmation
        with django_capture_on_commit_callbacks(execute=True):
            response = admin_client.post(confirm, {"line": lines}, follow=True)
        assert response.status_code == 200
    notes = list(CREDIT_NOTES.order_by("number"))
    assert [n.amount for n in notes] == [Decimal("12.99"), Decimal("25.00"), Decimal("9.50")]
    assert len(mailoutbox) == 3  # one per credit note (the immediate backend ran them on commit)
    detail = admin_client.get(f"/admin/billing/payment/{payment.pk}/change/").content.decode()
    assert payment.stripe_session_id in detail and payment.stripe_payment_intent_id in detail
    for note in notes:
        assert f"/admin/billing/document/{note.pk}/change/" in detail
    listing = admin_client.get("/admin/billing/document/?kind__exact=credit_note").content.decode()
    assert f"Receipt {payment.receipt.number}" in listing
    assert admin_client.get(f"/admin/billing/document/{payment.receipt.pk}/change/").status_code == 200
    # The list keeps to 1280 px without the Stripe ids; searching by one finds the payment.
    payments = admin_client.get(f"/admin/billing/payment/?q={payment.stripe_payment_intent_id}").content.decode()
    assert "3 refunded" in payments and f"/admin/billing/payment/{payment.pk}/change/" in payments
