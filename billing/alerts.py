"""What staff must look at in payments: flagged payments, and authorisations about to lapse.

Stripe sets each authorisation's deadline on its charge (`payment_method_details.card.capture_before`): 7 days for
most card payments the customer makes, less for some made without them (a Visa card charged off-session: about 4 days
18 hours). Past it the hold lapses, and lines that did register can no longer be charged (the payment becomes
registered-unpaid). A payment still only authorised within PAYMENT_CAPTURE_ALERT_HOURS of its deadline (a line's
registration still unknown, a capture that kept failing) is mailed to staff once, and counted in the admin's banner
(domains.alerts) for as long as it lasts. A payment whose deadline could not be read is counted from its start with
the shortest window Stripe documents, so the alert is never late.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils import timezone

from accounts.staff.activity import activity_record
from billing.models import Payment
from storefront.background.outbox import email_queue_admins

logger = logging.getLogger(__name__)

# The shortest capture window Stripe documents for a card authorisation (merchant-initiated, Visa: 4 days 18 hours),
# assumed only for a payment whose charge did not say.
SHORTEST_AUTHORISATION = dt.timedelta(days=4, hours=18)


def payment_flag(payment: Payment, reason: str) -> None:
    """Put the payment in front of staff (the admin's "needs attention" filter and banner), saying why."""
    Payment.objects.filter(pk=payment.pk).update(needs_attention=True, attention_reason=reason)
    payment.needs_attention, payment.attention_reason = True, reason
    logger.warning("payment %s needs attention: %s", payment.pk, reason)


def payment_attention_resolve(*, payment: Payment) -> bool:
    """Staff looked into a flagged payment and settled what it needed: the flag goes, and that is logged. False when it
    was not flagged."""
    with transaction.atomic():
        cleared = Payment.objects.filter(pk=payment.pk, needs_attention=True).update(
            needs_attention=False, attention_reason=""
        )
        if cleared:
            what = f"payment {payment.pk} looked into ({payment.attention_reason or 'flagged'})"
            activity_record(action="alert_resolved", payment=payment, detail={"alert": "payments", "what": what})
    return bool(cleared)


def capture_deadline(payment: Payment) -> dt.datetime:
    """When the payment's hold lapses: its charge's deadline, or the shortest window from its start."""
    return payment.capture_before or payment.created_at + SHORTEST_AUTHORISATION


def authorisations_expiring(*, now: dt.datetime | None = None) -> QuerySet[Payment]:
    """Payments authorised and neither captured nor released within the alert's margin of their deadline."""
    now = now or timezone.now()
    soon = now + dt.timedelta(hours=settings.PAYMENT_CAPTURE_ALERT_HOURS)
    return Payment.objects.filter(status=Payment.Status.AUTHORISED).filter(
        Q(capture_before__lt=soon) | Q(capture_before__isnull=True, created_at__lt=soon - SHORTEST_AUTHORISATION)
    )


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
            f"{p.created_at:%Y-%m-%d %H:%M} UTC, to be captured before {capture_deadline(p):%Y-%m-%d %H:%M} UTC"
            f"{'' if p.capture_before else ' (assumed: its charge did not say)'}. "
            f"{p.attention_reason or 'Not captured yet.'}\n"
            f"  {settings.SITE_URL}{reverse('admin:billing_payment_change', args=[p.pk])}"
            for p in payments
        ]
        email_queue_admins(
            f"{len(payments)} payment authorisation(s) expire soon",
            "Stripe releases a card authorisation at the deadline its charge states; these are still not captured. "
            "Settle the lines they wait for (a registration whose outcome is unknown: check it with the provider) "
            "so their part is captured in time; past it, registered lines become registered-unpaid and are "
            "collected from the customer:\n\n" + "\n".join(lines) + "\n",
            key=f"authorisation-expiry:{now:%Y%m%d%H%M%S}:{payments[0].pk}",
        )
        Payment.objects.filter(pk__in=[p.pk for p in payments], expiry_alerted_at__isnull=True).update(
            expiry_alerted_at=now
        )
    return len(payments)
