"""The scheduled order sync: near orders on their own and every listing on a slower cycle, in tasks that workers
share, paced, slowed (not failed) by a 429, long listings continued across tasks."""

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
from domains.orders.tasks import sync_orders, sync_orders_batch
from storefront.gateway import gateway, transport
from storefront.queues import QUEUES
from tests.fakes.gateway import CallLog, FakeGateway, FakeOrder

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

    assert result.return_value["walks"] == 1
    ours = Order.objects.get(order_id=at_provider.order_id)
    assert (ours.status, ours.expires_at, ours.customer) == ("Suspended", new_expiry, customer)
    state = CustomerSync.objects.get(customer=customer)
    assert state.last_success_at is not None
    # Read again on the slow cycle, not at the next run.
    assert state.walk_due_at > timezone.now() + dt.timedelta(hours=20)
    assert sync.orders_sync_plan().batches == []


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


@override_settings(ORDER_SYNC_REQUESTS_PER_SECOND=2.0)
def test_all_workers_together_keep_to_the_rate(customer, fake_time, monkeypatch):
    # Two workers' paces, each spacing its own calls: the per-second count they share holds the third call of the
    # same second back to the next one.
    second = real_time.time()
    monkeypatch.setattr(sync.time, "time", lambda: second)

    def next_second_after_the_spacing() -> None:
        if len(fake_time.sleeps) >= 2:
            monkeypatch.setattr(sync.time, "time", lambda: second + 1)

    fake_time.on_sleep = next_second_after_the_spacing
    first, other = sync.Pace(rate=2.0), sync.Pace(rate=2.0)
    first.wait()
    other.wait()
    assert fake_time.sleeps == []
    first.wait()
    assert fake_time.sleeps[0] == pytest.approx(0.5)  # its own spacing
    assert len(fake_time.sleeps) == 2  # then the shared second was full: it waited for the next


def test_orders_near_expiry_are_refreshed_on_their_own_and_far_ones_wait_for_the_walk(customer, other_customer):
    now = timezone.now()
    soon = Order.objects.create(
        order_id=810_001,
        customer=customer,
        domain_name="soon.com",
        expires_at=now + dt.timedelta(days=2),
        last_synced_at=now - dt.timedelta(hours=3),
    )
    Order.objects.create(
        order_id=810_002,
        customer=other_customer,
        domain_name="later.com",
        expires_at=now + dt.timedelta(days=300),
        last_synced_at=now - dt.timedelta(hours=3),
    )
    for who in (customer, other_customer):
        CustomerSync.objects.create(customer=who, walk_due_at=now + dt.timedelta(hours=12))

    plan = sync.orders_sync_plan(now=now)
    assert (plan.walks, plan.near_orders, plan.batches) == (0, 1, [([], [soon.pk])])
    # Refreshed a moment ago: not again before ORDER_SYNC_EVERY_HOURS_NEAR.
    Order.objects.filter(pk=soon.pk).update(last_synced_at=now)
    assert sync.orders_sync_plan(now=now).batches == []
    # A day later both listings are due for their walk.
    plan = sync.orders_sync_plan(now=now + dt.timedelta(days=1))
    assert plan.walks == 2


def test_a_near_order_is_refreshed_with_one_call(customer, fake_time, fake_gateway):
    at_provider = bought(customer, "renewed-elsewhere.com")
    later = timezone.now().replace(microsecond=0) + dt.timedelta(days=366)
    gateway().set_order(at_provider.order_id, expires_at=later)
    ours = Order.objects.create(
        order_id=at_provider.order_id,
        customer=customer,
        domain_name="renewed-elsewhere.com",
        expires_at=timezone.now() + dt.timedelta(days=1),
    )
    calls = CallLog(fake_gateway)

    report = sync.orders_sync_batch(customer_pks=[], order_pks=[ours.pk])

    assert report.orders_refreshed == 1
    assert calls.names() == ["domain_orders"]
    ours.refresh_from_db()
    assert ours.expires_at == later


def test_a_long_listing_is_synced_in_full_across_tasks(customer, fake_time, monkeypatch):
    monkeypatch.setattr(sync, "PAGES_PER_TASK", 2)
    names = [f"many{i}.com" for i in range(45)]  # five pages of ten
    for name in names:
        bought(customer, name)
    Order.objects.all().delete()

    sync_orders.enqueue()  # the walk stops after two pages and enqueues the rest: three tasks in all

    assert set(Order.objects.values_list("domain_name", flat=True)) == set(names)
    state = CustomerSync.objects.get(customer=customer)
    assert (state.walk_page, state.listed_orders, state.failures) == (1, 45, 0)
    assert state.walk_due_at > timezone.now()


def test_a_pass_is_cut_into_tasks_that_workers_share(customer, other_customer, monkeypatch):
    monkeypatch.setattr(sync, "BATCH_CALLS", 1)
    plan = sync.orders_sync_plan()
    assert sorted(plan.batches) == sorted([([customer.pk], []), ([other_customer.pk], [])])


def test_a_pass_is_not_planned_again_while_its_tasks_wait(customer, other_customer):
    with override_settings(TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": list(QUEUES)}}):
        first = sync_orders.call()
        again = sync_orders.call()
    assert first["planned"] == 1
    assert again == {"planned": 0, "waiting": 1}


def test_the_plan_keeps_to_what_the_pace_allows_in_a_period(customer, other_customer):
    plan = sync.orders_sync_plan(max_calls=1)
    assert (plan.walks, plan.calls) == (1, 1)


def test_an_unavailable_provider_is_recorded_for_staff(customer, fake_time):
    with gateway().fault(error_rate=1.0, scope="orders"):
        result = sync_orders_batch.enqueue(customer_pks=[customer.pk], order_pks=[])
    assert result.return_value["failed"] == 1
    state = CustomerSync.objects.get(customer=customer)
    assert (state.failures, state.last_error) == (1, "Unavailable")
    # Tried again within the quarter hour, not after a day.
    assert state.walk_due_at < timezone.now() + dt.timedelta(minutes=16)


def test_a_page_of_the_listing_is_written_in_a_few_queries(customer):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from domains.orders.services import orders_sync
    from storefront.gateway import Order as ListedOrder

    later = timezone.now().replace(microsecond=0) + dt.timedelta(days=400)
    for i in range(10):
        Order.objects.create(order_id=820_000 + i, customer=customer, domain_name=f"page{i}.com")
    page = [
        ListedOrder(
            order_id=820_000 + i,
            domain_name=f"page{i}.com",
            status="Active",
            expiry=f"{later:%b} {later.day}, {later.year}",
            expiry_timestamp=int(later.timestamp()),
        )
        for i in range(12)  # ten known, two new
    ]
    with CaptureQueriesContext(connection) as captured:
        orders_sync(customer=customer, orders=page)
    control = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT")
    statements = [query["sql"] for query in captured.captured_queries if not query["sql"].startswith(control)]
    assert len(statements) == 3, statements  # one read, one bulk update, one bulk insert
    assert Order.objects.filter(customer=customer, expires_at=later).count() == 12
