"""Fixtures of the account tests: valid signup details, the in-memory provider, customers of ours only (the shared
`customer`, tests/conftest.py, is also signed up at the provider)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accounts.models import Customer
from tests.factories import CONTACT, CustomerFactory
from tests.fakes.gateway import FakeGateway

# The signup form filled in as Ada would (the factories' contact details, without a company).
VALID = {
    **CONTACT,
    "company": "",
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
    """Customers of ours only, with the email they sign in with (VALID's password): their provider customer_id is one
    no provider was asked for, or the one given (None: a signup whose answer was lost)."""

    def make(email: str = "", *, password: str = VALID["password"], **fields: Any) -> Customer:
        return CustomerFactory.create(password=password, **({"email": email} if email else {}), **fields)

    return make
