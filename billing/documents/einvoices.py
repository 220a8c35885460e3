"""EN 16931 e-invoices of receipts and credit notes: a Factur-X / ZUGFeRD PDF (the document's PDF, PDF/A-3, with
its CII XML embedded) and an XRechnung (UBL XML), for business customers and for any customer who asks for them.

Made with the `factur-x` library (Akretion): it builds the CII and UBL XML from the standard's business terms
(BT-1, BT-2, …), checks each against the schema it ships, and embeds the CII XML into the PDF with the PDF/A-3
metadata Factur-X asks for. Everything the e-invoice says comes from the stored document: its number and date, the
payment's lines as they were charged (tax read as recorded on each line, never recomputed here), both VAT numbers
as recorded at the purchase, and the seller's details from the STORE_LEGAL_* settings.

Its words (the reverse-charge note, the line descriptions, the payment means) are in the active language: the
customer's, when the worker attaches it to their email (billing/documents/emails.py) or they download it while signed
in.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from decimal import Decimal
from typing import Any

import facturx  # type: ignore[import-untyped]  # no types, no stubs: Any
from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext, pgettext
from lxml import etree  # type: ignore[import-untyped]  # stubs are a separate package

from accounts.models import Customer
from billing.documents.contents import DocumentLine, credit_note_context, receipt_context, seller_country
from billing.documents.pdf import document_pdf, document_pdf_filename
from billing.models import Document
from pricing.tax import REVERSE_CHARGE_WORDING

XML_CONTENT_TYPE = "application/xml"
# The XRechnung 3.0 specification identifier (BT-24), in place of plain EN 16931's in the UBL file.
XRECHNUNG_ID = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0"
# UNTDID 1001: a commercial invoice and a credit note.
INVOICE, CREDIT_NOTE = "380", "381"
# UNTDID 4461: paid by card ("bank card"); the invoice is settled when it is issued.
PAID_BY_CARD = "48"
# The exemption reason code (VATEX) of an intra-EU reverse-charged service.
REVERSE_CHARGE_CODE = "VATEX-EU-AE"
# VAT categories (UNCL 5305): standard rate, reverse charge, zero rated, outside the scope of VAT.
STANDARD, REVERSE_CHARGE, ZERO, NOT_SUBJECT = "S", "AE", "Z", "O"


class EInvoiceUnavailable(Exception):
    """The store's legal details lack what an e-invoice must carry (its country)."""


def _amount(value: Decimal) -> str:
    return f"{value.quantize(Decimal('0.01'))}"


def _category(line: DocumentLine, *, seller_registered: bool) -> str:
    if line.reverse_charge:
        return REVERSE_CHARGE
    if line.tax_rate > 0:
        return STANDARD
    return ZERO if seller_registered else NOT_SUBJECT


def _party(
    *,
    name: str,
    vat: str,
    lines: list[str],
    city: str,
    postcode: str,
    country: str,
    contact: dict[str, str],
    subdivision: str = "",
) -> dict[str, Any]:
    email = contact.get("email", "")
    party: dict[str, Any] = {
        "name": name[:255],
        # The electronic address (BT-34, BT-49; XRechnung requires both): the contact's email, scheme EM.
        "einvoicing_addr": email,
        "einvoicing_addr_schemeid": "EM" if email else "",
        "vat_identifier": vat,
        "addr_l1": lines[0] if lines else "",
        "addr_l2": lines[1] if len(lines) > 1 else "",
        "addr_l3": lines[2] if len(lines) > 2 else "",
        "city": city,
        "postcode": postcode,
        "country_subdivision": subdivision,
        "country_code": country,
        "contacts": [{key: value for key, value in contact.items() if value}],
    }
    return {key: value for key, value in party.items() if value}


