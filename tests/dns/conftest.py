"""Fixtures of the DNS editor tests: domains registered at the in-memory provider (tests/fakes/gateway.py) for the
shared `customer` (tests/conftest.py) and for another, and the local Order rows. `provider_calls`
(tests/conftest.py) logs the provider's calls."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Customer
from domains.models import Order
from storefront.gateway import RecordType, gateway
from tests.fakes.gateway import FakeGateway, FakeRecord


def register(customer: Customer, domain_name: str) -> Order:
    assert customer.customer_id is not None
    registered = gateway().domain_register(customer_id=customer.customer_id, domain_name=domain_name, duration=1)
    return Order.objects.create(order_id=registered.order_id, customer=customer, domain_name=domain_name)


def unique_domain(prefix: str = "zone") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}.com"


def zone(order: Order) -> set[tuple[str, str, str]]:
    """The provider's records for the order, as it holds them (read without a logged call)."""
    return {(r.type, r.host, r.value) for r in _fake().zone_records(order.order_id)}


def zone_record(order: Order, record_type: str, host: str, value: str) -> FakeRecord | None:
    found = _fake().zone_records(order.order_id, type=record_type, host=host, value=value)
    return found[0] if found else None


def _fake() -> FakeGateway:
    provider = gateway()
    assert isinstance(provider, FakeGateway), "the DNS tests run on the in-memory provider (fake_gateway)"
    return provider


@pytest.fixture
def demo_partner(fake_gateway, db) -> FakeGateway:
    """The in-memory provider with the sandbox's demo catalogue, in place of the HTTP client."""
    return fake_gateway


@pytest.fixture
def order(demo_partner, customer) -> Order:
    """A registered domain whose DNS is not active yet."""
    return register(customer, unique_domain())


@pytest.fixture
def active_order(order) -> Order:
    gateway().dns_activate(order_id=order.order_id)
    order.dns_active = True
    order.save(update_fields=["dns_active"])
    return order


@pytest.fixture
def other_order(demo_partner, other_customer) -> Order:
    """Another customer's domain, with DNS active: ours must never reach it."""
    theirs = register(other_customer, unique_domain("theirs"))
    gateway().dns_activate(order_id=theirs.order_id)
    theirs.dns_active = True
    theirs.save(update_fields=["dns_active"])
    return theirs


@pytest.fixture
def signed_in(client: Client, customer: Customer) -> Client:
    client.force_login(customer.user)
    return client


@pytest.fixture
def htmx(signed_in: Client) -> Client:
    """The signed-in client, sending what htmx sends."""
    signed_in.defaults["HTTP_HX_REQUEST"] = "true"
    return signed_in


@pytest.fixture
def add_record(active_order) -> Callable[..., None]:
    """Put a record in the zone through the gateway, as an earlier visit to the editor would have."""

    def add(record_type: RecordType, host: str, value: str, **options) -> None:
        gateway().dns_record_add(
            order_id=active_order.order_id, record_type=record_type, host=host, value=value, **options
        )

    return add


def url(name: str, order: Order, query: str = "") -> str:
    return reverse(name, args=[order.order_id]) + (f"?{query}" if query else "")
