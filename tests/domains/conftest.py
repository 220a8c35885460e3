"""Fixtures of the domains tests: the seeded sandbox over HTTP, customers signed up at it, a cart helper.

`customer` and `other_customer` are storefront customers (User + accounts.Customer) with a real provider
customer_id from the sandbox. The sandbox runs in its own process (tests/conftest.py); its
state is arranged and read through `sandbox_control`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail

from accounts.models import Customer
from domains.cart import CartLine
from storefront.gateway import ResellerGateway, Unavailable, gateway
from tests.pricing.conftest import costs  # noqa: F401 - the cost-table factory, for tests that price

CUSTOMER_PASSWORD = "Checkout#Pass9"

CONTACT = {
    "name": "Ada Lovelace",
    "company": "Analytical Engines",
    "address": "12 St James's Square",
    "city": "London",
    "state": "England",
    "country": "GB",
    "zipcode": "SW1Y 4JH",
    "country_code": "44",
    "phone": "2079460000",
}


def make_customer(email: str | None = None, **contact: Any) -> Customer:
    """A storefront customer with a matching customer account at the sandbox (which must be up)."""
    details = {**CONTACT, **contact}
    for attempt in range(3):
        address = email or f"buyer-{uuid.uuid4().hex[:10]}@example.org"
        try:
            created = gateway().customer_signup(email=address, password=CUSTOMER_PASSWORD, **details)
            break
        except Unavailable:
            # A loaded machine can exceed the tests' 2 s read timeout; a fresh address avoids a half-done signup.
            if email or attempt == 2:
                raise
    email = address
    user = get_user_model().objects.create_user(username=email, email=email, password=CUSTOMER_PASSWORD)
    return Customer.objects.create(user=user, customer_id=created.customer_id, **details)


@pytest.fixture
def seeded_partner(sandbox_partner, priced) -> str:
    """The sandbox's demo partner (its name), freshly seeded, with the gateway pointed at the sandbox and our
    cost table synced from its price list (retail prices at the default markup: none in the tests' settings)."""
    return sandbox_partner


@pytest.fixture
def customer(seeded_partner) -> Customer:
    return make_customer()


@pytest.fixture
def other_customer(seeded_partner) -> Customer:
    return make_customer(name="Alan Turing")


@pytest.fixture
def provider_calls(monkeypatch) -> list[tuple[str, dict[str, Any]]]:
    """Every gateway call made during the test (method name and keyword arguments); the calls still go through."""
    calls: list[tuple[str, dict[str, Any]]] = []
    for name in [n for n in vars(ResellerGateway) if not n.startswith("_")]:
        original = getattr(ResellerGateway, name)
        if not callable(original) or isinstance(original, property):
            continue

        def spy(self, *args: Any, _name: str = name, _original: Callable = original, **kwargs: Any) -> Any:
            calls.append((_name, kwargs))
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(ResellerGateway, name, spy)
    return calls


def register_calls(calls: list[tuple[str, dict[str, Any]]], domain_name: str | None = None) -> int:
    return sum(
        1 for name, kwargs in calls if name == "domain_register" and domain_name in (None, kwargs["domain_name"])
    )


def line(domain_name: str, **fields: Any) -> CartLine:
    """A cart line at the demo catalogue's .com retail price (no markup in the tests' settings) unless told
    otherwise; `price` is the total for the line's term."""
    values: dict[str, Any] = {
        "domain_name": domain_name,
        "duration": 1,
        "currency": "USD",
        "price": Decimal("12.99"),
        "renew": Decimal("14.99"),
        "terms": (1, 2, 3, 5, 10),
        "min_term": 1,
        "text": "$12.99 first year, then $14.99/yr",
    }
    values.update(fields)
    return CartLine(**values)


def put_in_cart(client, *lines: CartLine) -> None:
    session = client.session
    cart = session.get("cart", {})
    for item in lines:
        cart[item.domain_name] = item.as_session()
    session["cart"] = cart
    session.save()


def cart_of(client) -> dict[str, Any]:
    return client.session.get("cart", {})


def wait_for_mail(count: int = 1, seconds: float = 3.0) -> list:
    """The mail sent so far (the worker runs tasks at once in tests; waiting covers on-commit hand-offs)."""
    deadline = time.monotonic() + seconds
    while len(mail.outbox) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return mail.outbox
