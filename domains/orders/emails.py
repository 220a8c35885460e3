"""Emails about a customer's domains, queued in the outbox (storefront/background/outbox.py) in the transaction of the
change they report: the confirmation of a renewal (in the thread of its payment, before its receipt) and the failure of
an auto-renewal (to the customer and to staff)."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from accounts.language import customer_language
from billing.documents.emails import checkout_thread
from domains.models import Order, Renewal
from domains.presentation import failure_reason
from storefront.background.outbox import email_queue, email_queue_admins
from storefront.site.brand import brand_context, from_email


def renewal_email_queue(*, renewal: Renewal) -> bool:
    """The customer's confirmation of a renewal that went through (once per renewal)."""
    context = {
        **brand_context(),
        "customer": renewal.customer,
        "renewal": renewal,
        "order_url": settings.SITE_URL + reverse("order_detail", args=[renewal.provider_order_id]),
    }
    with customer_language(renewal.customer):
        subject = render_to_string("domains/email/renewed_subject.txt", context).strip()
        text = render_to_string("domains/email/renewed_body.txt", context)
    message = EmailMultiAlternatives(subject, text, from_email(), [renewal.customer.email])
    return email_queue(message, key=f"renewal:{renewal.pk}", thread=checkout_thread(renewal.token))


def auto_renew_failure_queue(*, order: Order) -> None:
    """Tell the customer (in their language) and staff that the auto-renewal of `order` failed and was switched
    off."""
    failed_at = order.auto_renew_failed_at.isoformat() if order.auto_renew_failed_at else ""
    with customer_language(order.customer):
        context = {
            "order": order,
            "customer": order.customer,
            "reason": failure_reason(order),
            "renew_url": settings.SITE_URL + reverse("order_detail", kwargs={"order_id": order.order_id}),
            "store_name": settings.STORE_NAME,
        }
        subject = render_to_string("domains/email/auto_renew_failed_subject.txt", context).strip()
        text = render_to_string("domains/email/auto_renew_failed_body.txt", context)
    message = EmailMultiAlternatives(subject, text, settings.DEFAULT_FROM_EMAIL, [order.customer.email])
    email_queue(message, key=f"auto-renew-failed:{order.pk}:{failed_at}")
    last = Renewal.objects.filter(order=order).order_by("-created_at").first()
    email_queue_admins(
        f"Auto-renew failed: {order.domain_name}",
        f"The auto-renewal of {order.domain_name} (order {order.order_id}, customer {order.customer.email}) "
        f"failed: {order.auto_renew_failure}. Auto-renew is off for it; the customer was emailed and gets reminders."
        f"\nLast renewal record: {last.get_status_display() if last else 'none'}"
        f" {('(' + last.failure_kind + ')') if last and last.failure_kind else ''}\n",
        key=f"auto-renew-failed-staff:{order.pk}:{failed_at}",
    )
