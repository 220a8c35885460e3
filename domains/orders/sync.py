"""Keeping our copy of the customers' orders fresh from the provider's order listing, in proportion to what changes.

Two kinds of refresh, planned by the scheduled job (`orders_sync_plan`) and done by tasks any worker takes:
- **Near orders.** An order within ORDER_SYNC_NEAR_DAYS of its expiry (before or after), or pending deletion, is
  refreshed on its own every ORDER_SYNC_EVERY_HOURS_NEAR hours: one listing call searched by its name. Its expiry and
  status are what reminders, auto-renew and the renewal form act on, and they change around the expiry date.
- **Walks.** Every customer's whole listing is read every ORDER_SYNC_EVERY_HOURS_FAR hours, page by page (orders
  bought elsewhere, renewals in the control panel, statuses). A long listing is read PAGES_PER_TASK pages per task
  and continues in the next task where it stopped (`CustomerSync.walk_page`): a customer with 5,000 domains is
  synced in full, by as many tasks as it takes, never cut at a page cap.
The plan is cut into tasks of at most BATCH_CALLS provider calls, so that several workers share a pass; a new plan is
made only once the last one's tasks are done. Every worker together keeps to ORDER_SYNC_REQUESTS_PER_SECOND (the
provider allows 10 non-search requests per second per key, shared with the web processes): each call takes a slot
in a shared per-second count, and a 429 makes the worker wait as the provider asks and halve its own pace.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import Count, F, Q
from django.utils import timezone

from accounts.models import Customer
from domains.models import CustomerSync, Order
from domains.orders.services import listing_page_size, orders_sync
from storefront.gateway import GatewayError, OrderPage, RateLimited, Unavailable, gateway
from storefront.resilience.counters import counter_incr

logger = logging.getLogger(__name__)

# Monotonic clock and sleep, swapped for fakes in tests so pacing is checked without waiting.
_clock = time.monotonic
_sleep = time.sleep

# 429s on one call before the work is left for the next run.
_MAX_RATE_LIMITED_PER_CALL = 5
# Without Retry-After, wait this long after a 429 (seconds).
_DEFAULT_RETRY_AFTER = 2.0
# Consecutive customers whose sync failed as unavailable before a task stops: the provider is down.
_OUTAGE_AFTER = 3
# Listing pages one task reads of one customer before it hands the rest to a new task.
PAGES_PER_TASK = 100
# Provider calls one task makes at most (a few minutes at the default pace): a pass is many tasks.
BATCH_CALLS = 600
# Work one plan holds at most: what the pace allows in the scheduler's period (15 minutes).
PLAN_SECONDS = 15 * 60


@dataclass
class Pace:
    """Spaces this process's calls at least 1/rate seconds apart and takes a slot in the per-second count all
    workers share; `slow_down` obeys a 429 and halves the rate."""

    rate: float
    next_at: float = field(default=0.0)
    min_rate: float = 0.5
    shared: bool = True

    def wait(self) -> None:
        now = _clock()
        if self.next_at > now:
            _sleep(self.next_at - now)
            now = self.next_at
        self.next_at = now + 1.0 / self.rate
        while self.shared and not self._slot():
            _sleep(1.0 - time.time() % 1.0)

    def _slot(self) -> bool:
        second = int(time.time())
        taken = counter_incr(f"order-sync:calls:{second}", timeout=5)
        return taken <= max(1, math.ceil(settings.ORDER_SYNC_REQUESTS_PER_SECOND))

    def slow_down(self, *, retry_after: float | None) -> None:
        self.rate = max(self.rate / 2, self.min_rate)
        # Jitter, as the provider asks, so several clients do not come back at the same instant.
        _sleep((retry_after if retry_after is not None else _DEFAULT_RETRY_AFTER) + random.random() / 2)  # noqa: S311
        self.next_at = _clock()


@dataclass
class SyncReport:
    customers: int = 0
    orders_refreshed: int = 0  # near orders refreshed on their own
    failed: int = 0
    rate_limited: int = 0
    orders: int = 0  # order rows read from the listing
    pages: int = 0
    calls: int = 0
    continued: list[int] = field(default_factory=list)  # customers whose walk goes on in another task
    stopped_for_outage: bool = False

    def as_dict(self) -> dict[str, object]:
        return {
            "customers": self.customers,
            "orders_refreshed": self.orders_refreshed,
            "failed": self.failed,
            "rate_limited": self.rate_limited,
            "orders": self.orders,
            "calls": self.calls,
            "continued": len(self.continued),
            "stopped_for_outage": self.stopped_for_outage,
        }


# --- What is due ---------------------------------------------------------------------------------------------


def near_orders_due(*, now: dt.datetime | None = None) -> Q:
    """Orders to refresh on their own now: near their expiry or pending deletion, not refreshed for a while."""
    now = now or timezone.now()
    near = dt.timedelta(days=settings.ORDER_SYNC_NEAR_DAYS)
    stale = Q(last_synced_at__isnull=True) | Q(
        last_synced_at__lt=now - dt.timedelta(hours=settings.ORDER_SYNC_EVERY_HOURS_NEAR)
    )
    near_expiry = Q(expires_at__gte=now - near, expires_at__lte=now + near)
    pending = Q(status=Order.Status.PENDING_DELETE_RESTORABLE)
    return (near_expiry | pending) & stale & Q(customer__customer_id__isnull=False)


def customers_due_for_walk(*, now: dt.datetime | None = None) -> Q:
    """Customers whose listing is due to be read: never read, or not since ORDER_SYNC_EVERY_HOURS_FAR, or left
    half-way (a long listing goes on at once)."""
    now = now or timezone.now()
    never = Q(order_sync__isnull=True) | Q(order_sync__walk_due_at__isnull=True)
    return Q(customer_id__isnull=False) & (never | Q(order_sync__walk_due_at__lte=now))


@dataclass
class SyncPlan:
    """One pass's work, cut into batches of at most BATCH_CALLS provider calls each."""

    batches: list[tuple[list[int], list[int]]]  # (customer pks to walk, order pks to refresh), per task
    walks: int = 0
    near_orders: int = 0
    calls: int = 0  # provider calls the plan will make (a walk's pages estimated from our copy)

    def describe(self) -> str:
        seconds = self.calls / max(settings.ORDER_SYNC_REQUESTS_PER_SECOND, 0.1)
        return (
            f"{self.walks:,} walks and {self.near_orders:,} near orders in {len(self.batches)} tasks: "
            f"about {self.calls:,} provider calls, {seconds / 60:.0f} min at "
            f"{settings.ORDER_SYNC_REQUESTS_PER_SECOND:g}/s"
        )


