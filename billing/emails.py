"""The customer's copy of each receipt and credit note, by email.

Sent by the worker (billing.tasks), never by a request. `emailed_at` is set only after the mail server accepted the
message, so a failing server leaves the document to the next attempt (a retry, or the billing-emails sweep), and a
document already mailed is never mailed again, whatever the number of tasks enqueued for it.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.language import customer_language
from billing.documents import credit_note_context, receipt_context
from billing.models import CreditNote, Receipt
from storefront.background import claimed

# A document older than this gets no email from the sweep (it would be news to nobody); one younger than the
# grace period still has its own task queued from the moment it was issued.
_SWEEP_DAYS = 30
_SWEEP_GRACE = dt.timedelta(minutes=2)


def receipt_email_send(*, receipt_id: int) -> bool:
    """Email the customer this receipt, once. True if sent now. Raises whatever the mail backend raises."""
    rows = Receipt.objects.filter(pk=receipt_id, emailed_at__isnull=True).select_related("payment__customer__user")
    with claimed(rows) as found:
        if not found:
            return False
        receipt = found[0]
        customer = receipt.payment.customer
        with customer_language(customer):
            message = _message("billing/email/receipt", receipt_context(receipt), to=customer.email)
        message.send()
        Receipt.objects.filter(pk=receipt.pk, emailed_at__isnull=True).update(emailed_at=timezone.now())
    return True


def credit_note_email_send(*, credit_note_id: int) -> bool:
    """Email the customer this credit note, once. True if sent now. Raises whatever the mail backend raises."""
    rows = CreditNote.objects.filter(pk=credit_note_id, emailed_at__isnull=True).select_related(
        "receipt__payment__customer__user", "line"
    )
    with claimed(rows) as found:
        if not found:
            return False
        note = found[0]
        customer = note.receipt.payment.customer
        with customer_language(customer):
            message = _message("billing/email/credit_note", credit_note_context(note), to=customer.email)
        message.send()
        CreditNote.objects.filter(pk=note.pk, emailed_at__isnull=True).update(emailed_at=timezone.now())
    return True


def _message(template: str, context: dict, *, to: str) -> EmailMessage:
    subject = render_to_string(f"{template}_subject.txt", context).strip()
    body = render_to_string(f"{template}_body.txt", context)
    return EmailMessage(subject, body, settings.DEFAULT_FROM_EMAIL, [to])


def documents_not_emailed(*, now: dt.datetime | None = None) -> tuple[list[int], list[int]]:
    """Ids of the recent receipts and credit notes whose email has not gone out (a send failed, an enqueue was
    lost)."""
    now = now or timezone.now()
    window = {"issued_at__gt": now - dt.timedelta(days=_SWEEP_DAYS), "issued_at__lt": now - _SWEEP_GRACE}
    receipts = Receipt.objects.filter(emailed_at__isnull=True, **window).values_list("pk", flat=True)
    notes = CreditNote.objects.filter(emailed_at__isnull=True, **window).values_list("pk", flat=True)
    return list(receipts), list(notes)
