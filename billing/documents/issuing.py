"""Issuing receipts and credit notes (billing.models.Document) in their gap-free series, each emailed in the
transaction that issues it. Apart from billing/documents/contents.py (what the pages and emails show of a document)
because the emails render with that module's contexts: issuing sits above both."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction

from billing.documents.emails import document_email_queue
from billing.models import Document, DocumentSeries, Payment


def _next_number(kind: str, *, store: str) -> int:
    """The store's next number of this kind: its series row is locked and moved in the caller's transaction, so a
    rolled-back document takes its number back with it (no gaps)."""
    DocumentSeries.objects.get_or_create(kind=kind, store=store)
    series = DocumentSeries.objects.select_for_update().get(kind=kind, store=store)
    series.last_number += 1
    series.save(update_fields=["last_number"])
    return series.last_number


def _issue(**fields: Any) -> Document:
    document = Document.objects.create(number=_next_number(fields["kind"], store=fields["store"]), **fields)
    # In the same transaction: a rolled-back document takes its number and its email back with it.
    document_email_queue(document=document)
    return document


def receipt_issue(*, payment: Payment, store: str | None = None) -> Document:
    """The payment's receipt (one per payment), for what was captured, numbered in the store's receipt series."""
    existing = Document.objects.filter(payment=payment, kind=Document.Kind.RECEIPT).first()
    if existing is not None:
        return existing
    with transaction.atomic():
        return _issue(
            kind=Document.Kind.RECEIPT,
            store=store or settings.STORE_NAME,
            payment=payment,
            amount=payment.amount_captured,
            currency=payment.currency,
            buyer_reference=payment.customer.buyer_reference,
        )


def credit_note_issue(*, payment: Payment, refund_id: str, amount: Decimal, store: str | None = None) -> Document:
    """The credit note of one refund (one per refund, however often it is reported), naming the payment's receipt,
    numbered in the store's credit note series. The refund's ledger entries say which lines it gave back."""
    existing = Document.objects.filter(kind=Document.Kind.CREDIT_NOTE, refund_id=refund_id).first()
    if existing is not None:
        return existing
    with transaction.atomic():
        receipt = receipt_issue(payment=payment)  # a refunded payment was captured, so its receipt exists
        return _issue(
            kind=Document.Kind.CREDIT_NOTE,
            store=store or settings.STORE_NAME,
            payment=payment,
            receipt=receipt,
            amount=amount,
            currency=payment.currency,
            refund_id=refund_id,
            buyer_reference=receipt.buyer_reference,
        )
