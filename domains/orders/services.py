"""Order dashboard services: the cached order listing, our local copy of orders, renewals and
transfer codes.

The provider's order listing is the source of truth. Every refresh of it upserts `domains.Order`, which then
answers ownership checks and the admin without a provider call.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import Max
from django.utils import timezone

from accounts.models import Activity, Customer
from accounts.staff.acting import ActingRefused
from accounts.staff.activity import activity_record, current_actor
from domains.models import Order, Registration
from domains.orders.payment_marks import order_unlocked_check
from domains.terms import renew_min_term
from pricing.models import Operation
from pricing.money import Money
from pricing.quotes import Quote, price_book, retail_price
from storefront.gateway import Order as ProviderOrder
from storefront.gateway import (
    OrderPage,
    TransferCode,
    gateway,
)
from storefront.requests.acting_rules import REFUSED_SENTENCE
from storefront.resilience.cache_versions import cache_version, cache_version_bump

ORDERS_CACHE_SECONDS = 30
EXPIRING_SOON_DAYS = 30
RENEW_YEARS = range(1, 10)
# A search by domain name normally finds the order on the first page; this bounds the walk if it does not.
FETCH_MAX_PAGES = 5

_PAGE_SIZE_KEY = "orders:page-size"
# An order read again this soon after it was last synced, unchanged, is not written (its last_synced_at stays).
UNCHANGED_WRITE_AFTER = dt.timedelta(minutes=5)

logger = logging.getLogger(__name__)


# --- What the dashboard shows ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class OrderRow:
    """One order as the customer sees it: the provider's fields plus how long is left (its badge, the words for
    its status and for the time left are domains/presentation.py's)."""

    order_id: int
    domain_name: str
    status: str
    expires_at: dt.datetime | None
    seconds_left: float | None
    last_synced_at: dt.datetime | None = None
    # Its payment was refunded (domains/orders/payment_marks.py): not renewed here any more.
    refunded: bool = False

    @property
    def is_expired(self) -> bool:
        return self.status == Order.Status.EXPIRED or (self.seconds_left is not None and self.seconds_left < 0)

    @property
    def is_expiring_soon(self) -> bool:
        return not self.is_expired and self.seconds_left is not None and self.seconds_left < EXPIRING_SOON_DAYS * 86400

    @property
    def is_pending_delete(self) -> bool:
        return self.status == Order.Status.PENDING_DELETE_RESTORABLE

    @property
    def can_renew(self) -> bool:
        # Expired orders can be renewed if the provider allows it; pending delete needs a restore instead; a refunded
        # domain is not renewed here.
        return not self.is_pending_delete and not self.refunded

    @property
    def display_status(self) -> str:
        # The provider lists past expiry as Expired; a cached row may be a few seconds behind it.
        if self.is_expired and self.status in (Order.Status.ACTIVE, Order.Status.SUSPENDED):
            return Order.Status.EXPIRED
        return self.status

    @property
    def urgency(self) -> str:
        if self.is_pending_delete:
            return "pending"
        if self.is_expired:
            return "expired"
        return "soon" if self.is_expiring_soon else ""


def order_row(
    order: ProviderOrder | Order, *, now: dt.datetime | None = None, refunded: bool | None = None
) -> OrderRow:
    """The row for a provider order or, when the provider cannot be asked, for our local copy. `refunded`: whether
    our copy is marked refunded (read from our copy itself when it is one)."""
    now = now or timezone.now()
    expires_at = order.expires_at
    return OrderRow(
        order_id=order.order_id,
        domain_name=order.domain_name,
        status=order.status,
        expires_at=expires_at,
        seconds_left=(expires_at - now).total_seconds() if expires_at else None,
        last_synced_at=getattr(order, "last_synced_at", None),
        refunded=refunded if refunded is not None else getattr(order, "refunded_at", None) is not None,
    )


