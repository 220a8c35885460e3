"""Receipts and credit notes as PDF files (issue 30): downloaded from the document's page by its owner only, and
attached to the document's email, made by the worker when it sends; the same document as the page, in the
customer's language, and rendered without fetching anything from the network."""

from __future__ import annotations

import io

import pytest
from django.test import Client, override_settings
from django.utils import translation
from pypdf import PdfReader

from billing.documents.emails import PDF_MAKER
from billing.documents.pdf import StaticFilesOnly, document_pdf
from billing.models import Document, Payment, PaymentLine
from billing.payments.refunds import refund_line
from billing.payments.services import payment_settle
from storefront.models import OutgoingEmail
from tests.billing.conftest import GOOD_CARD

pytestmark = pytest.mark.django_db

LEGAL = {"STORE_LEGAL_NAME": "Example Domains Ltd", "STORE_LEGAL_ADDRESS": "1 Harbour Street\nBristol BS1 4AA"}


@pytest.fixture
def paid(start, stripe_sandbox, registrar, django_capture_on_commit_callbacks):
    def pay() -> Payment:
        started = start()
        stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
        with django_capture_on_commit_callbacks(execute=True):
            return payment_settle(session_id=started.payment.stripe_session_id)

    return pay


def _text(pdf: bytes) -> str:
    return " ".join(" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf)).pages)


def _signed_in(customer) -> Client:
    client = Client()
    client.force_login(customer.user)
    return client


@override_settings(**LEGAL)
def test_the_owner_downloads_the_receipt_as_a_pdf_from_its_page(paid, customer):
    number = paid().receipt.number
    client = _signed_in(customer)
    page = client.get(f"/payments/receipts/{number}/").content.decode()
    assert f'href="/payments/receipts/{number}/pdf/"' in page and "Download PDF" in page

    response = client.get(f"/payments/receipts/{number}/pdf/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == f'attachment; filename="receipt-{number}.pdf"'
    assert response.content.startswith(b"%PDF")
    text = _text(response.content)
    assert f"Receipt {number}" in text
    assert "Example Domains Ltd" in text and "1 Harbour Street" in text
    assert "example.com, register 1 year" in text and "$47.49" in text
    assert customer.email in text
    # The page's navigation, footer and buttons are not part of the document.
    assert "Download PDF" not in text and "Sign out" not in text


def test_someone_elses_receipt_or_a_missing_one_is_not_found(paid, other_customer):
    number = paid().receipt.number
    stranger = _signed_in(other_customer)
    assert stranger.get(f"/payments/receipts/{number}/pdf/").status_code == 404
    assert stranger.get(f"/payments/receipts/{number + 100}/pdf/").status_code == 404
    # A receipt's number is not a credit note's.
    assert stranger.get(f"/payments/credit-notes/{number}/pdf/").status_code == 404
    assert Client().get(f"/payments/receipts/{number}/pdf/").status_code == 302  # to sign-in


def test_the_pdf_is_in_the_customers_language(paid):
    receipt = paid().receipt
    with translation.override("es"):
        text = _text(document_pdf(receipt))
    assert f"Recibo {receipt.number}" in text
    assert "47,49\xa0US$" in text or "47,49 US$" in text


def test_the_receipt_email_carries_the_pdf_made_when_it_is_sent(paid, customer, mailoutbox):
    payment = paid()
    number = payment.receipt.number
    queued = OutgoingEmail.objects.get(key__startswith="document:receipt:")
    # Queued with what makes the file, not the file: the request that issued the receipt rendered no PDF.
    assert queued.attachments == [{"maker": PDF_MAKER, "params": {"document_id": payment.receipt.pk}}]
    [message] = mailoutbox
    [(filename, content, mimetype)] = message.attachments
    assert (filename, mimetype) == (f"receipt-{number}.pdf", "application/pdf")
    assert content.startswith(b"%PDF") and f"Receipt {number}" in _text(content)


def test_the_credit_note_email_and_download_carry_the_credit_note(
    paid, customer, mailoutbox, django_capture_on_commit_callbacks
):
    payment = paid()
    with django_capture_on_commit_callbacks(execute=True):
        line = refund_line(line=payment.lines.get(reference="example.com"))
    note = Document.objects.get(kind=Document.Kind.CREDIT_NOTE, refund_id=line.stripe_refund_id)
    message = mailoutbox[-1]
    [(filename, content, _mimetype)] = message.attachments
    assert filename == f"credit-note-{note.number}.pdf"
    text = _text(content)
    assert f"Credit note {note.number}" in text and "example.com, register 1 year" in text
    response = _signed_in(customer).get(f"/payments/credit-notes/{note.number}/pdf/")
    assert response.status_code == 200 and f"Credit note {note.number}" in _text(response.content)


def test_rendering_fetches_only_the_stores_static_files():
    fetcher = StaticFilesOnly(base_url="https://shop.example/")
    stylesheet = fetcher.fetch("https://shop.example/static/css/billing.css")
    assert b".document" in stylesheet.read()
    for url in (
        "https://fonts.example.com/font.woff2",
        "https://shop.example/admin/",
        "https://shop.example/static/../storefront/settings.py",
        "https://shop.example/static/%2e%2e/storefront/settings.py",
        "https://shop.example/static//etc/passwd",
        "file:///etc/passwd",
    ):
        with pytest.raises(ValueError):
            fetcher.fetch(url)


def test_a_line_left_out_of_the_receipt_is_left_out_of_its_pdf(paid, registrar):
    from billing.ledger.lines import LineOutcome

    registrar.outcomes["example.net"] = LineOutcome.FAILED
    payment = paid()
    assert payment.lines.get(reference="example.net").status == PaymentLine.Status.FAILED
    # The PDF keeps the page's styles: the section's heading is in capitals.
    charged, not_charged = _text(document_pdf(payment.receipt)).split("NOT CHARGED")
    assert "example.net" not in charged and "example.net, register 2 years" in not_charged