def _data(document: Document) -> dict[str, Any]:
    """The document in EN 16931's business terms, as factur-x takes them (a new dict each time: it changes it)."""
    context = credit_note_context(document) if document.is_credit_note else receipt_context(document)
    payment = document.payment
    customer: Customer = payment.customer
    lines: list[DocumentLine] = context["lines"]
    country = seller_country(document)
    if not country:
        raise EInvoiceUnavailable("set STORE_LEGAL_COUNTRY: an e-invoice names the seller's country")
    seller_registered = bool(payment.seller_tax_id)
    issued = timezone.localdate(document.issued_at)
    address = context["seller"].address_lines

    groups: dict[tuple[str, Decimal], list[DocumentLine]] = defaultdict(list)
    rows = []
    for position, line in enumerate(lines, start=1):
        category = _category(line, seller_registered=seller_registered)
        rate = line.tax_rate if category == STANDARD else Decimal(0)
        groups[(category, rate)].append(line)
        row = {
            "BT-126": str(position),
            "BT-153": line.description[:255],
            "BT-129": "1",
            "BT-130": "C62",  # one piece: a registration or renewal for its term
            "BT-146": _amount(line.net.amount),
            "BT-131": _amount(line.net.amount),
            "BT-151": category,
        }
        if category != NOT_SUBJECT:
            row["BT-152"] = _amount(rate)
        rows.append(row)

    breakdown = []
    for (category, rate), grouped in groups.items():
        entry = {
            "BT-116": _amount(sum((line.net.amount for line in grouped), Decimal(0))),
            # The tax each line was charged, as recorded (EN 16931 allows a cent's rounding difference).
            "BT-117": _amount(sum((line.tax.amount for line in grouped if line.tax is not None), Decimal(0))),
            "BT-118": category,
        }
        if category != NOT_SUBJECT:
            entry["BT-119"] = _amount(rate)
        if category == REVERSE_CHARGE:
            entry["BT-120"] = str(REVERSE_CHARGE_WORDING)
            entry["BT-121"] = REVERSE_CHARGE_CODE
        elif category == NOT_SUBJECT:
            entry["BT-120"] = gettext("Not subject to VAT")
            entry["BT-121"] = "VATEX-EU-O"
        breakdown.append(entry)

    net = sum((line.net.amount for line in lines), Decimal(0))
    tax = sum((line.tax.amount for line in lines if line.tax is not None), Decimal(0))
    total = net + tax
    data: dict[str, Any] = {
        "BT-1": str(document.number),
        "BT-2": dt.datetime.combine(issued, dt.time()),
        "BT-3": CREDIT_NOTE if document.is_credit_note else INVOICE,
        "BT-5": document.currency,
        # XRechnung asks for a buyer reference: the customer's own as the document recorded it, else their number
        # with the store.
        "BT-10": document.buyer_reference or f"C{customer.pk}",
        "BG-4": _party(
            name=context["seller"].name,
            vat=payment.seller_tax_id,
            lines=address,
            city=settings.STORE_LEGAL_CITY,
            postcode=settings.STORE_LEGAL_POSTCODE,
            country=country,
            contact={
                "name": context["seller"].name[:255],
                "phone": settings.STORE_LEGAL_PHONE,
                "email": settings.SUPPORT_EMAIL or settings.DEFAULT_FROM_EMAIL,
            },
        ),
        # The buyer (BG-7), as the customer's details read now and the VAT number recorded at the purchase.
        "BG-7": _party(
            name=customer.company or customer.name,
            vat=payment.buyer_tax_number,
            lines=[customer.address],
            city=customer.city,
            postcode=customer.zipcode,
            country=customer.country,
            subdivision=customer.state,
            contact={"name": customer.name[:255], "email": customer.email},
        ),
        # The service was delivered (registered, renewed, refunded) when the document was issued.
        "BT-72": dt.datetime.combine(issued, dt.time()),
        "BT-81": PAID_BY_CARD,
        "BT-82": pgettext("payment means", "Card"),
        "BG-23": breakdown,
        "BG-25": rows,
        "BT-106": _amount(net),
        "BT-109": _amount(net),
        "BT-110": _amount(tax),
        "BT-112": _amount(total),
        "BT-113": _amount(total),  # paid (or given back) by card when the document was issued
        "BT-115": _amount(Decimal(0)),
    }
    if document.is_credit_note and document.receipt is not None:
        receipt_day = timezone.localdate(document.receipt.issued_at)
        data["BG-3"] = [{"BT-25": str(document.receipt.number), "BT-26": dt.datetime.combine(receipt_day, dt.time())}]
    return {key: value for key, value in data.items() if value not in ("", None)}


def cii_xml(document: Document) -> bytes:
    """The document as Factur-X's CII XML (EN 16931 profile), checked against the schema factur-x ships."""
    return facturx.generate_cii_xml(_data(document), level="en16931", check_xsd=True, check_schematron=False)


def xrechnung_xml(document: Document) -> bytes:
    """The document as an XRechnung: UBL 2.1 (an Invoice or a CreditNote) carrying XRechnung's identifier,
    checked against the UBL schema factur-x ships."""
    xml = facturx.generate_ubl_xml(_data(document), level="en16931", check_xsd=True, check_schematron=False)
    tree = etree.fromstring(xml)
    [customization] = tree.xpath(
        "/*/cbc:CustomizationID",
        namespaces={"cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"},
    )
    customization.text = XRECHNUNG_ID
    return etree.tostring(tree, xml_declaration=True, encoding="UTF-8")


def facturx_pdf(document: Document) -> bytes:
    """The document's PDF (PDF/A-3) with its CII XML embedded as factur-x.xml: one file a person reads and an
    accounting program imports."""
    xml = cii_xml(document)
    pdf = document_pdf(document, variant="pdf/a-3b")
    return facturx.generate_from_binary(
        pdf, xml, flavor="factur-x", level="en16931", check_xsd=False, lang=translation.get_language()
    )


def facturx_filename(document: Document) -> str:
    """`receipt-12-factur-x.pdf`: told apart from the plain PDF (`receipt-12.pdf`) in a downloads folder."""
    return document_pdf_filename(document).removesuffix(".pdf") + "-factur-x.pdf"


def xrechnung_filename(document: Document) -> str:
    """`receipt-12-xrechnung.xml`: the document's file name (in the active language) and the format."""
    return document_pdf_filename(document).removesuffix(".pdf") + "-xrechnung.xml"