@dataclass(frozen=True)
class OrdersListing:
    rows: list[OrderRow]
    page: int
    num_pages: int
    total_orders: int
    q: str

    @property
    def has_previous(self) -> bool:
        return self.page > 1

    @property
    def has_next(self) -> bool:
        return self.page < self.num_pages

    @property
    def previous_page(self) -> int:
        return max(1, min(self.page - 1, self.num_pages))

    @property
    def next_page(self) -> int:
        return self.page + 1

    @property
    def past_the_end(self) -> bool:
        return not self.rows and self.total_orders > 0


# --- The listing, its cache and the local copy ---------------------------------------------------------------


def _version_key(customer: Customer) -> str:
    return f"orders:version:{customer.pk}"


def _cache_version(customer: Customer) -> int:
    return cache_version(_version_key(customer))


def orders_cache_invalidate(*, customer: Customer) -> None:
    """Forget every cached listing page of this customer (call after checkout or renew)."""
    cache_version_bump(_version_key(customer))


def _listing_key(customer: Customer, page: int, q: str) -> str:
    digest = hashlib.sha256(q.encode()).hexdigest()[:16]
    # Checkout records every purchase attempt as a Registration: its latest change is part of the key, so a
    # purchase shows at once on the dashboard even where nobody called orders_cache_invalidate.
    checkout = Registration.objects.filter(customer=customer).aggregate(last=Max("updated_at"))["last"]
    stamp = int(checkout.timestamp() * 1_000_000) if checkout else 0
    return f"orders:list:{customer.pk}:{_cache_version(customer)}:{stamp}:{page}:{digest}"


def _page_size(page: int, data: OrderPage) -> int:
    """The provider's page size is not documented: a full first page tells it (remembered for later pages)."""
    if page == 1 and 0 < data.orders_on_page < data.total_orders:
        cache.set(_PAGE_SIZE_KEY, data.orders_on_page, timeout=30 * 24 * 60 * 60)
        return data.orders_on_page
    return max(cache.get(_PAGE_SIZE_KEY) or 0, data.orders_on_page, 1)


def orders_list(*, customer: Customer, page: int = 1, q: str = "") -> OrdersListing:
    """One page of the customer's orders: one provider call, or none within the short cache window."""
    if customer.customer_id is None:
        raise ValueError("the customer has no provider id yet")
    key = _listing_key(customer, page, q)
    data: OrderPage | None = cache.get(key)
    if data is None:
        data = gateway().domain_orders(customer_id=customer.customer_id, page=page, search=q)
        orders_sync(customer=customer, orders=data.orders)
        cache.set(key, data, ORDERS_CACHE_SECONDS)
    now = timezone.now()
    size = _page_size(page, data)
    refunded = set(
        Order.objects.filter(order_id__in=[o.order_id for o in data.orders], refunded_at__isnull=False).values_list(
            "order_id", flat=True
        )
    )
    return OrdersListing(
        rows=[order_row(o, now=now, refunded=o.order_id in refunded) for o in data.orders],
        page=page,
        num_pages=max(1, math.ceil(data.total_orders / size)),
        total_orders=data.total_orders,
        q=q,
    )


def orders_sync(*, customer: Customer, orders: Iterable[ProviderOrder], known: Iterable[Order] = ()) -> None:
    """Upsert our copy of these orders from the provider's listing of this customer: a page of the listing in a
    few queries (one read, one bulk update, one bulk insert), whatever its length. `known`: our rows already read
    (they are updated in place, and not read again)."""
    now = timezone.now()
    listed = {order.order_id: order for order in orders}
    if not listed:
        return
    fields = ("customer", "domain_name", "status", "expiry_timestamp", "expires_at", "last_synced_at")
    ours = {order.order_id: order for order in known if order.order_id in listed}
    if len(ours) < len(listed):
        ours |= {order.order_id: order for order in Order.objects.filter(order_id__in=set(listed) - set(ours))}
    changed, added = [], []
    for order_id, order in listed.items():
        values = {
            "customer": customer,
            "domain_name": order.domain_name,
            "status": order.status,
            "expiry_timestamp": order.expiry_timestamp,
            "expires_at": order.expires_at,
            "last_synced_at": now,
        }
        row = ours.get(order_id)
        if row is None:
            added.append(Order(order_id=order_id, **values))
            continue
        # The customer by its id: reading row.customer would cost a query per order.
        same = row.customer_id == customer.pk and all(
            getattr(row, name) == value for name, value in values.items() if name not in ("customer", "last_synced_at")
        )
        if same and row.last_synced_at is not None and now - row.last_synced_at < UNCHANGED_WRITE_AFTER:
            continue  # read again a moment after the last time, unchanged: nothing to write (a page view)
        for name, value in values.items():
            setattr(row, name, value)
        changed.append(row)
    if changed:
        Order.objects.bulk_update(changed, fields)
    if added:
        # Two syncs of the same new order at once (a page view and the worker): the second insert is a no-op.
        Order.objects.bulk_create(added, ignore_conflicts=True)


