"""The customer's copy of each receipt and credit note, by email: queued in the outbox (storefront/outbox.py) in
the transaction that issues the document, in the thread of its checkout, so a credit note never reaches the
customer before the confirmation and the receipt of what it refunds. The outbox sends it once, with retries."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import EmailMessage
from django.template.loader import render_to_string

from accounts.language import customer_language
from billing.documents import credit_note_context, receipt_context
from billing.models import CreditNote, Receipt
from storefront.outbox import email_queue


def checkout_thread(checkout_id: object) -> str:
    """The outbox thread of everything one checkout (or one renewal's payment) tells the customer."""
    return f"checkout:{checkout_id}"


def receipt_email_queue(*, receipt: Receipt) -> bool:
    customer = receipt.payment.customer
    with customer_language(customer):
        message = _message("billing/email/receipt", receipt_context(receipt), to=customer.email)
    return email_queue(message, key=f"receipt:{receipt.pk}", thread=checkout_thread(receipt.payment.checkout_id))


def credit_note_email_queue(*, note: CreditNote) -> bool:
    payment = note.receipt.payment
    with customer_language(payment.customer):
        message = _message("billing/email/credit_note", credit_note_context(note), to=payment.customer.email)
    return email_queue(message, key=f"credit-note:{note.pk}", thread=checkout_thread(payment.checkout_id))


def _message(template: str, context: dict, *, to: str) -> EmailMessage:
    subject = render_to_string(f"{template}_subject.txt", context).strip()
    body = render_to_string(f"{template}_body.txt", context)
    return EmailMessage(subject, body, settings.DEFAULT_FROM_EMAIL, [to])
