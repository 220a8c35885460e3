"""The customer's billing documents (billing.models.Document): issuing receipts and credit notes in their gap-free
series, and what the pages and emails show of them: who issued them (the reseller's legal identity, from settings),
what was charged, what was not, and what was refunded."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils.translation import gettext

from accounts.models import Customer
from billing.figures import line_figure
from billing.models import Document, DocumentSeries, LedgerEntry, Payment, PaymentLine
from billing.taxes import VAT_UNCONFIRMED_NOTE
from pricing.money import Money
from pricing.tax import REVERSE_CHARGE_WORDING, percent, taxes_by_rate

CHARGED = (PaymentLine.Status.REGISTERED, PaymentLine.Status.REFUNDED)
URL_NAMES = {Document.Kind.RECEIPT: "billing:receipt", Document.Kind.CREDIT_NOTE: "billing:credit_note"}


# --- Issuing ------------------------------------------------------------------------------------------------------


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
    from billing.emails import document_email_queue  # the emails module renders with this one's contexts

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
        )


# --- Showing ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seller:
    name: str
    address_lines: list[str]


@dataclass(frozen=True)
class DocumentRow:
    """One row of the Billing page."""

    kind: str
    number: int
    issued_at: dt.datetime
    total: Money  # a credit note's is what is given back
    url: str
    refers_to: str = ""

    @property
    def is_credit_note(self) -> bool:
        return self.kind == Document.Kind.CREDIT_NOTE

    @property
    def label(self) -> str:
        """The kind as the customer reads it, in the active language."""
        return gettext("Credit note") if self.is_credit_note else gettext("Receipt")


@dataclass(frozen=True)
class DocumentLine:
    """One line of a receipt or credit note: the item and term, and its amount."""

    description: str
    amount: Money
    refunded: Money | None = None  # a receipt's line refunded since, in full or in part
    credit_notes: tuple[Document, ...] = ()
    refunded_at: dt.datetime | None = None
    # A promotion's part: the price before it, what it took off, and its code (`amount` is after it).
    list_price: Money | None = None
    discount: Money | None = None
    promotion_code: str = ""
    # The tax in `amount` (which is what was paid or given back, tax included), its label and rate.
    tax: Money | None = None
    tax_label: str = ""
    tax_rate: Decimal = Decimal(0)
    reverse_charge: bool = False

    @property
    def net(self) -> Money:
        return self.amount - self.tax if self.tax is not None else self.amount


@dataclass(frozen=True)
class TaxSummary:
    """What a document says about tax: the amounts before tax, the tax per rate, reverse charge and both numbers."""

    net: Money
    taxes: list[tuple[str, Decimal, Money]]  # (label, rate, amount)
    reverse_charge: bool
    seller_tax_id: str
    seller_tax_name: str
    buyer_tax_number: str
    inclusive: bool

    @property
    def wording(self) -> str:
        return str(REVERSE_CHARGE_WORDING) if self.reverse_charge else ""

    @property
    def shown(self) -> bool:
        return bool(self.seller_tax_id or self.buyer_tax_number or self.taxes or self.reverse_charge)


def tax_summary(payment: Payment, lines: list[DocumentLine]) -> TaxSummary:
    net = Money.zero(payment.currency)
    for line in lines:
        net += line.net
    return TaxSummary(
        net=net,
        taxes=taxes_by_rate(
            (line.tax_label, percent(line.tax_rate), line.tax) for line in lines if line.tax is not None
        ),
        reverse_charge=any(line.reverse_charge for line in lines),
        seller_tax_id=payment.seller_tax_id,
        seller_tax_name=payment.seller_tax_name,
        buyer_tax_number=payment.buyer_tax_number,
        inclusive=payment.tax_inclusive,
    )


def seller() -> Seller:
    address = [line.strip() for line in settings.STORE_LEGAL_ADDRESS.splitlines() if line.strip()]
    return Seller(name=settings.STORE_LEGAL_NAME or settings.STORE_NAME, address_lines=address)


def document_for_user(*, user: Any, kind: str, number: int) -> Document | None:
    """This store's document `number` of `kind` if it belongs to `user`, else None (the view answers 404 either way)."""
    return (
        Document.objects.select_related("payment__customer__user", "receipt")
        .filter(kind=kind, store=settings.STORE_NAME, number=number, payment__customer__user=user)
        .first()
    )


def document_url(document: Document, *, absolute: bool = False) -> str:
    path = reverse(URL_NAMES[Document.Kind(document.kind)], args=[document.number])
    return settings.SITE_URL + path if absolute else path


