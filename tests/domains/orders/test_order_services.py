"""The order services (domains/orders.py): listing cache, local copy, expiry wording, renewals, prices."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest
from django.core.cache import cache

from domains import presentation
from domains.models import Order
from domains.orders import services as domain_orders
from domains.orders.renewals import RenewAlreadySubmitted, RenewRequest, add_years, renew_terms, renewal_place
from pricing.money import Money
from storefront.gateway import Order as ProviderOrder
from storefront.gateway import OrderPage

pytest_plugins = ["tests.domains.fixtures_orders"]

NOW = dt.datetime(2026, 6, 1, 12, 0, tzinfo=dt.UTC)


def row(days: float, status: str = "Active") -> domain_orders.OrderRow:
    expires = NOW + dt.timedelta(days=days)
    provider = ProviderOrder(
        order_id=1, domain_name="a.com", status=status, expiry="", expiry_timestamp=int(expires.timestamp())
    )
    return domain_orders.order_row(provider, now=NOW)


# --- Expiry wording (no provider needed) -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("days", "words", "urgency"),
    [
        (365 - 1 / 1440, "in 1 year", ""),  # registered a minute ago for a year: not "11 months"
        (3 * 365.25 - 0.01, "in 3 years", ""),
        (1064, "in 3 years", ""),  # 2 years 11 months rounds up, as a customer reads it
        (548, "in 18 months", ""),
        (400, "in 13 months", ""),
        (61, "in 2 months", ""),
        (45.2, "in 45 days", ""),
        (23.5, "in 23 days", "soon"),
        (1.2, "in 1 day", "soon"),
        (0.3, "expires today", "soon"),
        (-0.3, "expired today", "expired"),
        (-3.5, "expired 3 days ago", "expired"),
        (-1.5, "expired 1 day ago", "expired"),
        (-100, "expired 3 months ago", "expired"),
        (-800, "expired 2 years ago", "expired"),
    ],
)
def test_it_says_how_long_is_left(days, words, urgency):
    assert presentation.time_left(row(days)) == words
    assert row(days).urgency == urgency


def test_a_past_expiry_is_expired_even_if_the_status_lags():
    lagging = row(-2, status="Active")

    assert lagging.is_expired
    assert lagging.display_status == "Expired"
    assert presentation.order_status_badge(lagging.display_status) == "badge-bad"


def test_pending_delete_stays_pending_delete_and_cannot_be_renewed():
    pending = row(10, status="Pending Delete Restorable")

    assert pending.display_status == "Pending Delete Restorable"
    assert not pending.can_renew
    assert pending.urgency == "pending"


def test_each_status_has_a_badge_and_a_meaning():
    for status, badge in [
        ("Active", "badge-ok"),
        ("Suspended", "badge-warn"),
        ("Pending Delete Restorable", "badge-bad"),
        ("Expired", "badge-bad"),
    ]:
        shown = row(200, status=status)
        assert presentation.order_status_badge(shown.display_status) == badge
        assert presentation.order_status_meaning(shown.display_status)


@pytest.mark.django_db
def test_renew_options_are_the_priced_terms_from_the_minimum(costs):
    costs("com", register={1: "12.99"}, renew={1: "14.99", 2: "29.98", 5: "74.95"})
    costs("ai", register={2: "159.98"}, renew={1: "79.99", 2: "159.98"})

    # Retail prices: each term's cost plus the tests' default markup of 1.50 a year.
    assert domain_orders.renew_options(domain_name="brand.com") == [
        (1, Money(Decimal("16.49"), "USD")),
        (2, Money(Decimal("32.98"), "USD")),
        (5, Money(Decimal("82.45"), "USD")),
    ]
    # .ai's two-year minimum applies to renewals too.
    assert domain_orders.renew_options(domain_name="brand.ai") == [(2, Money(Decimal("162.98"), "USD"))]
    assert domain_orders.renew_options(domain_name="brand.zz")[2] == (3, None)


# --- Listing, cache, local copy (sandbox over HTTP) ----------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_orders_list_is_cached_per_customer_page_and_search(customer, provider_orders, provider_calls):
    provider_orders.register(customer, "cachekeys.com")
    provider_calls.clear()

    domain_orders.orders_list(customer=customer)
    domain_orders.orders_list(customer=customer)
    domain_orders.orders_list(customer=customer, q="cache")
    domain_orders.orders_list(customer=customer, page=2)

    assert [name for name, _ in provider_calls] == ["domain_orders"] * 3


@pytest.mark.django_db(transaction=True)
def test_invalidation_touches_only_that_customer(customer, other_customer, provider_orders, provider_calls):
    domain_orders.orders_list(customer=customer)
    domain_orders.orders_list(customer=other_customer)
    provider_calls.clear()

    domain_orders.orders_cache_invalidate(customer=customer)
    domain_orders.orders_list(customer=customer)
    domain_orders.orders_list(customer=other_customer)

    assert [kwargs["customer_id"] for _, kwargs in provider_calls] == [customer.customer_id]


@pytest.mark.django_db(transaction=True)
def test_invalidation_survives_a_lost_version_key(customer, provider_orders, provider_calls):
    domain_orders.orders_list(customer=customer)
    cache.delete(f"orders:version:{customer.pk}")
    provider_orders.register(customer, "afterloss.com")

    listing = domain_orders.orders_list(customer=customer)

    assert [r.domain_name for r in listing.rows] == ["afterloss.com"]


@pytest.mark.django_db(transaction=True)
def test_orders_sync_upserts_the_local_copy(customer, other_customer, provider_orders):
    order = provider_orders.register(customer, "synced.com")
    Order.objects.filter(pk=order.pk).update(customer=other_customer, status="Suspended", domain_name="old.com")

    domain_orders.orders_list(customer=customer)

    order.refresh_from_db()
    assert order.customer == customer
    assert order.domain_name == "synced.com"
    assert order.status == "Active"
    assert order.expires_at == provider_orders.at_provider(order).expires_at
    assert order.last_synced_at is not None


@pytest.mark.django_db(transaction=True)
def test_order_fetch_finds_the_order_among_similar_names(customer, provider_orders):
    for n in range(11):
        provider_orders.register(customer, f"x{n:02d}twin.com")
    target = provider_orders.register(customer, "twin.com")

    found = domain_orders.order_fetch(order=target)

    assert found is not None and found.order_id == target.order_id


@pytest.mark.django_db(transaction=True)
def test_order_fetch_walks_pages_when_the_search_matches_many(customer, provider_orders):
    target = provider_orders.register(customer, "deep.com")
    for n in range(11):
        provider_orders.register(customer, f"a{n:02d}deep.com")  # newer: listed before the target

    found = domain_orders.order_fetch(order=target)

    assert found is not None and found.order_id == target.order_id


def test_the_page_size_is_learnt_from_a_full_first_page():
    full = OrderPage(total_orders=23, orders_on_page=10, orders=[])
    last = OrderPage(total_orders=23, orders_on_page=3, orders=[])

    assert domain_orders._page_size(1, full) == 10
    assert domain_orders._page_size(3, last) == 10


def test_a_single_page_is_one_page():
    only = OrderPage(total_orders=4, orders_on_page=4, orders=[])

    assert domain_orders._page_size(1, only) == 4


# --- Renewal service (domains/renewals.py) -------------------------------------------------------------------


def _request(order_expiry: dt.datetime, *, duration: int = 1, token: str | None = None) -> RenewRequest:
    return RenewRequest(
        duration=duration,
        shown_expiry_timestamp=int(order_expiry.timestamp()),
        token=uuid.UUID(token) if token else uuid.uuid4(),
        price=Decimal("10.00"),
        currency="USD",
    )


@pytest.mark.django_db(transaction=True)
def test_a_token_claimed_elsewhere_refuses_a_second_submit(customer, provider_orders, provider_calls):
    order = provider_orders.register(customer, "inflightservice.com")
    before = provider_orders.at_provider(order).expires_at
    request = _request(before)
    renewal_place(order=order, request=request)
    provider_calls.clear()
    cache.clear()

    with pytest.raises(RenewAlreadySubmitted, match="Already renewed"):
        renewal_place(order=order, request=request)

    assert provider_calls == []


@pytest.mark.django_db(transaction=True)
def test_a_successful_renewal_invalidates_the_listing_and_refreshes_the_copy(customer, provider_orders, provider_calls):
    order = provider_orders.register(customer, "invalidated.com")
    domain_orders.orders_list(customer=customer)
    before = provider_orders.at_provider(order).expires_at

    renewed = renewal_place(order=order, request=_request(before, duration=3))

    assert renewed.new_expires_at == before.replace(year=before.year + 3)
    order.refresh_from_db()
    assert order.expires_at == renewed.new_expires_at
    provider_calls.clear()
    listing = domain_orders.orders_list(customer=customer)
    assert provider_calls, "the listing was asked again"
    assert listing.rows[0].expires_at == renewed.new_expires_at


def test_an_out_of_range_duration_is_a_programming_error():
    with pytest.raises(ValueError, match="1 to 9"):
        renewal_place(order=Order(), request=_request(NOW, duration=10))


@pytest.mark.parametrize(
    ("expiry", "terms"),
    [
        (NOW + dt.timedelta(days=365), list(range(1, 10))),
        (NOW + dt.timedelta(days=365 * 8 + 10), [1]),
        (NOW + dt.timedelta(days=365 * 9 + 10), []),
        (NOW - dt.timedelta(days=20), list(range(1, 10))),  # expired: renewed from its expiry
    ],
)
def test_terms_keep_the_expiry_within_ten_years_of_today(expiry, terms, monkeypatch):
    monkeypatch.setattr("domains.orders.renewals.renew_min_term", lambda tld: 1)

    assert renew_terms(domain_name="a.com", expires_at=expiry, now=NOW) == terms


def test_terms_start_at_the_tld_minimum(monkeypatch):
    monkeypatch.setattr("domains.orders.renewals.renew_min_term", lambda tld: 2 if tld == "ai" else 1)

    assert renew_terms(domain_name="a.ai", expires_at=NOW, now=NOW)[0] == 2


def test_a_leap_day_moves_to_the_28th():
    assert add_years(dt.datetime(2028, 2, 29, tzinfo=dt.UTC), 1) == dt.datetime(2029, 2, 28, tzinfo=dt.UTC)


# --- Renew price ---------------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_renew_price_comes_from_the_tld_when_the_name_is_taken(customer, provider_orders):
    provider_orders.register(customer, "ownedname.io")

    quote = domain_orders.renew_pricing(domain_name="ownedname.io")

    # From our cost table (the demo catalogue renews .io at 49.99; the tests' settings add 1.50 a year).
    assert quote is not None
    assert quote.retail == Money(Decimal("51.49"), "USD")
    assert quote.cost == Money(Decimal("49.99"), "USD")
