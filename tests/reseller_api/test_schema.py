"""The API against its own OpenAPI description (/api/v1/openapi.json): schemathesis reads the description the store
serves, generates requests from it, sends them in process through the whole Django stack (WSGI: no server), and
checks every answer (status documented, body matching its schema, no 500, auth not ignored, invalid input refused).
A bounded number of examples per operation, to stay fast.

The description is loaded when the module is collected (schemathesis' fixture-based loader reaches into a pytest
attribute that pytest 9.2 no longer has): serving it reads nothing from the database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings

from tests.factories import CustomerFactory, OrderFactory
from tests.reseller_api.conftest import payment_make

# Every check but one: a method no page of the site takes (PUT, DELETE, OPTIONS…) is refused by the site-wide guard
# (storefront.requests.middleware.RequestGuardMiddleware) before any view, with a 405 whose Allow lists what the site
# takes (GET, HEAD, POST), not what one API path does. The 405 itself is checked in tests/test_access.py.
CONFIG = schemathesis.Config.from_dict({"checks": {"allow_header_conformance": {"enabled": False}}})
schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", get_wsgi_application(), config=CONFIG)


@pytest.fixture
def in_process(db, settings) -> Iterator[None]:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "api": (0, 60)}  # many requests from one key here
    # Django's WSGI handler closes the database connection as each request ends, which would close the test's own
    # (its rows live in the test's transaction); Django's test client disconnects the same receiver for its requests.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def seeded(in_process, write_key) -> str:
    """A customer with a domain, a payment and its ledger entry, so lists and details answer with rows; the key."""
    customer = CustomerFactory.create()
    OrderFactory.create(customer=customer, order_id=1)
    payment_make(customer)
    return write_key.secret


def test_the_schema_is_served_without_a_key(client):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    assert set(paths) == {
        "/api/v1/customers", "/api/v1/customers/{customer_id}", "/api/v1/domains", "/api/v1/domains/{order_id}",
        "/api/v1/domains/{order_id}/auto-renew", "/api/v1/payments", "/api/v1/ledger", "/api/v1/activity",
    }  # fmt: skip
    assert response.json()["components"]["securitySchemes"] == {"ApiKeyBearer": {"type": "http", "scheme": "bearer"}}


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=12, deadline=None, database=None, suppress_health_check=list(HealthCheck))
def test_every_answer_matches_the_schema(case, seeded):
    case.call_and_validate(headers={"Authorization": f"Bearer {seeded}"})