def _refunds_of(payment: Payment) -> dict[int, list[LedgerEntry]]:
    entries: dict[int, list[LedgerEntry]] = {}
    for entry in payment.ledger_entries.filter(kind=LedgerEntry.Kind.REFUND).order_by("occurred_at", "pk"):
        entries.setdefault(entry.line_id, []).append(entry)
    return entries


def receipt_context(receipt: Document) -> dict[str, Any]:
    payment = receipt.payment
    notes = {note.refund_id: note for note in payment.documents.filter(kind=Document.Kind.CREDIT_NOTE)}
    refunds = _refunds_of(payment)
    rows = []
    lines = list(payment.lines.select_related("promotion"))
    for line in lines:
        if line.status not in CHARGED:
            continue
        given_back = -sum((entry.amount for entry in refunds.get(line.pk, [])), Decimal(0))
        line_notes = tuple(
            dict.fromkeys(notes[entry.source_id] for entry in refunds.get(line.pk, []) if entry.source_id in notes)
        )
        figure = line_figure(line)  # what the confirmation page and email say of the line, too
        rows.append(
            DocumentLine(
                description=figure.description,
                amount=figure.amount,
                tax=figure.tax,
                tax_label=figure.tax_label,
                tax_rate=percent(figure.tax_rate),
                reverse_charge=figure.reverse_charge,
                refunded=Money(given_back, payment.currency) if given_back > 0 else None,
                credit_notes=line_notes,
                refunded_at=refunds[line.pk][-1].occurred_at if given_back > 0 else None,
                list_price=figure.list_price,
                discount=figure.discount,
                promotion_code=figure.promotion_code,
            )
        )
    return {
        "receipt": receipt,
        "payment": payment,
        "customer": payment.customer,
        "seller": seller(),
        "lines": rows,
        "tax": tax_summary(payment, rows),
        # Lines paid for at checkout that did not register: their part of the authorisation was released.
        "not_charged": [line for line in lines if line.status not in CHARGED],
        "vat_unconfirmed_note": VAT_UNCONFIRMED_NOTE,
        "url": document_url(receipt, absolute=True),
    }


def credit_note_context(note: Document) -> dict[str, Any]:
    payment = note.payment
    assert note.receipt is not None  # a credit note always names its receipt (a database constraint)
    entries = payment.ledger_entries.filter(kind=LedgerEntry.Kind.REFUND, source_id=note.refund_id)
    lines = [
        DocumentLine(
            description=entry.line.description,
            amount=Money(-entry.amount, entry.currency),
            tax=Money(-entry.tax, entry.currency),
            tax_label=entry.line.tax_label,
            tax_rate=percent(entry.line.tax_rate),
            reverse_charge=entry.line.reverse_charge,
        )
        for entry in entries.select_related("line").order_by("line__position")
    ]
    return {
        "note": note,
        "receipt": note.receipt,
        "payment": payment,
        "lines": lines,
        "tax": tax_summary(payment, lines),
        "customer": payment.customer,
        "seller": seller(),
        "url": document_url(note, absolute=True),
        "receipt_url": document_url(note.receipt, absolute=True),
    }


def _refers_to(document: Document) -> str:
    """A credit note's receipt and the items it gives back; nothing for a receipt."""
    if document.receipt is None:
        return ""
    items = LedgerEntry.objects.filter(
        payment_id=document.payment_id, kind=LedgerEntry.Kind.REFUND, source_id=document.refund_id
    ).values_list("line__description", flat=True)
    return gettext("Receipt %(number)s: %(item)s") % {"number": document.receipt.number, "item": ", ".join(items)}


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
    """One page of this customer's receipts and credit notes in this store, newest first (a credit note before the
    receipt of the same moment): the page's rows and one more (is there a next page?), whatever the customer has."""
    start = (page - 1) * per_page
    documents = list(
        Document.objects.filter(store=settings.STORE_NAME, payment__customer=customer)
        .select_related("receipt")
        # "credit_note" sorts before "receipt".
        .order_by("-issued_at", "kind", "-number")[start : start + per_page + 1]
    )
    rows = [
        DocumentRow(
            document.kind,
            document.number,
            document.issued_at,
            document.total,
            document_url(document),
            refers_to=_refers_to(document),
        )
        for document in documents[:per_page]
    ]
    return DocumentPage(rows=rows, number=page, has_next=len(documents) > per_page)
