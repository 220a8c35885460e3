"""Authorisations about to lapse: Stripe releases an uncaptured authorisation after 7 days, and then the lines
that did register can no longer be charged. A payment still only authorised PAYMENT_AUTHORISATION_ALERT_DAYS
after it began (a line's registration still unknown, a capture that kept failing) is mailed to staff once, and
counted in the admin's banner (domains.alerts) for as long as it lasts."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.core.mail import mail_admins
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone

from billing.models import Payment
from storefront.background import claimed

# Stripe's own limit for card authorisations (online payments), stated in the alert.
STRIPE_AUTHORISATION_DAYS = 7


def authorisations_expiring(*, now: dt.datetime | None = None) -> QuerySet[Payment]:
    """Payments authorised and neither captured nor released, begun more than the alert's days ago.

    The payment's start stands in for the authorisation's: it can only be earlier, so the alert is never late.
    """
    now = now or timezone.now()
    days = dt.timedelta(days=settings.PAYMENT_AUTHORISATION_ALERT_DAYS)
    return Payment.objects.filter(status=Payment.Status.AUTHORISED, created_at__lt=now - days)


def authorisation_expiry_alerts_send(*, now: dt.datetime | None = None) -> int:
    """Mail ADMINS about the expiring authorisations not alerted yet, then mark them. Payments alerted.

    Nothing is marked when nobody is configured to receive it or the mail server refuses (it raises): the next
    run tries again.
    """
    if not settings.ADMINS:
        return 0
    now = now or timezone.now()
    rows = authorisations_expiring(now=now).filter(expiry_alerted_at__isnull=True).select_related("customer__user")
    with claimed(rows.order_by("created_at")) as payments:
        if not payments:
            return 0
        lines = [
            f"- Payment {p.pk} of {p.customer.email}: {p.amount_authorised} {p.currency} authorised, begun "
            f"{p.created_at:%Y-%m-%d %H:%M} UTC. {p.attention_reason or 'Not captured yet.'}\n"
            f"  {settings.SITE_URL}{reverse('admin:billing_payment_change', args=[p.pk])}"
            for p in payments
        ]
        mail_admins(
            f"{len(payments)} payment authorisation(s) expire soon",
            f"Stripe releases a card authorisation {STRIPE_AUTHORISATION_DAYS} days after it was made; these are "
            "still not captured. Settle the lines they wait for (a registration whose outcome is unknown: check it "
            "with the provider) so their part is captured in time:\n\n" + "\n".join(lines) + "\n",
            fail_silently=False,
        )
        Payment.objects.filter(pk__in=[p.pk for p in payments], expiry_alerted_at__isnull=True).update(
            expiry_alerted_at=now
        )
    return len(payments)
