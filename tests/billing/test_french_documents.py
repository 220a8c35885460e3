"""A French business customer's receipt, its PDF and its e-invoices are in French, with the French legal wording of
reverse charge ("Autoliquidation", Article 196 of Directive 2006/112/EC) and "TVA" for VAT (issue 42)."""

from __future__ import annotations

import io
from decimal import Decimal

import facturx  # type: ignore[import-untyped]  # no types, no stubs: Any
import pytest
from django.test import Client
from lxml import etree  # type: ignore[import-untyped]  # stubs are a separate package
from pypdf import PdfReader

from billing.ledger.lines import LineToPay
from billing.payments.services import payment_settle
from pricing.models import TaxRate, TaxRegistration
from pricing.money import Money
from tests.billing.conftest import GOOD_CARD
from tests.catalogue import english_left

pytestmark = pytest.mark.django_db

LEGAL = {
    "STORE_LEGAL_NAME": "Beispiel Netz GmbH",
    "STORE_LEGAL_ADDRESS": "Hafenstraße 1",
    "STORE_LEGAL_POSTCODE": "20457",
    "STORE_LEGAL_CITY": "Hamburg",
    "STORE_LEGAL_COUNTRY": "DE",
    "SUPPORT_EMAIL": "rechnung@beispiel.example",
}
LINES = [LineToPay("exemple.fr", "exemple.fr", Money(Decimal("12.99"), "EUR"), {"years": 1})]
CII = {"ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"}
UBL = {"cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"}
# The dash is French typography's (an en dash), as the catalogue writes it.
REVERSE_CHARGE = (
    "Autoliquidation \N{EN DASH} TVA due par le preneur, article 196 de la directive 2006/112/CE du Conseil."
)


@pytest.fixture(autouse=True)
def german_store(db, settings):
    for name, value in LEGAL.items():
        setattr(settings, name, value)
    TaxRegistration.objects.create(country="DE", tax_id="DE136695976", name="Beispiel Netz GmbH")
    TaxRate.objects.create(country="FR", rate=Decimal(20), label="VAT")


@pytest.fixture
def pay(start, stripe_sandbox, registrar, django_capture_on_commit_callbacks):
    def paid():
        started = start(lines=LINES)
        assert stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD) == "authorised"
        with django_capture_on_commit_callbacks(execute=True):
            return payment_settle(session_id=started.payment.stripe_session_id)

    return paid


def _french(customer, number: str = "") -> None:
    customer.language = "fr"
    customer.country = "FR"
    customer.company = "Exemple SARL" if number else ""
    customer.is_business = bool(number)
    customer.tax_number = number
    customer.save()


def _pdf_text(content: bytes) -> str:
    return " ".join(" ".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(content)).pages).split())


def test_a_french_business_customers_receipt_email_pdf_and_e_invoices_say_autoliquidation(pay, customer, mailoutbox):
    _french(customer, "FR40303265045")
    receipt = pay().receipt

    # The worker's email, in the customer's language, with the Factur-X PDF attached.
    [message] = [sent for sent in mailoutbox if f"{receipt.number}" in sent.subject]
    assert message.subject.startswith(f"Votre facture {receipt.number} de ")
    assert "Merci pour votre paiement. Voici votre facture." in message.body
    assert REVERSE_CHARGE in message.body and "TVA 0\xa0% (autoliquidation)" in message.body
    [(filename, content, mimetype)] = message.attachments
    assert (filename, mimetype) == (f"facture-{receipt.number}.pdf", "application/pdf")

    # What a person reads in the PDF: the French document, its reverse-charge wording and both VAT numbers.
    text = _pdf_text(content)
    assert f"Facture {receipt.number}" in text
    assert REVERSE_CHARGE in text
    assert "Reverse charge" not in text and "Receipt" not in text
    assert "DE136695976" in text and "FR40303265045" in text

    # What an accounting program reads: the same wording as the exemption reason, the payment means in French.
    _name, xml = facturx.get_facturx_xml_from_pdf(io.BytesIO(content), check_xsd=True)
    tree = etree.fromstring(xml)
    assert tree.xpath("//ram:ApplicableTradeTax/ram:ExemptionReason/text()", namespaces=CII) == [REVERSE_CHARGE]
    header = "//ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax"
    assert tree.xpath(f"{header}/ram:CategoryCode/text()", namespaces=CII) == ["AE"]
    assert tree.xpath("//ram:SpecifiedTradeSettlementPaymentMeans/ram:Information/text()", namespaces=CII) == [
        "Carte bancaire"
    ]

    # The XRechnung the customer downloads while signed in (their pages are in their language) says it too.
    client = Client()
    client.force_login(customer.user)
    response = client.get(f"/payments/receipts/{receipt.number}/xrechnung/")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="facture-{receipt.number}-xrechnung.xml"'
    ubl = etree.fromstring(response.content)
    assert ubl.xpath("//cbc:TaxExemptionReason/text()", namespaces=UBL) == [REVERSE_CHARGE]

    # And the receipt's page, in French with nothing of the catalogue left in English.
    page = client.get(f"/payments/receipts/{receipt.number}/").content.decode()
    assert '<html lang="fr">' in page and REVERSE_CHARGE in page
    assert english_left(page, "fr") == []


def test_a_french_consumers_receipt_names_the_tax_tva(pay, customer, mailoutbox):
    _french(customer)
    receipt = pay().receipt
    [message] = [sent for sent in mailoutbox if f"{receipt.number}" in sent.subject]
    # 12.99 + 20 % French VAT (OSS rule: the consumer's country's rate), named as a French reader names it.
    assert "TVA 20%: 2,60\xa0€" in message.body and "VAT" not in message.body
    [(_filename, content, _mimetype)] = message.attachments
    text = _pdf_text(content)
    assert "TVA 20%" in text and "VAT" not in text
