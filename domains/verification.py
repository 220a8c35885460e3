"""The registrant's email check, in front of the customer.

After each registration the provider emails a verification link to the registrant's address (the customer's own:
every domain is registered under the customer's details). The registrant has 14 days to confirm it; after that
the registry suspends the domain until they do (the provider's integration guide, which leaves it to the partner to
make sure the customer understands). The interface exposes no verification status and no resend call, so the store
says it: on the confirmation page and email, on the domain's page during the 14 days, in reminders on days 7 and 12,
and on a suspended domain's page. Only the customer can tell us they confirmed (the domain page's button), which
ends the notice and the reminders.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db.models import QuerySet
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.language import customer_language
from accounts.models import Customer
from domains.models import Order
from storefront.background.outbox import email_queue
from storefront.site.brand import brand_context, from_email

logger = logging.getLogger(__name__)

# The provider's deadline, and the days after registration on which a reminder goes out.
VERIFICATION_DAYS = 14
REMINDER_DAYS = (7, 12)
_DAY = dt.timedelta(days=1)


@dataclass(frozen=True)
class Verification:
    """What the customer is told: who receives the provider's email, and the date by which to confirm."""

    email: str
    deadline: dt.datetime
    domains: tuple[str, ...] = ()

    @property
    def days_left(self) -> int:
        return max(0, (self.deadline - timezone.now()).days)


def verification_deadline(started_at: dt.datetime) -> dt.datetime:
    return started_at + VERIFICATION_DAYS * _DAY


def verification_pending(*, order: Order, now: dt.datetime | None = None) -> Verification | None:
    """The order's check while it runs (started by a registration here, not confirmed, within the 14 days)."""
    now = now or timezone.now()
    started = order.verification_started_at
    if started is None or order.verification_confirmed_at is not None or order.status != Order.Status.ACTIVE:
        return None
    deadline = verification_deadline(started)
    if now >= deadline:
        return None
    return Verification(email=order.customer.email, deadline=deadline, domains=(order.domain_name,))


def verification_for_registered(*, customer: Customer, domains: Iterable[str]) -> Verification | None:
    """The notice for what a checkout just registered (its confirmation page and email): one deadline, the
    earliest of their checks."""
    names = sorted(set(domains))
    if not names:
        return None
    starts = [
        started
        for started in Order.objects.filter(customer=customer, domain_name__in=names).values_list(
            "verification_started_at", flat=True
        )
        if started is not None
    ]
    started = min(starts, default=timezone.now())
    return Verification(email=customer.email, deadline=verification_deadline(started), domains=tuple(names))


def verification_confirm(*, order: Order) -> None:
    """The customer says the registrant clicked the provider's link: no more notice or reminders for this check."""
    Order.objects.filter(pk=order.pk, verification_confirmed_at__isnull=True).update(
        verification_confirmed_at=timezone.now()
    )


def verification_reminders_send(*, now: dt.datetime | None = None) -> int:
    """Queue the reminders due now (day 7 and day 12 of a check not confirmed), each once: its outbox key names the
    order, the check and the day, so a second run (or a second worker) queues nothing. A worker that was down past
    day 12 sends only the day-12 one. Returns how many were queued."""
    now = now or timezone.now()
    queued = 0
    for order in _checks_running(now):
        started = order.verification_started_at
        assert started is not None  # (filtered: for the type checker)
        day = max((d for d in REMINDER_DAYS if started + d * _DAY <= now), default=None)
        if day is None:
            continue
        key = f"registrant-verification:{order.order_id}:{started.isoformat()}:{day}"
        if email_queue(_reminder(order=order, day=day), key=key):
            queued += 1
    if queued:
        logger.info("registrant verification reminders queued", extra={"count": queued})
    return queued


def _checks_running(now: dt.datetime) -> QuerySet[Order]:
    return Order.objects.filter(
        status=Order.Status.ACTIVE,
        verification_confirmed_at__isnull=True,
        verification_started_at__lte=now - min(REMINDER_DAYS) * _DAY,
        verification_started_at__gt=now - VERIFICATION_DAYS * _DAY,
    ).select_related("customer")


def _reminder(*, order: Order, day: int) -> EmailMultiAlternatives:
    customer = order.customer
    started = order.verification_started_at
    assert started is not None
    context = {
        **brand_context(),
        "customer": customer,
        "order": order,
        "day": day,
        "verification": Verification(
            email=customer.email, deadline=verification_deadline(started), domains=(order.domain_name,)
        ),
        "order_url": settings.SITE_URL + reverse("order_detail", kwargs={"order_id": order.order_id}),
    }
    with customer_language(customer):
        subject = render_to_string("domains/email/verification_reminder_subject.txt", context).strip()
        text = render_to_string("domains/email/verification_reminder_body.txt", context)
    return EmailMultiAlternatives(subject, text, from_email(), [customer.email])
