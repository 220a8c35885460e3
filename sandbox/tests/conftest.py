"""Fixtures of the sandbox tests: the seeded demo partner, clients that carry a key, helpers for customers."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from sandbox.management.commands.sandbox_seed import seed
from sandbox.models import LIVE, ApiKey, CatalogueTld, Partner

SIGNUP = {
    "name": "Ada Lovelace",
    "company": "Analytical Engines",
    "address": "12 St James's Square",
    "city": "London",
    "state": "England",
    "country": "GB",
    "zipcode": "SW1Y 4JH",
    "country_code": "44",
    "phone": "2079460000",
    "email": "ada@example.org",
    "password": "Engine#1843x",
}


def without_request_id(response):
    """Error bodies carry the answer's `request_id` (test_documented_request_id.py checks it is there): here it
    must equal the X-Request-Id header, and is then taken out so that tests compare the rest of a body exactly."""
    parse = response.json

    def json(**kwargs):
        body = parse(**kwargs)
        if isinstance(body, dict) and "request_id" in body:
            assert body.pop("request_id") == response["X-Request-Id"]
        return body

    response.json = json
    return response


class ApiClient:
    """Django's test client with a bearer key and JSON bodies, rooted at one sandbox environment."""

    def __init__(self, key: str | None, root: str = "") -> None:
        self.client = Client()
        self.key = key
        self.root = root

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"} if self.key is not None else {}

    def get(self, path: str, params: Any = None):
        return without_request_id(self.client.get(self.root + path, params or {}, headers=self._headers()))

    def send(self, method: str, path: str, body: Any = None):
        data = json.dumps(body if body is not None else {})
        call = getattr(self.client, method.lower())
        return without_request_id(
            call(self.root + path, data, content_type="application/json", headers=self._headers())
        )

    def post(self, path: str, body: Any = None):
        return self.send("POST", path, body)

    def put(self, path: str, body: Any = None):
        return self.send("PUT", path, body)

    def delete(self, path: str, body: Any = None):
        return self.send("DELETE", path, body)


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings) -> None:
    """Customers' passwords hashed the quick way, as in the storefront's suite: the real hasher spent most of the
    suite's time on signups (110 s for the suite before, 25 s after, on this 2-core machine)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def partner(db) -> Partner:
    return seed()


@pytest.fixture
def api(partner) -> ApiClient:
    return ApiClient(settings.SANDBOX_DEMO_KEY)


@pytest.fixture
def other_partner(db) -> Partner:
    other = Partner.objects.create(name="Other Reseller", test_balance=1000)
    CatalogueTld.objects.create(partner=other, tld="net", position=0, register_price=10, renew_price=10)
    CatalogueTld.objects.create(partner=other, tld="com", position=1, register_price=11, renew_price=11)
    return other


@pytest.fixture
def other_api(other_partner) -> ApiClient:
    _, plaintext = ApiKey.issue(partner=other_partner, label="other")
    return ApiClient(plaintext)


@pytest.fixture
def live_api(partner) -> ApiClient:
    _, plaintext = ApiKey.issue(partner=partner, environment=LIVE, label="live")
    return ApiClient(plaintext, root="/live")


@pytest.fixture
def make_customer(api) -> Callable[..., int]:
    def make(client: ApiClient | None = None, **fields: Any) -> int:
        body = {**SIGNUP, **fields}
        response = (client or api).post("/api/v1/customers/signup", body)
        assert response.status_code == 201, response.content
        return response.json()["customer_id"]

    return make


@pytest.fixture
def customer_id(make_customer) -> int:
    return make_customer()
