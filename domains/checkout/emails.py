"""Checkout emails: the confirmation of a checkout, and a follow-up for each line that settles later.

Sent by the worker (domains.checkout.tasks), never by a request. A line is emailed about once it is settled
(registered or failed); a line whose answer was lost ("could not confirm") is not reported as an outcome:
the first email says it is still being checked, and it gets its own follow-up when it settles, as does a
line that flips to registered after it was declared not registered. `emailed_at` is set only after the mail
server accepted the message, so a failing server leaves the lines to the next attempt.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.cache import cache
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.language import customer_language
from accounts.models import Customer
from domains.checkout.registrations import MESSAGE_CONFIRMED_LATE
from domains.models import Registration
from domains.presentation import registration_outcome
from storefront.background import claimed
from storefront.brand import brand_context, from_email

SETTLED = (Registration.Status.REGISTERED, Registration.Status.FAILED)
# A checkout page polls every few seconds: one enqueue per checkout and number of lines to tell within this.
_ENQUEUE_DEDUP_SECONDS = 60


def has_news(lines: list[Registration]) -> bool:
    """Whether an email is due: every line placed (none pending) and some settled line not emailed yet."""
    if not lines or any(line.status == Registration.Status.PENDING for line in lines):
        return False
    return any(line.status in SETTLED and line.emailed_at is None for line in lines)


def queue_checkout_confirmation(*, customer: Customer, checkout_id: uuid.UUID, order_url: str = "") -> bool:
    """Hand this checkout's email to the worker once it has news. True if a send was enqueued.

    `order_url` is the absolute address of the checkout's confirmation page (the request knows the host).
    """
    from domains.checkout.tasks import send_checkout_email  # the tasks module imports this one

    lines = list(Registration.objects.filter(customer=customer, checkout_id=checkout_id))
    if not has_news(lines):
        return False
    news = sum(1 for line in lines if line.status in SETTLED and line.emailed_at is None)
    if not cache.add(f"checkout-email:{checkout_id}:{news}", 1, _ENQUEUE_DEDUP_SECONDS):
        return False
    transaction.on_commit(
        lambda: send_checkout_email.enqueue(checkout_id=str(checkout_id), order_url=order_url), robust=True
    )
    return True


def checkout_order_url(checkout_id: uuid.UUID) -> str:
    return settings.SITE_URL + reverse("checkout_done", kwargs={"checkout_id": checkout_id})


def checkout_email_send(*, checkout_id: uuid.UUID, order_url: str = "") -> int:
    """Email the customer the lines of this checkout that settled since the last email. Lines reported.

    Raises whatever the mail backend raises; the lines then stay unreported for the next attempt.
    """
    rows = Registration.objects.filter(checkout_id=checkout_id).select_related("customer__user")
    with claimed(rows.order_by("domain_name")) as lines:
        if not has_news(lines):
            return 0
        news = [line for line in lines if line.status in SETTLED and line.emailed_at is None]
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
        message.send()
        Registration.objects.filter(pk__in=[line.pk for line in news], emailed_at__isnull=True).update(
            emailed_at=timezone.now()
        )
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
        "lines": [{"registration": line, "outcome": registration_outcome(line)} for line in news],
        "registered": [line for line in news if line.status == Registration.Status.REGISTERED],
        "checking": [line for line in lines if line.status == Registration.Status.UNKNOWN],
    }
    with customer_language(customer):
        subject = render_to_string("domains/email/checkout_subject.txt", context).strip()
        text = render_to_string("domains/email/checkout_body.txt", context)
        html = render_to_string("domains/email/checkout_body.html", context)
    message = EmailMultiAlternatives(subject, text, from_email(), [customer.email])
    message.attach_alternative(html, "text/html")
    return message
