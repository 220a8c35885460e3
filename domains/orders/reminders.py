"""Renewal reminders: one email per customer per day, listing every domain of theirs that is due a reminder (at
each of RENEWAL_REMINDER_DAYS before expiry; negative: after it).

Each reminder is recorded once per order, expiry and offset (a `RenewalReminder` row, under a unique constraint), and
the customer's email of the day (queued in the outbox, which sends it with retries) is keyed by customer and day: the
rows and the email are inserted in one transaction, and when the day's email was queued already (an earlier run that
day, or a second worker) the transaction is rolled back, so those reminders wait for tomorrow's email instead of
being recorded unsent. A renewal moves the expiry, which ends the old reminders.
Only the most urgent reminder that is due goes out (a worker that was down for a week sends the 7-day one,
not the 30-day one as well).

Domains on auto-renew that will be renewed (their customer has a saved card) get none: the storefront renews them
itself (domains/auto_renew.py). A failed auto-renewal switches auto-renew off, and the reminders resume. Those domains'
renewal price rises are told in the same email of the day instead, once per rise (domains/renewal_prices.py).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import defaultdict

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.language import customer_language
from accounts.models import Customer
from billing.payments.cards import saved_card_for
from domains.models import Order, RenewalPriceNotice, RenewalReminder
from domains.orders.auto_renew import auto_renew_when
from domains.orders.services import renew_pricing
from domains.renewal_prices import (
    NOTICE_DAYS,
    PriceRise,
    auto_renew_cap,
    notice_horizon,
    price_notice_due,
    price_notice_record,
)
from storefront.background.outbox import email_queue
from storefront.site.brand import brand_context, from_email

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
    return None if already.exists() else offset


def will_auto_renew(order: Order) -> bool:
    """On auto-renew with a card to charge: the storefront renews it, no reminder is needed."""
    return order.auto_renew and not settings.PAYMENTS_DISABLED and saved_card_for(order.customer) is not None


def reminders_record(*, now: dt.datetime | None = None) -> int:
    """Record the reminders and price notices due now, each customer's in one email of the day (queued). Returns how
    many are new."""
    now = now or timezone.now()
    window = [min(settings.RENEWAL_REMINDER_DAYS) - _LATE_SLACK_DAYS, max(settings.RENEWAL_REMINDER_DAYS)]
    orders = Order.objects.filter(
        expires_at__gte=now + window[0] * _DAY, expires_at__lte=now + window[1] * _DAY, status__in=_RENEWABLE
    ).select_related("customer__user")
    due: dict[int, list[tuple[Order, dt.datetime, int]]] = defaultdict(list)
    for order in orders.order_by("expires_at", "domain_name"):
        offset = reminder_due(order=order, now=now)
        if offset is not None and order.expires_at is not None:  # (no expiry is never due: for the type checker)
            due[order.customer_id].append((order, order.expires_at, offset))
    rises: dict[int, list[tuple[Order, PriceRise]]] = defaultdict(list)
    for order in _auto_renewing(now=now):
        rise = price_notice_due(order)
        if rise is not None:
            rises[order.customer_id].append((order, rise))
    return sum(
        _customer_reminders_record(due.get(customer_pk, []), rises.get(customer_pk, []), now=now)
        for customer_pk in sorted(due.keys() | rises.keys())
    )


def _auto_renewing(*, now: dt.datetime) -> list[Order]:
    """The domains auto-renew will charge within the notice horizon (their price rises are told ahead)."""
    orders = Order.objects.filter(
        auto_renew=True, refunded_at__isnull=True, status__in=_RENEWABLE, expires_at__lte=now + notice_horizon()
    ).select_related("customer__user")
    return [
        order
        for order in orders.order_by("expires_at", "domain_name")
        if auto_renew_when(expires_at=order.expires_at, now=now) is not None and will_auto_renew(order)
    ]


def _customer_reminders_record(
    due: list[tuple[Order, dt.datetime, int]], rises: list[tuple[Order, PriceRise]], *, now: dt.datetime
) -> int:
    """One customer's reminders and price notices due now, recorded with their email of the day; 0 when that email
    went already."""
    customer = (due or rises)[0][0].customer
    key = f"renewal-reminders:{customer.pk}:{timezone.localdate(now).isoformat()}"
    with transaction.atomic():
        made = []
        for order, expires_at, offset in due:
            try:
                with transaction.atomic():
                    made.append(RenewalReminder.objects.create(order=order, expires_at=expires_at, days_before=offset))
            except IntegrityError:
                pass  # recorded (and emailed) by an earlier run
        notices = []
        for order, rise in rises:
            try:
                with transaction.atomic():
                    notices.append(price_notice_record(order=order, rise=rise, now=now))
            except IntegrityError:
                pass  # told by an earlier run
        if not made and not notices:
            return 0
        message = _message(customer=customer, reminders=made, notices=notices, now=now)
        if not email_queue(message, key=key):
            transaction.set_rollback(True)  # today's email went already: these wait for tomorrow's
            return 0
    return len(made) + len(notices)


def _message(
    *, customer: Customer, reminders: list[RenewalReminder], notices: list[RenewalPriceNotice], now: dt.datetime
) -> EmailMultiAlternatives:
    items = []
    for reminder in reminders:
        order = reminder.order
        with customer_language(customer):  # priced in the customer's currency, as their pages show it
            quote = renew_pricing(domain_name=order.domain_name)
        days_left = (reminder.expires_at - now) / _DAY  # the order's, as the caller checked just before
        items.append(
            {
                "order": order,
                "expired": days_left < 0,
                "days": abs(round(days_left)),
                "renew_price": quote.retail if quote is not None else None,
                "renew_url": settings.SITE_URL + reverse("order_detail", kwargs={"order_id": order.order_id}),
            }
        )
    context = {
        **brand_context(),
        "customer": customer,
        "items": items,
        "notices": [_notice_item(notice, now=now) for notice in notices],
        "orders_url": settings.SITE_URL + reverse("orders"),
    }
    with customer_language(customer):
        subject = render_to_string("domains/email/renewal_subject.txt", context).strip()
        text = render_to_string("domains/email/renewal_body.txt", context)
    return EmailMultiAlternatives(subject, text, from_email(), [customer.email])


def _notice_item(notice: RenewalPriceNotice, *, now: dt.datetime) -> dict[str, object]:
    """A price rise as the email tells it: when auto-renew charges, and at which price this time (the price the
    customer knew, when the charge comes sooner than NOTICE_DAYS after this notice)."""
    when = auto_renew_when(expires_at=notice.order.expires_at, now=now)
    short = when is not None and when.at < now + dt.timedelta(days=NOTICE_DAYS)
    this_time = auto_renew_cap(order=notice.order, years=1, now=when.at) if short and when is not None else None
    return {
        "order": notice.order,
        "old": notice.old,
        "new": notice.new,
        "renews_at": when.at if when is not None else None,
        "this_time": this_time if this_time is not None and this_time < notice.new else None,
        "days": NOTICE_DAYS,
        "url": settings.SITE_URL + reverse("order_detail", kwargs={"order_id": notice.order.order_id}),
    }
