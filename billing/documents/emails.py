"""The customer's copy of each receipt and credit note, by email: queued in the outbox (storefront/background/outbox.py)
in the transaction that issues the document, in the thread of its checkout, so a credit note never reaches the
customer before the confirmation and the receipt of what it refunds. The outbox sends it once, with retries, with
the document's PDF attached (a business's: its Factur-X e-invoice, billing/documents/einvoices.py): made by the worker
when it sends (billing/documents/pdf.py), not in the request that issued it."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage
from django.template.loader import render_to_string

from accounts.language import customer_language
from billing.documents.contents import credit_note_context, einvoices_offered, receipt_context
from billing.models import Document
from storefront.background.outbox import AttachedFile, EmailAttachment, email_attachment_register, email_queue

logger = logging.getLogger(__name__)

PDF_MAKER = "billing_document_pdf"
# A business customer's document comes as its Factur-X PDF: the same PDF with its e-invoice XML inside.
FACTURX_MAKER = "billing_document_facturx"


def checkout_thread(checkout_id: object) -> str:
    """The outbox thread of everything one checkout (or one renewal's payment) tells the customer."""
    return f"checkout:{checkout_id}"


def document_email_queue(*, document: Document) -> bool:
    """Queue the customer's copy of a receipt or credit note, once per document (its kind, store and number)."""
    customer = document.payment.customer
    with customer_language(customer):
        if document.is_credit_note:
            message = _message("billing/email/credit_note", credit_note_context(document), to=customer.email)
        else:
            message = _message("billing/email/receipt", receipt_context(document), to=customer.email)
    key = f"document:{document.kind}:{document.store}:{document.number}"
    pdf = EmailAttachment(FACTURX_MAKER if einvoices_offered(document) else PDF_MAKER, {"document_id": document.pk})
    return email_queue(message, key=key, thread=checkout_thread(document.payment.checkout_id), attachments=[pdf])


def document_pdf_attachment(params: dict[str, Any]) -> AttachedFile | None:
    """The document's PDF, in its customer's language, when its email is sent (None: the document is gone)."""
    from billing.documents.pdf import (
        PDF_CONTENT_TYPE,
        document_pdf,
        document_pdf_filename,
    )  # WeasyPrint: only when sending

    document = Document.objects.select_related("payment__customer", "receipt").filter(pk=params["document_id"]).first()
    if document is None:
        return None
    with customer_language(document.payment.customer):
        return AttachedFile(document_pdf_filename(document), document_pdf(document), PDF_CONTENT_TYPE)


email_attachment_register(PDF_MAKER, document_pdf_attachment)


def document_facturx_attachment(params: dict[str, Any]) -> AttachedFile | None:
    """The document's Factur-X PDF (its PDF with the e-invoice inside), in its customer's language. When the
    e-invoice cannot be made (the store's country unset since, or an XML its schema refuses: logged as an error for
    staff), the plain PDF: the customer's receipt is never held back by its e-invoice."""
    from billing.documents.einvoices import facturx_pdf  # WeasyPrint: only when sending
    from billing.documents.pdf import PDF_CONTENT_TYPE, document_pdf_filename

    document = Document.objects.select_related("payment__customer", "receipt").filter(pk=params["document_id"]).first()
    if document is None:
        return None
    if not einvoices_offered(document):
        return document_pdf_attachment(params)
    with customer_language(document.payment.customer):
        try:
            pdf = facturx_pdf(document)
        except Exception:  # factur-x raises plain Exception for an XML its schema refuses
            logger.exception("e-invoice of %s %s not made; the plain PDF is attached", document.kind, document.number)
            return document_pdf_attachment(params)
        return AttachedFile(document_pdf_filename(document), pdf, PDF_CONTENT_TYPE)


email_attachment_register(FACTURX_MAKER, document_facturx_attachment)


def _message(template: str, context: dict, *, to: str) -> EmailMessage:
    subject = render_to_string(f"{template}_subject.txt", context).strip()
    body = render_to_string(f"{template}_body.txt", context)
    return EmailMessage(subject, body, settings.DEFAULT_FROM_EMAIL, [to])
