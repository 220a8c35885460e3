"""Fixtures of the account tests: valid signup details, a seeded sandbox, a spy on provider calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from accounts.models import Customer
from storefront.gateway import ResellerGateway

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

PROVIDER_METHODS = [
    name for name in vars(ResellerGateway) if not name.startswith("_") and callable(getattr(ResellerGateway, name))
]


@pytest.fixture
def provider_calls(monkeypatch) -> list[str]:
    """Names of the gateway methods called during the test; the calls still go through."""
    calls: list[str] = []
    for name in PROVIDER_METHODS:
        original = getattr(ResellerGateway, name)

        def spy(self, *args: Any, _name: str = name, _original: Callable = original, **kwargs: Any) -> Any:
            calls.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(ResellerGateway, name, spy)
    return calls


@pytest.fixture
def seeded(sandbox_url) -> str:
    """The sandbox over HTTP with its demo partner (`sandbox_url` resets and seeds it)."""
    return sandbox_url


@pytest.fixture
def make_customer(db) -> Callable[..., Customer]:
    counter = iter(range(1, 10_000))

    def make(email: str = "", *, password: str = "Engine#1843x", customer_id: int | None = None, **fields: Any):
        n = next(counter)
        email = email or f"customer{n}@example.org"
        user = get_user_model().objects.create_user(username=email.lower(), email=email, password=password)
        details = {k: v for k, v in VALID.items() if k not in ("email", "password", "password2")}
        details.update(fields)
        return Customer.objects.create(
            user=user, customer_id=customer_id if customer_id is not None else 10_000_000 + n, **details
        )

    return make
