"""Receipts and credit notes issued before the one document model keep their numbers, series and links."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.migrations import migrate_to

BEFORE = [("billing", "0003_saved_cards_and_off_session_failures")]
AFTER = [("billing", "0005_one_document_model")]


@pytest.mark.django_db(transaction=True)
def test_existing_receipts_and_credit_notes_become_documents_with_their_numbers(customer):
    old = migrate_to(BEFORE)
    Payment = old.get_model("billing", "Payment")
    PaymentLine = old.get_model("billing", "PaymentLine")
    Receipt = old.get_model("billing", "Receipt")
    CreditNote = old.get_model("billing", "CreditNote")
    payment = Payment.objects.create(
        customer_id=customer.pk,
        checkout_id=uuid.uuid4(),
        status="captured",
        currency="USD",
        amount=Decimal("22.49"),
        amount_authorised=Decimal("22.49"),
        amount_captured=Decimal("22.49"),
        amount_refunded=Decimal("9.50"),
    )
    kept = PaymentLine.objects.create(
        payment=payment, position=0, reference="a.com", description="a", amount=12.99, status="registered"
    )
    refunded = PaymentLine.objects.create(
        payment=payment,
        position=1,
        reference="b.org",
        description="b",
        amount=9.50,
        status="refunded",
        stripe_refund_id="re_old",
    )
    receipt = Receipt.objects.create(store="Shop", number=7, payment=payment, amount=Decimal("22.49"), currency="USD")
    CreditNote.objects.create(
        store="Shop",
        number=3,
        receipt=receipt,
        line=refunded,
        amount=Decimal("9.50"),
        currency="USD",
        stripe_refund_id="re_old",
    )
    old.get_model("billing", "ReceiptCounter").objects.create(store="Shop", last_number=7)
    old.get_model("billing", "CreditNoteCounter").objects.create(store="Shop", last_number=3)

    new = migrate_to(AFTER)
    Document = new.get_model("billing", "Document")
    receipt_doc = Document.objects.get(kind="receipt")
    note = Document.objects.get(kind="credit_note")
    assert (receipt_doc.store, receipt_doc.number, receipt_doc.payment_id, receipt_doc.amount) == (
        "Shop",
        7,
        payment.pk,
        Decimal("22.49"),
    )
    assert (note.number, note.receipt_id, note.refund_id, note.amount) == (3, receipt_doc.pk, "re_old", Decimal("9.50"))
    series = {(s.kind, s.store): s.last_number for s in new.get_model("billing", "DocumentSeries").objects.all()}
    assert series == {("receipt", "Shop"): 7, ("credit_note", "Shop"): 3}
    # The ledger's entries, booked by the migration before it, carry the credit note's refund.
    entry = new.get_model("billing", "LedgerEntry").objects.get(kind="refund")
    assert (entry.source_id, entry.line_id, entry.amount) == ("re_old", refunded.pk, Decimal("-9.50"))
    captures = new.get_model("billing", "LedgerEntry").objects.filter(kind="capture").order_by("line__position")
    assert [(c.line_id, c.amount, c.cost) for c in captures] == [
        (kept.pk, Decimal("12.99"), None),
        (refunded.pk, Decimal("9.50"), None),
    ]

    # And back: the old tables hold what they held.
    back = migrate_to(BEFORE)
    assert back.get_model("billing", "Receipt").objects.get().number == 7
    assert back.get_model("billing", "CreditNote").objects.get().line_id == refunded.pk
    migrate_to(_latest())


def _latest():
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()
