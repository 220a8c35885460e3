"""The checkout confirmation email: one per checkout, sent off the request thread.

Several requests can place one checkout's lines (double clicks, concurrent POSTs). The one that sees every
line settled claims the email by setting `emailed_at` on rows that have none; only a request whose claim
updated rows sends. The message is built in the request (it needs the database) and only the sending, which
may talk to a slow mail server, happens in a background thread after the commit.
"""

from __future__ import annotations

import logging
import threading
import uuid

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.models import Customer
from domains.models import Registration
from domains.services import outcome

logger = logging.getLogger(__name__)


def queue_checkout_confirmation(*, customer: Customer, checkout_id: uuid.UUID, order_url: str = "") -> bool:
    """Send the confirmation of this checkout unless it is still in progress or already sent. True if queued.

    `order_url` is the absolute address of the checkout's confirmation page (the request knows the host).
    """
    lines = list(Registration.objects.filter(customer=customer, checkout_id=checkout_id).order_by("domain_name"))
    if not lines or any(line.status == Registration.PENDING for line in lines):
        return False
    claimed = Registration.objects.filter(customer=customer, checkout_id=checkout_id, emailed_at__isnull=True).update(
        emailed_at=timezone.now()
    )
    if not claimed:
        return False
    message = build_confirmation(customer=customer, checkout_id=checkout_id, lines=lines, order_url=order_url)
    transaction.on_commit(lambda: _send_in_background(message))
    return True


def build_confirmation(
    *, customer: Customer, checkout_id: uuid.UUID, lines: list[Registration], order_url: str = ""
) -> EmailMultiAlternatives:
    context = {
        "customer": customer,
        "order_url": order_url,
        "checkout_id": checkout_id,
        "lines": [{"registration": line, "outcome": outcome(line)} for line in lines],
        "registered": [line for line in lines if line.status == Registration.REGISTERED],
    }
    subject = render_to_string("domains/email/checkout_subject.txt", context).strip()
    text = render_to_string("domains/email/checkout_body.txt", context)
    html = render_to_string("domains/email/checkout_body.html", context)
    message = EmailMultiAlternatives(subject, text, settings.DEFAULT_FROM_EMAIL, [customer.email])
    message.attach_alternative(html, "text/html")
    return message


def _send_in_background(message: EmailMultiAlternatives) -> threading.Thread:
    thread = threading.Thread(target=_send, args=(message,), name="checkout-email", daemon=True)
    thread.start()
    return thread


def _send(message: EmailMultiAlternatives) -> None:
    try:
        message.send()
    except Exception:  # a thread has nobody to raise to; the order itself is already placed
        logger.exception("checkout confirmation email could not be sent")