def orders_sync_plan(*, now: dt.datetime | None = None, max_calls: int | None = None) -> SyncPlan:
    """What to refresh now, near orders first, within what the pace allows in one period (`max_calls`)."""
    now = now or timezone.now()
    budget = max_calls if max_calls is not None else int(settings.ORDER_SYNC_REQUESTS_PER_SECOND * PLAN_SECONDS)
    page_size = listing_page_size()
    units: list[tuple[int | None, int | None, int]] = []  # (customer to walk, order to refresh, calls)
    spent = 0
    near = (
        Order.objects.filter(near_orders_due(now=now))
        .order_by("expires_at")
        .values_list("pk", "customer_id")[: max(budget, 0)]
    )
    near_by_customer: dict[int, list[int]] = {}
    for order_pk, customer_pk in near:
        near_by_customer.setdefault(customer_pk, []).append(order_pk)
        spent += 1
    walking = (
        Customer.objects.filter(customers_due_for_walk(now=now))
        .order_by(F("order_sync__walk_due_at").asc(nulls_first=True), "pk")
        .values_list("pk", "order_sync__listed_orders", "order_sync__walk_page")
    )
    for walker, listed, next_page in walking.iterator(chunk_size=2000):
        if spent >= budget:
            break
        pages = max(1, math.ceil((listed or 0) / page_size) - (next_page or 1) + 1)
        calls = min(pages, PAGES_PER_TASK)
        # The walk reads this customer's near orders too.
        spent -= len(near_by_customer.pop(walker, []))
        units.append((walker, None, calls))
        spent += calls
    units[:0] = [(None, order_pk, 1) for orders in near_by_customer.values() for order_pk in orders]
    plan = SyncPlan(batches=[], calls=spent)
    batch: tuple[list[int], list[int]] = ([], [])
    in_batch = 0
    for walk_pk, refresh_pk, calls in units:
        if in_batch and in_batch + calls > BATCH_CALLS:
            plan.batches.append(batch)
            batch, in_batch = ([], []), 0
        if walk_pk is not None:
            batch[0].append(walk_pk)
            plan.walks += 1
        if refresh_pk is not None:
            batch[1].append(refresh_pk)
            plan.near_orders += 1
        in_batch += calls
    if in_batch:
        plan.batches.append(batch)
    return plan


