"""The scheduled order sync: every customer's orders from the listing, paced, slowed (not failed) by a 429."""

from __future__ import annotations

import datetime as dt
import time as real_time
from types import SimpleNamespace
from typing import cast

import pytest
from django.test import override_settings
from django.utils import timezone

from domains.models import CustomerSync, Order
from domains.orders import sync
from domains.orders.tasks import sync_orders
from storefront.gateway import gateway, transport
from tests.fakes.gateway import FakeGateway, FakeOrder

pytestmark = pytest.mark.django_db(transaction=True)


class FakeTime:
    """The sync's clock and sleep: sleeping advances the clock; `on_sleep` runs on every sleep."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []
        self.on_sleep = lambda: None

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        self.on_sleep()


@pytest.fixture
def fake_time(monkeypatch) -> FakeTime:
    fake = FakeTime()
    monkeypatch.setattr(sync, "_clock", fake.clock)
    monkeypatch.setattr(sync, "_sleep", fake.sleep)
    # The gateway's shared Retry-After cooldown reads the wall clock: the sync's waiting must pass for it too.
    start = fake.now
    wall = SimpleNamespace(
        time=lambda: real_time.time() + (fake.now - start),
        monotonic=real_time.monotonic,
        sleep=real_time.sleep,
        perf_counter=real_time.perf_counter,
    )
    monkeypatch.setattr(transport, "time", wall)
    return fake


def bought(customer, name: str) -> FakeOrder:
    provider = cast(FakeGateway, gateway())  # the test's provider is the in-memory one (fake_gateway)
    registered = provider.domain_register(customer_id=customer.customer_id, domain_name=name, duration=1)
    return provider.order(registered.order_id)


def test_the_sync_copies_status_and_expiry_from_the_listing(customer, fake_time):
    at_provider = bought(customer, "synced-one.com")
    new_expiry = timezone.now().replace(microsecond=0) + dt.timedelta(days=12)
    gateway().set_order(at_provider.order_id, expires_at=new_expiry, status="Suspended")

    result = sync_orders.enqueue()

    assert result.return_value["failed"] == 0
    ours = Order.objects.get(order_id=at_provider.order_id)
    assert (ours.status, ours.expires_at, ours.customer) == ("Suspended", new_expiry, customer)
    assert CustomerSync.objects.get(customer=customer).last_success_at is not None


def test_a_rate_limited_provider_slows_the_sync_instead_of_failing_it(customer, fake_time):
    at_provider = bought(customer, "slowed-down.com")
    fake_time.on_sleep = lambda: gateway().heal()  # the provider recovers once we have waited

    with gateway().fault(rate_limited=True, scope="orders"):
        report = sync.orders_sync_all()

    assert report.rate_limited == 1
    assert report.failed == 0
    assert max(fake_time.sleeps) >= 2  # the provider's Retry-After: 2
    assert Order.objects.filter(order_id=at_provider.order_id).exists()
    state = CustomerSync.objects.get(customer=customer)
    assert (state.failures, state.last_error) == (0, "")


@override_settings(ORDER_SYNC_REQUESTS_PER_SECOND=5.0)
def test_calls_are_spaced_to_the_configured_rate(customer, other_customer, fake_time):
    bought(customer, "paced-a.com")
    bought(other_customer, "paced-b.com")
    sync.orders_sync_all()
    # Two customers, one page each: the second call waited a fifth of a second after the first.
    assert fake_time.sleeps == [pytest.approx(0.2)]


def test_a_customer_close_to_expiry_is_visited_more_often(customer, other_customer):
    now = timezone.now()
    Order.objects.create(
        order_id=810_001, customer=customer, domain_name="soon.com", expires_at=now + dt.timedelta(days=5)
    )
    Order.objects.create(
        order_id=810_002, customer=other_customer, domain_name="later.com", expires_at=now + dt.timedelta(days=300)
    )
    three_hours_ago = now - dt.timedelta(hours=3)
    for who in (customer, other_customer):
        CustomerSync.objects.create(customer=who, last_attempt_at=three_hours_ago)
    assert list(sync.customers_due_for_sync(now=now)) == [customer]
    assert set(sync.customers_due_for_sync(now=now + dt.timedelta(days=1))) == {customer, other_customer}


def test_an_unavailable_provider_is_recorded_for_staff(customer, fake_time):
    with gateway().fault(error_rate=1.0, scope="orders"):
        result = sync_orders.enqueue()
    assert result.return_value["failed"] == 1
    state = CustomerSync.objects.get(customer=customer)
    assert (state.failures, state.last_error) == (1, "Unavailable")
