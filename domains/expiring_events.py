"""`domain.expiring` for the reseller's other systems (reseller_webhooks): each domain 30 and 7 days before it
expires, once each (the event's key holds the expiry and the offset, so a renewal starts the count again).

A domain enters each offset's window up to two days late, so a day the job missed still sends it; a domain already
inside 7 days gets only the 7-day event, not a late 30-day one as well."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from domains.models import Order
from reseller_webhooks.events import DOMAIN_EXPIRING, webhook_domain_event_emit

OFFSETS_DAYS = (30, 7)
_LATE = dt.timedelta(days=2)


def domains_expiring_emit(*, now: dt.datetime | None = None) -> int:
    """Emit the events due today; how many were new."""
    now = now or timezone.now()
    emitted = 0
    for position, days in enumerate(OFFSETS_DAYS):
        due = now + dt.timedelta(days=days)
        later = OFFSETS_DAYS[position + 1] if position + 1 < len(OFFSETS_DAYS) else 0
        soonest = max(due - _LATE, now + dt.timedelta(days=later))
        orders = Order.objects.filter(
            status=Order.Status.ACTIVE, refunded_at__isnull=True, expires_at__gt=soonest, expires_at__lte=due
        ).order_by("expires_at")
        for order in orders:
            if order.expires_at is None:  # filtered out above; said again for the type checker
                continue
            event = webhook_domain_event_emit(
                DOMAIN_EXPIRING,
                key=f"{order.pk}:{order.expires_at:%Y-%m-%d}:{days}",
                order=order,
                facts={"days": days},
            )
            emitted += event is not None
    return emitted