@dataclass(frozen=True)
class DailyCalls:
    """The provider calls the sync makes in a day in the steady state, from our copy of the listings."""

    walks: int  # every customer's listing once, page by page
    near: int  # each order near its expiry, every ORDER_SYNC_EVERY_HOURS_NEAR hours

    def describe(self) -> str:
        total = self.walks + self.near
        share = settings.ORDER_SYNC_REQUESTS_PER_SECOND * 86_400
        return (
            f"{self.walks:,} for the daily walks + {self.near:,} for near orders = {total:,} a day, "
            f"{total / share:.0%} of the {settings.ORDER_SYNC_REQUESTS_PER_SECOND:g}/s share "
            f"({total / settings.ORDER_SYNC_REQUESTS_PER_SECOND / 60:.0f} min of calls)"
        )


def orders_sync_daily_calls(*, now: dt.datetime | None = None) -> DailyCalls:
    now = now or timezone.now()
    page_size = listing_page_size()
    per_day = 24 / max(settings.ORDER_SYNC_EVERY_HOURS_FAR, 1)
    counts = Order.objects.filter(customer__customer_id__isnull=False).values("customer_id").annotate(n=Count("pk"))
    pages = sum(math.ceil(row["n"] / page_size) for row in counts)
    # A listing without orders still takes its one call.
    pages += Customer.objects.filter(customer_id__isnull=False).count() - len(counts)
    walks = pages * per_day
    near = dt.timedelta(days=settings.ORDER_SYNC_NEAR_DAYS)
    close = Order.objects.filter(
        Q(expires_at__gte=now - near, expires_at__lte=now + near) | Q(status=Order.Status.PENDING_DELETE_RESTORABLE)
    ).count()
    return DailyCalls(walks=round(walks), near=round(close * 24 / settings.ORDER_SYNC_EVERY_HOURS_NEAR))


# --- Doing it ------------------------------------------------------------------------------------------------


def orders_sync_batch(*, customer_pks: list[int], order_pks: list[int], pace: Pace | None = None) -> SyncReport:
    """Refresh these near orders one by one, then walk these customers' listings (each up to PAGES_PER_TASK pages
    from where it stopped). Customers whose walk is not finished are in `report.continued`."""
    pace = pace or Pace(rate=settings.ORDER_SYNC_REQUESTS_PER_SECOND)
    report = SyncReport()
    outage_streak = 0
    orders = Order.objects.filter(pk__in=order_pks).select_related("customer").order_by("expires_at")
    for order in orders:
        error = _refresh_order(order, pace=pace, report=report)
        outage_streak = outage_streak + 1 if error == Unavailable.__name__ else 0
        if outage_streak >= _OUTAGE_AFTER:
            report.stopped_for_outage = True
            logger.warning("order sync stopped: the provider is unavailable")
            return report
    for customer in Customer.objects.filter(pk__in=customer_pks, customer_id__isnull=False).order_by("pk"):
        error = customer_orders_walk(customer=customer, pace=pace, report=report)
        outage_streak = outage_streak + 1 if error == Unavailable.__name__ else 0
        if outage_streak >= _OUTAGE_AFTER:
            report.stopped_for_outage = True
            logger.warning("order sync stopped: the provider is unavailable")
            break
    return report


def orders_sync_all(*, max_seconds: float | None = None) -> SyncReport:
    """Everything due now, in this process (by hand, and the tests): the plan's batches one after the other, and
    each long listing to its end."""
    started = _clock()
    pace = Pace(rate=settings.ORDER_SYNC_REQUESTS_PER_SECOND)
    total = SyncReport()
    for customers, orders in orders_sync_plan().batches:
        pending = [(customers, orders)]
        while pending:
            if max_seconds is not None and _clock() - started > max_seconds:
                return total
            walk, refresh = pending.pop()
            report = orders_sync_batch(customer_pks=walk, order_pks=refresh, pace=pace)
            _add(total, report)
            if report.stopped_for_outage:
                total.stopped_for_outage = True
                return total
            if report.continued:
                pending.append((report.continued, []))
    return total


