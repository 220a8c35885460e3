"""Checkout emails: the confirmation of a checkout, and a follow-up for each line that settles later.

Queued in the outbox (storefront/background/outbox.py), in the checkout's thread (before its receipt and any credit
note), and sent by the worker. A line is reported once it is settled (registered or failed); a line whose answer was
lost ("could not confirm") is not reported as an outcome: the first email says it is still being checked, and it
gets its own follow-up when it settles, as does a line that flips to registered after it was declared not
registered. `emailed_at` marks a line told (its email queued, in the same transaction).
"""

from __future__ import annotations

import hashlib
import uuid

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.language import customer_language
from accounts.models import Customer
from billing.documents.emails import checkout_thread
from domains.checkout.outcome_lines import outcome_lines_of_checkout
from domains.checkout.registrations import MESSAGE_CONFIRMED_LATE
from domains.models import Registration
from domains.verification import verification_for_registered
from storefront.background.outbox import email_queue
from storefront.site.brand import brand_context, from_email

SETTLED = (Registration.Status.REGISTERED, Registration.Status.FAILED)


def has_news(lines: list[Registration]) -> bool:
    """Whether an email is due: every line placed (none pending) and some settled line not emailed yet."""
    if not lines or any(line.status == Registration.Status.PENDING for line in lines):
        return False
    return any(line.status in SETTLED and line.emailed_at is None for line in lines)


def checkout_order_url(checkout_id: uuid.UUID) -> str:
    return settings.SITE_URL + reverse("checkout_done", kwargs={"checkout_id": checkout_id})


def checkout_email_queue(*, checkout_id: uuid.UUID, order_url: str = "") -> int:
    """Queue the customer's email about the lines of this checkout that settled since the last one (the
    confirmation, then a follow-up per line settled later), in the checkout's outbox thread, and mark them told, in
    one transaction. Lines reported; 0 while a line is still being placed or nothing is new.

    Called whenever lines may have settled (the confirmation page, the worker after placing or reconciling, the
    last paid line delivered); the email's key (its lines and when they changed) makes a second call a no-op.
    """
    with transaction.atomic():
        rows = Registration.objects.filter(checkout_id=checkout_id).select_related("customer__user", "order")
        lines = list(rows.order_by("domain_name").select_for_update(of=("self",)))
        if not has_news(lines):
            return 0
        news = [line for line in lines if line.status in SETTLED and line.emailed_at is None]
        # A line refunded before it was reported: its credit note said what there is to say, never "registered" after.
        refunded = [line for line in news if line.order is not None and line.order.refunded_at is not None]
        if refunded:
            Registration.objects.filter(pk__in=[line.pk for line in refunded]).update(emailed_at=timezone.now())
            news = [line for line in news if line not in refunded]
            if not news:
                return 0
        # A line declared not registered that showed up later was reported already: this is a correction.
        follow_up = any(line.emailed_at is not None for line in lines) or any(
            line.provider_message == MESSAGE_CONFIRMED_LATE for line in news
        )
        message = build_confirmation(
            customer=lines[0].customer,
            checkout_id=checkout_id,
            lines=lines,
            news=news,
            follow_up=follow_up,
            order_url=order_url or checkout_order_url(checkout_id),
        )
        told = ",".join(f"{line.pk}@{line.updated_at.timestamp()}" for line in news)
        key = f"checkout:{checkout_id}:{hashlib.sha256(told.encode()).hexdigest()[:16]}"
        if not email_queue(message, key=key, thread=checkout_thread(checkout_id)):
            return 0
        Registration.objects.filter(pk__in=[line.pk for line in news]).update(emailed_at=timezone.now())
    return len(news)


def build_confirmation(
    *,
    customer: Customer,
    checkout_id: uuid.UUID,
    lines: list[Registration],
    news: list[Registration] | None = None,
    follow_up: bool = False,
    order_url: str = "",
) -> EmailMultiAlternatives:
    news = lines if news is None else news
    context = {
        **brand_context(),
        "customer": customer,
        "order_url": order_url,
        "checkout_id": checkout_id,
        "follow_up": follow_up,
        # Each line at what it is charged, with the privacy paid with it (the same figures as the receipt's).
        "lines": outcome_lines_of_checkout(news, checkout_id=checkout_id),
        "registered": [line for line in news if line.status == Registration.Status.REGISTERED],
        "checking": [line for line in lines if line.status == Registration.Status.UNKNOWN],
    }
    registered = context["registered"]
    context["verification"] = verification_for_registered(
        customer=customer, domains=[line.domain_name for line in registered]
    )
    with customer_language(customer):
        subject = render_to_string("domains/email/checkout_subject.txt", context).strip()
        text = render_to_string("domains/email/checkout_body.txt", context)
        html = render_to_string("domains/email/checkout_body.html", context)
    message = EmailMultiAlternatives(subject, text, from_email(), [customer.email])
    message.attach_alternative(html, "text/html")
    return message
