"""Renewal reminders: an email at each of RENEWAL_REMINDER_DAYS before expiry (negative: after it).

Each is sent once per order, expiry and offset: the row is inserted before sending and the unique constraint
turns a second run (or a second worker) into a no-op; `sent_at` is set only once the mail server accepted it,
so a failed send is tried again by the next run. A renewal moves the expiry, which ends the old reminders.
Only the most urgent reminder that is due goes out (a worker that was down for a week sends the 7-day one,
not the 30-day one as well).

Domains on auto-renew that will be renewed (their customer has a saved card) get none: the storefront renews them
itself (domains/auto_renew.py). A failed auto-renewal switches auto-renew off, and the reminders resume.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.language import customer_language
from billing.cards import saved_card_for
from domains.models import Order, RenewalReminder
from domains.orders.services import renew_pricing
from storefront.background import claimed
from storefront.brand import brand_context, from_email

logger = logging.getLogger(__name__)

_DAY = dt.timedelta(days=1)
# Past expiry, a reminder is only worth sending this many days beyond its offset (the domain is then being
# deleted and can no longer be renewed).
_LATE_SLACK_DAYS = 4
_RENEWABLE = (Order.Status.ACTIVE, Order.Status.EXPIRED)


def reminder_due(*, order: Order, now: dt.datetime) -> int | None:
    """The offset (days before expiry) of the reminder this order should get now, or None."""
    if order.expires_at is None or order.status not in _RENEWABLE or will_auto_renew(order):
        return None
    days_left = (order.expires_at - now) / _DAY
    reached = [days for days in settings.RENEWAL_REMINDER_DAYS if days_left <= days]
    if not reached:
        return None
    offset = min(reached)
    if days_left < offset - _LATE_SLACK_DAYS:
        return None
    already = RenewalReminder.objects.filter(order=order, expires_at=order.expires_at, days_before__lte=offset)
    return None if already.filter(sent_at__isnull=False).exists() else offset


def will_auto_renew(order: Order) -> bool:
    """On auto-renew with a card to charge: the storefront renews it, no reminder is needed."""
    return order.auto_renew and not settings.PAYMENTS_DISABLED and saved_card_for(order.customer) is not None


def reminders_record(*, now: dt.datetime | None = None) -> int:
    """Insert the reminder rows due now (one per order, expiry and offset). Returns how many are new."""
    now = now or timezone.now()
    window = [min(settings.RENEWAL_REMINDER_DAYS) - _LATE_SLACK_DAYS, max(settings.RENEWAL_REMINDER_DAYS)]
    orders = Order.objects.filter(
        expires_at__gte=now + window[0] * _DAY, expires_at__lte=now + window[1] * _DAY, status__in=_RENEWABLE
    )
    created = 0
    for order in orders:
        offset = reminder_due(order=order, now=now)
        if offset is None or order.expires_at is None:  # (no expiry is never due: for the type checker)
            continue
        try:
            with transaction.atomic():
                RenewalReminder.objects.create(order=order, expires_at=order.expires_at, days_before=offset)
            created += 1
        except IntegrityError:
            pass  # recorded by an earlier run; sent below if it is still unsent
    return created


def reminders_send(*, now: dt.datetime | None = None) -> int:
    """Send every recorded reminder not sent yet whose expiry is still current. Returns how many went out.

    Raises the mail backend's error after the first failure (the rest wait for the next run).
    """
    now = now or timezone.now()
    pending = RenewalReminder.objects.filter(sent_at__isnull=True).select_related("order__customer__user")
    sent = 0
    for reminder in pending:
        with claimed(RenewalReminder.objects.filter(pk=reminder.pk, sent_at__isnull=True)) as rows:
            if not rows:
                continue
            order = reminder.order
            order.refresh_from_db(fields=["expires_at", "status", "auto_renew"])
            if order.expires_at != reminder.expires_at or will_auto_renew(order):
                # Renewed (or otherwise moved) since, or put on auto-renew: this reminder is not needed.
                RenewalReminder.objects.filter(pk=reminder.pk).delete()
                continue
            _message(reminder=reminder, now=now).send()
            RenewalReminder.objects.filter(pk=reminder.pk).update(sent_at=timezone.now())
            sent += 1
    return sent


def _message(*, reminder: RenewalReminder, now: dt.datetime) -> EmailMultiAlternatives:
    order = reminder.order
    customer = order.customer
    quote = renew_pricing(domain_name=order.domain_name)
    days_left = (reminder.expires_at - now) / _DAY  # the order's, as the caller checked just before
    context = {
        **brand_context(),
        "customer": customer,
        "order": order,
        "expired": days_left < 0,
        "days": abs(round(days_left)),
        "renew_price": quote.retail if quote is not None else None,
        "renew_url": settings.SITE_URL + reverse("order_detail", kwargs={"order_id": order.order_id}),
    }
    with customer_language(customer):
        subject = render_to_string("domains/email/renewal_subject.txt", context).strip()
        text = render_to_string("domains/email/renewal_body.txt", context)
    return EmailMultiAlternatives(subject, text, from_email(), [customer.email])
