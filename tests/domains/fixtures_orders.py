"""Fixtures of the order dashboard tests: customers signed up at the sandbox, their orders, a call counter.

Imported by the test_order*.py modules (tests/domains/conftest.py belongs to another area of the project).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from accounts.models import Customer
from domains.models import Order
from sandbox.management.commands.sandbox_seed import seed
from sandbox.models import DomainOrder, Partner
from storefront.gateway import ResellerGateway, gateway

PASSWORD = "Orders#Pass9"

CONTACT = {
    "name": "Grace Hopper",
    "address": "1 Navy Yard",
    "city": "Arlington",
    "state": "Virginia",
    "country": "US",
    "zipcode": "22202",
    "country_code": "1",
    "phone": "7035550100",
}


def make_customer(email: str) -> Customer:
    """A storefront customer with a matching customer account at the sandbox."""
    created = gateway().customer_signup(email=email, password=PASSWORD, **CONTACT)
    user = get_user_model().objects.create_user(username=email, email=email, password=PASSWORD)
    return Customer.objects.create(user=user, customer_id=created.customer_id, **CONTACT)


class SandboxOrders:
    """Domains bought at the sandbox for a customer, and the sandbox-side changes time would bring."""

    def register(self, customer: Customer, domain_name: str, duration: int = 1) -> Order:
        """Buy a domain at the sandbox and keep the local copy that checkout would keep."""
        registered = gateway().domain_register(
            customer_id=customer.customer_id, domain_name=domain_name, duration=duration
        )
        return Order.objects.create(order_id=registered.order_id, customer=customer, domain_name=domain_name)

    def at_sandbox(self, order: Order) -> DomainOrder:
        return DomainOrder.objects.get(order_id=order.order_id)

    def set_expiry_in_days(self, order: Order, days: float) -> None:
        when = timezone.now().replace(microsecond=0) + dt.timedelta(days=days)
        DomainOrder.objects.filter(order_id=order.order_id).update(expires_at=when)

    def set_status(self, order: Order, status: str) -> None:
        DomainOrder.objects.filter(order_id=order.order_id).update(status=status)


@pytest.fixture
def demo_partner(sandbox_url) -> Partner:
    return seed()


@pytest.fixture
def shop_customer(demo_partner) -> Customer:
    return make_customer("grace@example.org")


@pytest.fixture
def other_shop_customer(demo_partner) -> Customer:
    return make_customer("alan@example.org")


@pytest.fixture
def signed_in(client, shop_customer):
    client.force_login(shop_customer.user)
    return client


@pytest.fixture
def provider_calls(monkeypatch) -> list[str]:
    """Every provider request made through the gateway, as 'METHOD /path' (counting only: calls go through)."""
    calls: list[str] = []
    original: Callable = ResellerGateway._call

    def counting(self, method: str, url: str, **kwargs):
        calls.append(f"{method} {url.removeprefix(self.base_url)}")
        return original(self, method, url, **kwargs)

    monkeypatch.setattr(ResellerGateway, "_call", counting)
    return calls


@pytest.fixture
def sandbox_orders(demo_partner) -> SandboxOrders:
    return SandboxOrders()