def listing_page_size() -> int:
    """Orders per page of the provider's listing, as a full first page showed it (10 until one has)."""
    return int(cache.get(_PAGE_SIZE_KEY) or 10)


def order_pages(fetch: Callable[[int], OrderPage], *, max_pages: int) -> Iterator[OrderPage]:
    """A customer's order listing page by page, from the first; `fetch(page)` asks the provider for one.

    The walk ends after an empty page, once the pages have held `total_orders` orders, or after `max_pages`
    pages; a caller that found what it wanted simply stops iterating. Errors from `fetch` reach the caller.
    """
    seen = 0
    for page in range(1, max_pages + 1):
        data = fetch(page)
        yield data
        seen += len(data.orders)
        if not data.orders or seen >= data.total_orders:
            return


def order_fetch(*, order: Order) -> ProviderOrder | None:
    """The provider's current view of one order (searched by its name), or None if it is no longer listed.

    Refreshes our copy. Never cached: renewals need the expiry timestamp as it is right now.
    """
    customer = order.customer
    customer_id = customer.customer_id
    if customer_id is None:
        return None
    pages = order_pages(
        lambda page: gateway().domain_orders(customer_id=customer_id, page=page, search=order.domain_name),
        max_pages=FETCH_MAX_PAGES,
    )
    for data in pages:
        match = next((o for o in data.orders if o.order_id == order.order_id), None)
        if match is not None:
            orders_sync(customer=customer, orders=[match], known=[order])
            return match
    return None


# --- Renewal --------------------------------------------------------------------------------------------------


def renew_pricing(*, domain_name: str) -> Quote | None:
    """The retail price of renewing this domain for one year (our price list, no provider call); None when its
    TLD has no renewal price here."""
    return retail_price(tld=_tld(domain_name), operation=Operation.RENEW, years=1)


def renew_quote(*, domain_name: str, years: int) -> Quote | None:
    """The retail price of renewing this domain for `years`; None when its TLD has no such price here."""
    return retail_price(tld=_tld(domain_name), operation=Operation.RENEW, years=years)


def renew_options(*, domain_name: str) -> list[tuple[int, Money | None]]:
    """(years, retail total) for each renewal term offered: the priced ones, or every term unpriced when the
    TLD has no renewal price here."""
    book = price_book(tlds=[_tld(domain_name)])
    minimum = renew_min_term(_tld(domain_name))
    priced: list[tuple[int, Money | None]] = []
    for years in (y for y in RENEW_YEARS if y >= minimum):
        quote = book.retail_price(tld=_tld(domain_name), operation=Operation.RENEW, years=years)
        if quote is not None:
            priced.append((years, quote.retail))
    return priced or [(years, None) for years in RENEW_YEARS]


def _tld(domain_name: str) -> str:
    return domain_name.rpartition(".")[2].lower()


# --- Transfer code ----------------------------------------------------------------------------------------------


def order_transfer_code(*, order: Order) -> TransferCode:
    """The EPP code, read fresh each time. Callers show it once and never store, log or cache it. The activity log
    records that it was shown (never the code); staff acting as the customer are refused before any call."""
    if current_actor().kind == Activity.Actor.STAFF_AS_CUSTOMER:
        raise ActingRefused(message=REFUSED_SENTENCE)
    order_unlocked_check(order=order)  # a refunded domain must not be moved away
    code = gateway().transfer_auth_code(order_id=order.order_id)
    activity_record(action="transfer_code_shown", order=order)
    return code
