"""Renewal price notices: a domain on auto-renew whose renewal price (a year, retail, in its customer's currency) is
now higher than what the customer last paid for a year of it is a rise. The customer is told of each rise once, in
the renewal email of the day (domains/orders/reminders.py), with the old and the new price and how to turn auto-renew
off: a `RenewalPriceNotice` row, recorded with that email. Auto-renew (domains/orders/auto_renew.py) charges no more
than the price the customer knows: what they last paid, or a notified price once its notice is NOTICE_DAYS old. A
rise told later than that is absorbed by the store for that one renewal (it is charged at the price they knew).

"Last paid" is the last renewal of the domain paid here (its price over its years), else the one-year renewal price
quoted when they registered it here. A domain with neither (bought elsewhere, or before prices were recorded), or
last paid in another currency than the customer's, has no known price: no notice, and no cap.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db.models import Max, QuerySet

from domains.models import Order, Registration, RegistrationStatus, Renewal, RenewalPriceNotice
from domains.orders.services import renew_pricing
from pricing.currencies import currency_override
from pricing.money import Money

# At least this many days between a rise's email and the first auto-renewal charged at the new price.
NOTICE_DAYS = 30
# Domains on auto-renew are looked at this long before auto-renew charges them, so that a rise found at the start of
# that window (or a few days later: a worker down, the day's email gone already) is told NOTICE_DAYS ahead.
NOTICE_LEAD_DAYS = NOTICE_DAYS + 14


@dataclass(frozen=True)
class PriceRise:
    old: Money  # a year, as last paid
    new: Money  # a year, today's price


def last_paid(order: Order) -> Money | None:
    """What the customer last paid for a year of this domain, in the currency they paid in; None when unknown."""
    renewal = (
        Renewal.objects.filter(order=order, status=Renewal.RENEWED, price__isnull=False, duration__gt=0)
        .exclude(currency="")
        .order_by("-created_at", "-pk")
        .first()
    )
    if renewal is not None and renewal.price is not None:
        return Money(renewal.price / renewal.duration, renewal.currency).rounded()
    registration = (
        Registration.objects.filter(order=order, status=RegistrationStatus.REGISTERED, renew_price__isnull=False)
        .exclude(currency="")
        .order_by("-created_at", "-pk")
        .first()
    )
    if registration is not None and registration.renew_price is not None:
        return Money(registration.renew_price, registration.currency)
    return None


def price_rise(order: Order) -> PriceRise | None:
    """The rise of this domain's renewal price over what its customer last paid; None when it did not rise (or either
    price is unknown)."""
    paid = last_paid(order)
    if paid is None:
        return None
    with currency_override(order.customer.currency):  # priced as their pages and auto-renew price it
        quote = renew_pricing(domain_name=order.domain_name)
    if quote is None or quote.retail.currency != paid.currency or quote.retail <= paid:
        return None
    return PriceRise(old=paid, new=quote.retail)


def _notices(order: Order, rise: PriceRise) -> QuerySet[RenewalPriceNotice]:
    return RenewalPriceNotice.objects.filter(order=order, currency=rise.old.currency, old_price=rise.old.amount)


def price_notice_due(order: Order) -> PriceRise | None:
    """The rise to tell this domain's customer of now: one that no notice told (a notice of this price or a higher
    one since they last paid)."""
    rise = price_rise(order)
    if rise is None or _notices(order, rise).filter(new_price__gte=rise.new.amount).exists():
        return None
    return rise


def price_notice_record(*, order: Order, rise: PriceRise, now: dt.datetime) -> RenewalPriceNotice:
    """The notice of this rise (the caller sends it in the same transaction). IntegrityError when it is recorded."""
    return RenewalPriceNotice.objects.create(
        order=order, currency=rise.new.currency, old_price=rise.old.amount, new_price=rise.new.amount, notified_at=now
    )


def price_notice_shown(order: Order) -> RenewalPriceNotice | None:
    """The latest notice of the domain's current rise, for its page; None when its price did not rise (or the
    customer has not been told yet)."""
    rise = price_rise(order)
    if rise is None:
        return None
    return _notices(order, rise).first()


def auto_renew_cap(*, order: Order, years: int, now: dt.datetime) -> Money | None:
    """The most auto-renew may charge for `years` of this domain now: a year at the price the customer last paid, or
    at the highest price a notice at least NOTICE_DAYS old told them; None when no price is known (no cap)."""
    paid = last_paid(order)
    if paid is None:
        return None
    told = (
        RenewalPriceNotice.objects.filter(
            order=order,
            currency=paid.currency,
            old_price=paid.amount,
            notified_at__lte=now - dt.timedelta(days=NOTICE_DAYS),
        )
        .aggregate(highest=Max("new_price"))
        .get("highest")
    )
    year = Money(told, paid.currency) if told is not None and told > paid.amount else paid
    return year * Decimal(years)


def notice_horizon() -> dt.timedelta:
    """How far ahead of expiry a domain on auto-renew is looked at for rises."""
    return dt.timedelta(days=settings.AUTO_RENEW_DAYS_BEFORE + NOTICE_LEAD_DAYS)
