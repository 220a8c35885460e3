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
from billing.models import Document
from storefront.background import claimed

# A document older than this gets no email from the sweep (it would be news to nobody); one younger than the
# grace period still has its own task queued from the moment it was issued.
_SWEEP_DAYS = 30
_SWEEP_GRACE = dt.timedelta(minutes=2)


def document_email_send(*, document_id: int) -> bool:
    """Email the customer this receipt or credit note, once. True if sent now. Raises whatever the mail backend
    raises."""
    rows = Document.objects.filter(pk=document_id, emailed_at__isnull=True).select_related(
        "payment__customer__user", "receipt"
    )
    with claimed(rows) as found:
        if not found:
            return False
        document = found[0]
        customer = document.payment.customer
        with customer_language(customer):
            if document.is_credit_note:
                message = _message("billing/email/credit_note", credit_note_context(document), to=customer.email)
            else:
                message = _message("billing/email/receipt", receipt_context(document), to=customer.email)
        message.send()
        Document.objects.filter(pk=document.pk, emailed_at__isnull=True).update(emailed_at=timezone.now())
    return True


def _message(template: str, context: dict, *, to: str) -> EmailMessage:
    subject = render_to_string(f"{template}_subject.txt", context).strip()
    body = render_to_string(f"{template}_body.txt", context)
    return EmailMessage(subject, body, settings.DEFAULT_FROM_EMAIL, [to])


def documents_not_emailed(*, now: dt.datetime | None = None) -> list[int]:
    """Ids of the recent receipts and credit notes whose email has not gone out (a send failed, an enqueue was
    lost), oldest first."""
    now = now or timezone.now()
    window = {"issued_at__gt": now - dt.timedelta(days=_SWEEP_DAYS), "issued_at__lt": now - _SWEEP_GRACE}
    rows = Document.objects.filter(emailed_at__isnull=True, **window).order_by("issued_at", "pk")
    return list(rows.values_list("pk", flat=True))
