"""Counting what customers reach for, their "email me when it arrives", the month's table for the provider, and
the emails once a feature arrives."""

from __future__ import annotations

import csv
import datetime as dt
import io
import logging
from dataclasses import dataclass

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.db.models import Count, F, Sum
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.language import customer_language
from accounts.models import Customer
from demand.features import FEATURES, Wanted
from demand.models import DemandCount, DemandSubscription, FeatureState
from storefront.background.outbox import email_queue
from storefront.site.brand import brand_context, from_email

logger = logging.getLogger(__name__)


def tld_of(domain_name: str) -> str:
    """The TLD as the provider prices it (what follows the first label: `co.uk` of `shop.co.uk`)."""
    return domain_name.strip().lower().partition(".")[2][:63]


def demand_count(*, customer: Customer, feature: Wanted, tld: str = "", now: dt.datetime | None = None) -> None:
    """This customer asked for this feature (on this TLD) today: counted once a day, in this month's row."""
    today = (now or timezone.now()).astimezone(dt.UTC).date()
    month = today.replace(day=1)
    # Insert first, add on conflict: a read-then-write can deadlock on SQLite under concurrency.
    try:
        with transaction.atomic():
            DemandCount.objects.create(
                month=month, customer=customer, tld=tld, feature=feature.key, count=1, last_day=today
            )
    except IntegrityError:
        DemandCount.objects.filter(
            month=month, customer=customer, tld=tld, feature=feature.key, last_day__lt=today
        ).update(count=F("count") + 1, last_day=today)


def demand_subscribed(*, customer: Customer, feature: Wanted) -> bool:
    return DemandSubscription.objects.filter(customer=customer, feature=feature.key, notified_at__isnull=True).exists()


def demand_subscribe(*, customer: Customer, feature: Wanted, subscribe: bool) -> None:
    """Ask to be emailed when the feature arrives (once), or take the request back."""
    if not subscribe:
        DemandSubscription.objects.filter(customer=customer, feature=feature.key, notified_at__isnull=True).delete()
        return
    try:
        with transaction.atomic():
            DemandSubscription.objects.create(customer=customer, feature=feature.key)
    except IntegrityError:
        pass  # asked already (or told already: a feature arrives once)


@dataclass(frozen=True)
class DemandRow:
    feature: str
    tld: str
    customers: int
    reaches: int

    @property
    def feature_name(self) -> str:
        wanted = FEATURES.get(self.feature)
        return str(wanted.name) if wanted is not None else self.feature


def demand_month(month: dt.date) -> list[DemandRow]:
    """The month's table: per feature and TLD, how many customers asked for it and on how many days in all."""
    rows = (
        DemandCount.objects.filter(month=month)
        .values("feature", "tld")
        .annotate(customers=Count("customer", distinct=True), reaches=Sum("count"))
        .order_by("feature", "-reaches", "tld")
    )
    return [DemandRow(row["feature"], row["tld"], row["customers"], row["reaches"] or 0) for row in rows]


def demand_waiting() -> dict[str, int]:
    """Per feature, how many customers wait to be told it arrived."""
    rows = DemandSubscription.objects.filter(notified_at__isnull=True).values("feature").annotate(n=Count("pk"))
    return {row["feature"]: row["n"] for row in rows}


def demand_month_csv(month: dt.date) -> str:
    """The table to send the provider: counts only (no customer is named)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["month", "feature", "tld", "customers", "days_asked"])
    for row in demand_month(month):
        writer.writerow([f"{month:%Y-%m}", row.feature, row.tld, row.customers, row.reaches])
    return out.getvalue()


def demand_arrivals_check(*, now: dt.datetime | None = None) -> dict[str, int]:
    """Compare each feature's availability (the settings) with what was last recorded, record what changed, and
    email each customer waiting for a feature that is available now (once: `notified_at`, and the email's key)."""
    now = now or timezone.now()
    arrived = emailed = 0
    for wanted in FEATURES.values():
        available = wanted.available
        state, created = FeatureState.objects.get_or_create(
            feature=wanted.key, defaults={"available": available, "changed_at": now}
        )
        if not created and state.available != available:
            FeatureState.objects.filter(pk=state.pk).update(available=available, changed_at=now)
            arrived += available
            logger.info("demand: %s is %s now", wanted.key, "available" if available else "no longer available")
        if available:
            emailed += _tell_waiting(wanted, now=now)
    return {"arrived": arrived, "emailed": emailed}


def _tell_waiting(wanted: Wanted, *, now: dt.datetime) -> int:
    told = 0
    # A deleted account kept for its records (accounts/privacy.py) has no address any more: nobody to tell.
    waiting = DemandSubscription.objects.filter(
        feature=wanted.key, notified_at__isnull=True, customer__user__is_active=True
    ).select_related("customer__user")
    for subscription in waiting:
        with transaction.atomic():
            # Claimed by the update that sets it: a second worker finds it told and sends nothing.
            if not DemandSubscription.objects.filter(pk=subscription.pk, notified_at__isnull=True).update(
                notified_at=now
            ):
                continue
            told += email_queue(_arrived_email(subscription.customer, wanted), key=f"demand-arrived:{subscription.pk}")
    return told


def _arrived_email(customer: Customer, wanted: Wanted) -> EmailMultiAlternatives:
    context = {**brand_context(), "customer": customer, "site_url": settings.SITE_URL}
    with customer_language(customer):
        context["feature"] = str(wanted.name)
        subject = render_to_string("demand/email/arrived_subject.txt", context).strip()
        text = render_to_string("demand/email/arrived_body.txt", context)
    return EmailMultiAlternatives(subject, text, from_email(), [customer.email])
