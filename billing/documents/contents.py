"""The customer's billing documents (billing.models.Document): what the pages and emails show of them: who issued
them (the reseller's legal identity, from settings), what was charged, what was not, and what was refunded. Issuing
them is billing/documents/issuing.py."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext

from accounts.models import Customer
from billing.ledger.figures import line_figure
from billing.ledger.taxes import VAT_UNCONFIRMED_NOTE
from billing.models import Document, LedgerEntry, Payment, PaymentLine
from pricing.money import Money
from pricing.tax import REVERSE_CHARGE_WORDING, percent, taxes_by_rate

CHARGED = (PaymentLine.Status.REGISTERED, PaymentLine.Status.REFUNDED)
URL_NAMES = {Document.Kind.RECEIPT: "billing:receipt", Document.Kind.CREDIT_NOTE: "billing:credit_note"}
EINVOICE_URL_NAMES = {
    Document.Kind.RECEIPT: ("billing:receipt_facturx", "billing:receipt_xrechnung"),
    Document.Kind.CREDIT_NOTE: ("billing:credit_note_facturx", "billing:credit_note_xrechnung"),
}


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
    # The e-invoice downloads (Factur-X PDF, XRechnung XML), when the document comes as one.
    facturx_url: str = ""
    xrechnung_url: str = ""

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


# Of an ISO 3166 code, the VAT number's prefix where the two differ.
_VAT_PREFIX_COUNTRY = {"EL": "GR", "XI": "GB"}


def seller_country(document: Document) -> str:
    """The seller's country: STORE_LEGAL_COUNTRY, else the prefix of the VAT number the document carries."""
    if settings.STORE_LEGAL_COUNTRY:
        return str(settings.STORE_LEGAL_COUNTRY)
    prefix = document.payment.seller_tax_id[:2].upper()
    return _VAT_PREFIX_COUNTRY.get(prefix, prefix) if prefix.isalpha() else ""


def einvoices_offered(document: Document) -> bool:
    """Whether the document also comes as an e-invoice (billing/documents/einvoices.py): to a business (a VAT number
    recorded at the purchase, or the customer buys as a business) or a customer who asked for them; and only once the
    store can say which country it sells from (an e-invoice must)."""
    payment = document.payment
    customer = payment.customer
    wanted = bool(payment.buyer_tax_number) or customer.is_business or customer.wants_einvoices
    return wanted and bool(seller_country(document))


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
        **_einvoice_urls(receipt),
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
        **_einvoice_urls(note),
    }


def _refers_to(document: Document) -> str:
    """A credit note's receipt and the items it gives back; nothing for a receipt."""
    if document.receipt is None:
        return ""
    items = LedgerEntry.objects.filter(
        payment_id=document.payment_id, kind=LedgerEntry.Kind.REFUND, source_id=document.refund_id
    ).values_list("line__description", flat=True)
    return gettext("Receipt %(number)s: %(item)s") % {"number": document.receipt.number, "item": ", ".join(items)}


def _einvoice_urls(document: Document) -> dict[str, str]:
    if not einvoices_offered(document):
        return {}
    facturx, xrechnung = EINVOICE_URL_NAMES[Document.Kind(document.kind)]
    return {
        "facturx_url": reverse(facturx, args=[document.number]),
        "xrechnung_url": reverse(xrechnung, args=[document.number]),
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
    """One page of this customer's receipts and credit notes in this store, newest first (a credit note before the
    receipt of the same moment): the page's rows and one more (is there a next page?), whatever the customer has."""
    start = (page - 1) * per_page
    documents = list(
        Document.objects.filter(store=settings.STORE_NAME, payment__customer=customer)
        .select_related("receipt", "payment__customer")
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
            **_einvoice_urls(document),
        )
        for document in documents[:per_page]
    ]
    return DocumentPage(rows=rows, number=page, has_next=len(documents) > per_page)
