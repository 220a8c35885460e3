"""Fixtures of the DNS editor tests: customers signed up at the sandbox, their registered domains and the
local Order rows, and a counter of provider calls (the gateway still talks to the sandbox over HTTP)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from accounts.models import Customer
from domains.models import Order
from storefront.gateway import CustomerCreated, RecordType, Registered, ResellerGateway, Unavailable, gateway
from tests.sandbox_control import SandboxRecord, session_sandbox

PASSWORD = "Zones#Pass9"

T = TypeVar("T")

CONTACT = {
    "name": "Radia Perlman",
    "address": "3 Spanning Tree Way",
    "city": "Boston",
    "state": "Massachusetts",
    "country": "US",
    "zipcode": "02110",
    "country_code": "1",
    "phone": "6175550100",
}


def _patiently(attempt: Callable[[int], T]) -> T:
    """Setup through the provider, asked a second time if the answer was slow (a busy machine, a cold server).

    Each attempt uses a fresh name, so a first attempt that did go through leaves only a harmless orphan.
    """
    try:
        return attempt(0)
    except Unavailable:
        return attempt(1)


def make_customer(email: str) -> Customer:
    def signup(attempt: int) -> tuple[str, CustomerCreated]:
        address = email if attempt == 0 else f"retry{attempt}-{email}"
        return address, gateway().customer_signup(email=address, password=PASSWORD, **CONTACT)

    address, created = _patiently(signup)
    user = get_user_model().objects.create_user(username=address, email=address, password=PASSWORD)
    return Customer.objects.create(user=user, customer_id=created.customer_id, **CONTACT)


def register(customer: Customer, domain_name: str) -> Order:
    customer_id = customer.customer_id
    assert customer_id is not None

    def buy(attempt: int) -> tuple[str, Registered]:
        name = domain_name if attempt == 0 else f"retry{attempt}{domain_name}"
        return name, gateway().domain_register(customer_id=customer_id, domain_name=name, duration=1)

    name, registered = _patiently(buy)
    return Order.objects.create(order_id=registered.order_id, customer=customer, domain_name=name)


def unique_domain(prefix: str = "zone") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}.com"


def zone(order: Order) -> set[tuple[str, str, str]]:
    """The sandbox's records for the order, read through its control endpoint (no provider call is counted)."""
    return {(r.type, r.host, r.value) for r in session_sandbox().dns_records(order.order_id)}


def zone_record(order: Order, record_type: str, host: str, value: str) -> SandboxRecord | None:
    found = session_sandbox().dns_records(order.order_id, type=record_type, host=host, value=value)
    return found[0] if found else None


@dataclass
class ProviderCalls:
    calls: list[tuple[str, str, dict]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.calls)

    def count(self, method: str | None = None, path: str | None = None) -> int:
        return sum(
            1 for m, p, _ in self.calls if (method is None or m == method) and (path is None or p.endswith(path))
        )

    def record_types_read(self) -> list[str]:
        return [params.get("record_type", "") for m, p, params in self.calls if p.endswith("/dns/dns-records")]

    def clear(self) -> None:
        self.calls.clear()


@pytest.fixture
def provider_calls(monkeypatch) -> ProviderCalls:
    """Counts the gateway's calls (still made for real): request it last, after the fixtures that set up."""
    counter = ProviderCalls()
    original = ResellerGateway._call

    def counting(self, method, url, **kwargs):
        params = dict(kwargs.get("params") or ()) if method == "GET" else dict(kwargs.get("json_body") or {})
        counter.calls.append((method, url.split("?")[0], params))
        return original(self, method, url, **kwargs)

    monkeypatch.setattr(ResellerGateway, "_call", counting)
    return counter


@pytest.fixture
def demo_partner(sandbox_partner) -> str:
    """The sandbox's demo partner (its name), freshly seeded, with the gateway pointed at the sandbox."""
    return sandbox_partner


@pytest.fixture
def customer(demo_partner) -> Customer:
    return make_customer(f"dns-{uuid.uuid4().hex[:8]}@example.org")


@pytest.fixture
def order(customer) -> Order:
    """A registered domain whose DNS is not active yet."""
    return register(customer, unique_domain())


@pytest.fixture
def active_order(order) -> Order:
    gateway().dns_activate(order_id=order.order_id)
    order.dns_active = True
    order.save(update_fields=["dns_active"])
    return order


@pytest.fixture
def other_order(demo_partner) -> Order:
    """Another customer's domain, with DNS active: ours must never reach it."""
    other = make_customer(f"other-{uuid.uuid4().hex[:8]}@example.org")
    theirs = register(other, unique_domain("theirs"))
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
