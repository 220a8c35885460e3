"""The customer's billing documents (receipts and credit notes) as the pages and emails show them: who issued
them (the reseller's legal identity, from settings), what was charged, what was not, and what was refunded."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext

from accounts.models import Customer
from billing.models import CreditNote, PaymentLine, Receipt
from pricing.money import Money

CHARGED = (PaymentLine.Status.REGISTERED, PaymentLine.Status.REFUNDED)


@dataclass(frozen=True)
class Seller:
    name: str
    address_lines: list[str]


@dataclass(frozen=True)
class DocumentRow:
    """One row of the Billing page."""

    kind: str  # "receipt" or "credit note"
    number: int
    issued_at: dt.datetime
    total: Money  # a credit note's is what is given back
    url: str
    refers_to: str = ""

    @property
    def label(self) -> str:
        """The kind as the customer reads it, in the active language."""
        return gettext("Credit note") if self.kind == "credit note" else gettext("Receipt")


def seller() -> Seller:
    address = [line.strip() for line in settings.STORE_LEGAL_ADDRESS.splitlines() if line.strip()]
    return Seller(name=settings.STORE_LEGAL_NAME or settings.STORE_NAME, address_lines=address)


def receipt_for_user(*, user: Any, number: int) -> Receipt | None:
    """This store's receipt `number` if it belongs to `user`, else None (the view answers 404 either way)."""
    return (
        Receipt.objects.select_related("payment__customer__user")
        .filter(store=settings.STORE_NAME, number=number, payment__customer__user=user)
        .first()
    )


def credit_note_for_user(*, user: Any, number: int) -> CreditNote | None:
    return (
        CreditNote.objects.select_related("receipt__payment__customer__user", "line")
        .filter(store=settings.STORE_NAME, number=number, receipt__payment__customer__user=user)
        .first()
    )


def receipt_context(receipt: Receipt) -> dict[str, Any]:
    payment = receipt.payment
    lines = list(payment.lines.select_related("credit_note"))
    return {
        "receipt": receipt,
        "payment": payment,
        "customer": payment.customer,
        "seller": seller(),
        "lines": [line for line in lines if line.status in CHARGED],
        # Lines paid for at checkout that did not register: their part of the authorisation was released.
        "not_charged": [line for line in lines if line.status not in CHARGED],
        "url": settings.SITE_URL + reverse("billing:receipt", args=[receipt.number]),
    }


def credit_note_context(note: CreditNote) -> dict[str, Any]:
    payment = note.receipt.payment
    return {
        "note": note,
        "receipt": note.receipt,
        "line": note.line,
        "customer": payment.customer,
        "seller": seller(),
        "url": settings.SITE_URL + reverse("billing:credit_note", args=[note.number]),
        "receipt_url": settings.SITE_URL + reverse("billing:receipt", args=[note.receipt.number]),
    }


# Rows on one page of the Billing page.
DOCUMENTS_PER_PAGE = 25


@dataclass(frozen=True)
class DocumentPage:
    rows: list[DocumentRow]
    number: int
    has_next: bool

    @property
    def has_previous(self) -> bool:
        return self.number > 1


def billing_documents(*, customer: Customer, page: int = 1, per_page: int = DOCUMENTS_PER_PAGE) -> DocumentPage:
    """One page of this customer's receipts and credit notes in this store, newest first.

    Each kind is read, newest first, only as far as the end of the page (and one more, to know whether a next page
    exists); the two are merged and the page cut out. A page costs two queries whatever the customer has.
    """
    end = page * per_page
    receipts = Receipt.objects.filter(store=settings.STORE_NAME, payment__customer=customer).order_by(
        "-issued_at", "-number"
    )[: end + 1]
    notes = (
        CreditNote.objects.filter(store=settings.STORE_NAME, receipt__payment__customer=customer)
        .select_related("receipt", "line")
        .order_by("-issued_at", "-number")[: end + 1]
    )
    rows = [
        DocumentRow("receipt", r.number, r.issued_at, r.total, reverse("billing:receipt", args=[r.number]))
        for r in receipts
    ] + [
        DocumentRow(
            "credit note",
            n.number,
            n.issued_at,
            n.total,
            reverse("billing:credit_note", args=[n.number]),
            refers_to=gettext("Receipt %(number)s: %(item)s")
            % {"number": n.receipt.number, "item": n.line.description},
        )
        for n in notes
    ]
    rows.sort(key=lambda row: (row.issued_at, row.kind == "credit note", row.number), reverse=True)
    return DocumentPage(rows=rows[end - per_page : end], number=page, has_next=len(rows) > end)
