"""Renewal emails: the customer's confirmation of a renewal. Sent by the worker (domains.orders.tasks), never by a
request; `emailed_at` is set only once the mail server accepted it."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.language import customer_language
from domains.models import Renewal
from storefront.background import claimed
from storefront.brand import brand_context, from_email


def renewal_email_send(*, renewal_id: int) -> bool:
    """Email the customer that their domain was renewed, once. True if sent now.

    Raises whatever the mail backend raises; the renewal then stays unreported for the next attempt.
    """
    rows = Renewal.objects.filter(pk=renewal_id, status=Renewal.RENEWED, emailed_at__isnull=True)
    with claimed(rows.select_related("customer__user")) as found:
        if not found:
            return False
        renewal = found[0]
        context = {
            **brand_context(),
            "customer": renewal.customer,
            "renewal": renewal,
            "order_url": settings.SITE_URL + reverse("order_detail", args=[renewal.provider_order_id]),
        }
        with customer_language(renewal.customer):
            subject = render_to_string("domains/email/renewed_subject.txt", context).strip()
            text = render_to_string("domains/email/renewed_body.txt", context)
        EmailMultiAlternatives(subject, text, from_email(), [renewal.customer.email]).send()
        Renewal.objects.filter(pk=renewal.pk, emailed_at__isnull=True).update(emailed_at=timezone.now())
    return True
