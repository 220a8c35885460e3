"""Fixtures of the order dashboard tests, on top of tests/domains/conftest.py (`customer`, `other_customer`,
`provider_calls`): domains bought at the in-memory provider and the provider-side changes time would bring.

Loaded by the test_order*.py modules through `pytest_plugins`.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts.models import Customer
from domains.models import Order
from storefront.gateway import gateway
from tests.conftest import CUSTOMER_PASSWORD
from tests.fakes.gateway import FakeGateway, FakeOrder


class ProviderOrders:
    def __init__(self, control: FakeGateway) -> None:
        self.control = control

    def register(self, customer: Customer, domain_name: str, duration: int = 1) -> Order:
        """Buy a domain at the provider and keep the local copy that checkout would keep."""
        assert customer.customer_id is not None
        registered = gateway().domain_register(
            customer_id=customer.customer_id, domain_name=domain_name, duration=duration
        )
        return Order.objects.create(order_id=registered.order_id, customer=customer, domain_name=domain_name)

    def at_provider(self, order: Order) -> FakeOrder:
        return self.control.order(order.order_id)

    def set_expiry_in_days(self, order: Order, days: float) -> None:
        when = timezone.now().replace(microsecond=0) + dt.timedelta(days=days)
        self.control.set_order(order.order_id, expires_at=when)

    def set_status(self, order: Order, status: str) -> None:
        self.control.set_order(order.order_id, status=status)


@pytest.fixture
def provider_orders(seeded_partner) -> ProviderOrders:
    return ProviderOrders(seeded_partner)


@pytest.fixture
def password() -> str:
    """The password of `customer` (tests/conftest.py), for the pages that ask for it again."""
    return CUSTOMER_PASSWORD


@pytest.fixture
def signed_in(client, customer):
    """The test client signed in as `customer`."""
    client.force_login(customer.user)
    return client
