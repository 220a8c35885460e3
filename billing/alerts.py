"""Authorisations about to lapse: Stripe releases an uncaptured authorisation after 7 days, and then the lines
that did register can no longer be charged. A payment still only authorised PAYMENT_AUTHORISATION_ALERT_DAYS
after it began (a line's registration still unknown, a capture that kept failing) is mailed to staff once, and
counted in the admin's banner (domains.alerts) for as long as it lasts."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone

from billing.models import Payment
from storefront.outbox import email_queue_admins

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
    """Queue one email to ADMINS about the expiring authorisations not alerted yet, and mark them, in one
    transaction. Payments alerted (none when nobody is configured to receive it: the next run tries again)."""
    if not settings.ADMINS:
        return 0
    now = now or timezone.now()
    with transaction.atomic():
        rows = authorisations_expiring(now=now).filter(expiry_alerted_at__isnull=True).select_related("customer__user")
        payments = list(rows.order_by("created_at").select_for_update(of=("self",)))
        if not payments:
            return 0
        lines = [
            f"- Payment {p.pk} of {p.customer.email}: {p.amount_authorised} {p.currency} authorised, begun "
            f"{p.created_at:%Y-%m-%d %H:%M} UTC. {p.attention_reason or 'Not captured yet.'}\n"
            f"  {settings.SITE_URL}{reverse('admin:billing_payment_change', args=[p.pk])}"
            for p in payments
        ]
        email_queue_admins(
            f"{len(payments)} payment authorisation(s) expire soon",
            f"Stripe releases a card authorisation {STRIPE_AUTHORISATION_DAYS} days after it was made; these are "
            "still not captured. Settle the lines they wait for (a registration whose outcome is unknown: check it "
            "with the provider) so their part is captured in time:\n\n" + "\n".join(lines) + "\n",
            key=f"authorisation-expiry:{now:%Y%m%d%H%M%S}:{payments[0].pk}",
        )
        Payment.objects.filter(pk__in=[p.pk for p in payments], expiry_alerted_at__isnull=True).update(
            expiry_alerted_at=now
        )
    return len(payments)
