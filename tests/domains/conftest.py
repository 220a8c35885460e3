"""Fixtures of the domains tests: the in-memory provider with the demo catalogue priced, a cart helper.

`customer` and `other_customer` are the shared ones (tests/conftest.py), signed up at the provider the test uses;
here `customer` comes with the demo catalogue priced (`seeded_partner` is the fake itself: arrange it, script its
failures, read its `calls`; a module that tests the HTTP boundary overrides it with the sandbox).
`provider_calls` (tests/conftest.py) is the fake's call log from the moment a test asks for it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

import pytest
from django.core import mail

from accounts.models import Customer
from domains.cart.basket import CartLine
from tests.fakes.gateway import FakeGateway
from tests.pricing.conftest import costs  # noqa: F401 - the cost-table factory, for tests that price


@pytest.fixture
def seeded_partner(fake_priced) -> FakeGateway:
    """The in-memory provider (tests/fakes/gateway.py) with the sandbox's demo catalogue, and our cost table synced
    from its price list (retail prices at the default markup: cost + 1.50 per year in the tests' settings)."""
    return fake_priced


@pytest.fixture
def customer(seeded_partner, customer) -> Customer:
    """The shared `customer`, with the catalogue priced first: the domain tests search, buy and renew."""
    return customer


def register_calls(calls: Iterable[tuple[str, dict[str, Any]]], domain_name: str | None = None) -> int:
    return sum(
        1 for name, kwargs in calls if name == "domain_register" and domain_name in (None, kwargs["domain_name"])
    )


def line(domain_name: str, **fields: Any) -> CartLine:
    """A cart line at the demo catalogue's .com retail price unless told otherwise (its cost, 12.99 then 14.99/yr,
    plus the tests' default markup of 1.50 per year); `price` is the total for the line's term."""
    values: dict[str, Any] = {
        "domain_name": domain_name,
        "duration": 1,
        "currency": "USD",
        "price": Decimal("14.49"),
        "renew": Decimal("16.49"),
        "terms": (1, 2, 3, 5, 10),
        "min_term": 1,
        "text": "$14.49 first year, then $16.49/yr",
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