def _add(total: SyncReport, report: SyncReport) -> None:
    for name in ("customers", "orders_refreshed", "failed", "rate_limited", "orders", "pages", "calls"):
        setattr(total, name, getattr(total, name) + getattr(report, name))


def _call(fetch: Callable[[], OrderPage], *, pace: Pace, report: SyncReport) -> OrderPage:
    limited = 0
    while True:
        pace.wait()
        report.calls += 1
        try:
            return fetch()
        except RateLimited as err:
            report.rate_limited += 1
            limited += 1
            if limited > _MAX_RATE_LIMITED_PER_CALL:
                raise
            pace.slow_down(retry_after=err.retry_after)  # the same call again, more slowly


def _refresh_order(order: Order, *, pace: Pace, report: SyncReport) -> str:
    """One order, searched by its name in its customer's listing. "" or the error class that stopped it."""
    customer = order.customer
    customer_id = customer.customer_id
    if customer_id is None:
        return ""
    try:
        data = _call(
            lambda: gateway().domain_orders(customer_id=customer_id, page=1, search=order.domain_name),
            pace=pace,
            report=report,
        )
    except GatewayError as err:
        report.failed += 1
        logger.warning("order sync of order %s failed: %s", order.order_id, type(err).__name__)
        return type(err).__name__
    orders_sync(customer=customer, orders=data.orders)
    if not any(listed.order_id == order.order_id for listed in data.orders):
        # Not listed under its name any more (deleted, transferred away): the next walk says for sure; until then
        # it is not asked for again every few hours.
        Order.objects.filter(pk=order.pk).update(last_synced_at=timezone.now())
    report.orders_refreshed += 1
    return ""


def customer_orders_walk(*, customer: Customer, pace: Pace, report: SyncReport) -> str:
    """Read up to PAGES_PER_TASK pages of the customer's listing from where the last walk stopped, and upsert our
    copy. Returns "" or the error class that stopped it; a walk left unfinished is in `report.continued`."""
    customer_id = customer.customer_id
    if customer_id is None:  # no provider account, no listing
        return ""
    state, _ = CustomerSync.objects.get_or_create(customer=customer)
    now = timezone.now()
    state.last_attempt_at = now
    if state.walk_page <= 1:
        state.walk_started_at = now
    report.customers += 1
    error = ""
    page = max(1, state.walk_page)
    finished = False
    try:
        for _ in range(PAGES_PER_TASK):
            data = _call(
                functools.partial(gateway().domain_orders, customer_id=customer_id, page=page), pace=pace, report=report
            )
            report.pages += 1
            orders_sync(customer=customer, orders=data.orders)
            report.orders += len(data.orders)
            state.listed_orders = data.total_orders
            page += 1
            if not data.orders or (page - 1) * max(data.orders_on_page, len(data.orders), 1) >= data.total_orders:
                finished = True
                break
    except GatewayError as err:
        error = type(err).__name__
    state.walk_page = 1 if finished else page
    if error:
        report.failed += 1
        state.failures += 1
        state.last_error = error
        # Tried again after a short while, from the page that failed.
        state.walk_due_at = now + dt.timedelta(minutes=15)
        logger.warning("order sync of customer %s failed: %s", customer_id, error)
    elif finished:
        state.failures = 0
        state.last_error = ""
        state.last_success_at = now
        # Spread over the period: customers synced together do not all fall due in the same minute again.
        hours = settings.ORDER_SYNC_EVERY_HOURS_FAR * (1 + random.random() / 10)  # noqa: S311
        state.walk_due_at = now + dt.timedelta(hours=hours)
    else:
        state.walk_due_at = now  # the rest of a long listing: at once, in another task
        report.continued.append(customer.pk)
    state.save()
    return error


def customer_orders_sync_all_pages(*, customer: Customer) -> SyncReport:
    """The customer's whole listing, in as many steps as it takes (the scale benchmark; staff by hand)."""
    pace = Pace(rate=settings.ORDER_SYNC_REQUESTS_PER_SECOND)
    total = SyncReport()
    while True:
        report = SyncReport()
        error = customer_orders_walk(customer=customer, pace=pace, report=report)
        _add(total, report)
        if error or not report.continued:
            return total
