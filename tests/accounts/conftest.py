"""Fixtures of the account tests: valid signup details, the in-memory provider, customers of ours only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accounts.models import Customer
from tests.factories import CustomerFactory, UserFactory
from tests.fakes.gateway import FakeGateway

VALID = {
    "name": "Ada Lovelace",
    "company": "",
    "address": "12 St James's Square",
    "city": "London",
    "state": "England",
    "country": "GB",
    "zipcode": "SW1Y 4JH",
    "country_code": "44",
    "phone": "2079460000",
    "email": "ada@example.org",
    "password": "Engine#1843x",
    "password2": "Engine#1843x",
}


@pytest.fixture
def seeded(fake_priced) -> FakeGateway:
    """The in-memory provider (tests/fakes/gateway.py) with the demo catalogue, our cost table synced from it."""
    return fake_priced


@pytest.fixture
def make_local_customer(db) -> Callable[..., Customer]:
    """Customers of ours only (factories): their provider customer_id is one no provider was asked for."""

    def make(email: str = "", *, password: str = VALID["password"], customer_id: int | None = None, **fields: Any):
        user = UserFactory(password=password, **({"email": email, "username": email.lower()} if email else {}))
        return CustomerFactory(user=user, **({"customer_id": customer_id} if customer_id is not None else {}), **fields)

    return make
