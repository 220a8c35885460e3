"""Refreshing every customer's orders from the provider's order listing, paced under its rate limit.

The provider allows 10 non-search requests per second per key (reference/provider-notes.md); the web processes
share that key, so the sync keeps to ORDER_SYNC_REQUESTS_PER_SECOND (default well below). A 429 (RateLimited)
makes it wait as the provider asks and halve its pace for the rest of the run, then carry on: a busy provider
slows the sync, it does not fail it. Customers with a domain close to expiry are visited more often.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import Customer
from domains.models import CustomerSync, Order
from domains.orders.services import order_pages, orders_sync
from storefront.gateway import GatewayError, OrderPage, RateLimited, Unavailable, gateway

logger = logging.getLogger(__name__)

# Monotonic clock and sleep, swapped for fakes in tests so pacing is checked without waiting.
_clock = time.monotonic
_sleep = time.sleep

# 429s on one page before the customer is left for the next run.
_MAX_RATE_LIMITED_PER_PAGE = 5
# Without Retry-After, wait this long after a 429 (seconds).
_DEFAULT_RETRY_AFTER = 2.0
# Consecutive customers whose sync failed as unavailable before the run stops: the provider is down.
_OUTAGE_AFTER = 3
_MAX_PAGES = 200


@dataclass
class Pace:
    """Spaces calls at least 1/rate seconds apart; `slow_down` obeys a 429 and halves the rate."""

    rate: float
    next_at: float = field(default=0.0)
    min_rate: float = 0.5

    def wait(self) -> None:
        now = _clock()
        if self.next_at > now:
            _sleep(self.next_at - now)
            now = self.next_at
        self.next_at = now + 1.0 / self.rate

    def slow_down(self, *, retry_after: float | None) -> None:
        self.rate = max(self.rate / 2, self.min_rate)
        # Jitter, as the provider asks, so several clients do not come back at the same instant.
        _sleep((retry_after if retry_after is not None else _DEFAULT_RETRY_AFTER) + random.random() / 2)  # noqa: S311
        self.next_at = _clock()


@dataclass
class SyncReport:
    customers: int = 0
    failed: int = 0
    rate_limited: int = 0
    orders: int = 0
    stopped_for_outage: bool = False


def customers_due_for_sync(*, now: dt.datetime | None = None) -> QuerySet[Customer]:
    """Customers with a provider account whose listing was not refreshed recently enough.

    Daily-ish (ORDER_SYNC_EVERY_HOURS_FAR) in general; every ORDER_SYNC_EVERY_HOURS_NEAR for a customer with a
    domain expiring within ORDER_SYNC_NEAR_DAYS (or expired lately), whose status and expiry change soon.
    """
    now = now or timezone.now()
    far = now - dt.timedelta(hours=settings.ORDER_SYNC_EVERY_HOURS_FAR)
    near = now - dt.timedelta(hours=settings.ORDER_SYNC_EVERY_HOURS_NEAR)
    soon = now + dt.timedelta(days=settings.ORDER_SYNC_NEAR_DAYS)
    lately = now - dt.timedelta(days=settings.ORDER_SYNC_NEAR_DAYS)
    expiring = Order.objects.filter(expires_at__lte=soon, expires_at__gte=lately).values("customer_id")
    never = Q(order_sync__isnull=True) | Q(order_sync__last_attempt_at__isnull=True)
    return (
        Customer.objects.filter(customer_id__isnull=False)
        .filter(
            never | Q(order_sync__last_attempt_at__lt=far) | Q(pk__in=expiring, order_sync__last_attempt_at__lt=near)
        )
        .order_by("order_sync__last_attempt_at", "pk")
    )


def orders_sync_all(*, max_seconds: float | None = None) -> SyncReport:
    """Sync every customer that is due, within `max_seconds` (the rest wait for the next run)."""
    pace = Pace(rate=settings.ORDER_SYNC_REQUESTS_PER_SECOND)
    report = SyncReport()
    started = _clock()
    outage_streak = 0
    for customer in customers_due_for_sync():
        if max_seconds is not None and _clock() - started > max_seconds:
            break
        error = customer_orders_sync(customer=customer, pace=pace, report=report)
        outage_streak = outage_streak + 1 if error == Unavailable.__name__ else 0
        if outage_streak >= _OUTAGE_AFTER:
            logger.warning("order sync stopped: the provider is unavailable")
            report.stopped_for_outage = True
            break
    return report


def customer_orders_sync(*, customer: Customer, pace: Pace, report: SyncReport) -> str:
    """Walk the customer's whole listing and upsert our copy. Returns "" or the error class that stopped it."""
    customer_id = customer.customer_id
    if customer_id is None:  # no provider account, no listing (customers_due_for_sync leaves them out)
        return ""
    state, _ = CustomerSync.objects.get_or_create(customer=customer)
    state.last_attempt_at = timezone.now()
    report.customers += 1
    error = ""

    def fetch(page: int) -> OrderPage:
        limited = 0
        while True:
            pace.wait()
            try:
                return gateway().domain_orders(customer_id=customer_id, page=page)
            except RateLimited as err:
                report.rate_limited += 1
                limited += 1
                if limited > _MAX_RATE_LIMITED_PER_PAGE:
                    raise
                pace.slow_down(retry_after=err.retry_after)  # the same page again, more slowly

    try:
        for data in order_pages(fetch, max_pages=_MAX_PAGES):
            orders_sync(customer=customer, orders=data.orders)
            report.orders += len(data.orders)
    except RateLimited:
        error = RateLimited.__name__
    except Unavailable:
        error = Unavailable.__name__
    except GatewayError as err:
        error = type(err).__name__
    if error:
        report.failed += 1
        state.failures += 1
        state.last_error = error
        logger.warning("order sync of customer %s failed: %s", customer.customer_id, error)
    else:
        state.failures = 0
        state.last_error = ""
        state.last_success_at = state.last_attempt_at
    state.save()
    return error
