"""What the endpoints built from the provider's "coming soon" list share with every other endpoint: both
environments, the bearer key, faults by scope, rate limits, request ids, 405 for another method."""

import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from sandbox.faults import inject
from sandbox.models import DomainOrder

from .conftest import SIGNUP, ApiClient

pytestmark = pytest.mark.django_db

DETAILS = {name: value for name, value in SIGNUP.items() if name != "password"}
REQUEST_ID = re.compile(r"^req_[0-9a-f]{32}$")


def _endpoints(customer_id: int, order_id: int) -> dict[str, tuple[str, str, dict[str, Any]]]:
    """Each endpoint with an answer it accepts: (method, path, query or body); the key is its fault scope."""
    return {
        "customer details (read)": ("GET", "/api/v1/customers/details", {"customer_id": customer_id}),
        "customer details (change)": ("PUT", "/api/v1/customers/details", {"customer_id": customer_id, **DETAILS}),
        "contacts (read)": ("GET", "/api/v1/contacts", {"order_id": order_id}),
        "contacts (set)": ("POST", "/api/v1/contacts", {"order_id": order_id, "contacts": {"tech": DETAILS}}),
        "privacy (purchase)": ("POST", "/api/v1/privacy-protection", {"order_id": order_id, "duration": 1}),
        "privacy (switch)": ("PUT", "/api/v1/privacy-protection", {"order_id": order_id, "enabled": True}),
        "domain details": ("GET", "/api/v1/domains/details", {"order_id": order_id}),
        "domain delete": ("POST", "/api/v1/domains/delete", {"order_id": order_id}),
        "transfer lock": ("PUT", "/api/v1/transfers/lock", {"order_id": order_id, "locked": False}),
    }


SCOPES = {
    "customer details (read)": "customers",
    "customer details (change)": "customers",
    "contacts (read)": "contacts",
    "contacts (set)": "contacts",
    "privacy (purchase)": "privacy",
    "privacy (switch)": "privacy",
    "domain details": "domains",
    "domain delete": "domains",
    "transfer lock": "transfers",
}


def call(client: ApiClient, method: str, path: str, data: dict[str, Any]):
    return client.get(path, data) if method == "GET" else client.send(method, path, data)


@pytest.fixture
def setup(make_customer) -> Callable[[ApiClient], SimpleNamespace]:
    """A customer with a domain (privacy bought, so that switching it is accepted) for the given client."""

    def make(client: ApiClient) -> SimpleNamespace:
        customer_id = make_customer(client=client)
        body = {"customer_id": customer_id, "domain_name": "common.com", "duration": 1}
        order_id = client.post("/api/v1/domains/register", body).json()["order_id"]
        assert client.post("/api/v1/privacy-protection", {"order_id": order_id, "duration": 1}).status_code == 200
        return SimpleNamespace(customer_id=customer_id, order_id=order_id, endpoints=_endpoints(customer_id, order_id))

    return make


@pytest.mark.parametrize("name", list(SCOPES))
def test_each_endpoint_answers_in_its_environment_only(api, live_api, partner, setup, name):
    partner.live_balance = 100
    partner.save()
    test, live = setup(api), setup(live_api)
    method, path, data = test.endpoints[name]
    answered = call(api, method, path, data)
    assert answered.status_code == 200, answered.content
    assert REQUEST_ID.match(answered["X-Request-Id"])
    assert answered["X-RateLimit-Limit"] == "10"
    # The same request in production names ids that exist only in the test environment.
    refused = call(live_api, method, path, data)
    assert refused.status_code == 422
    assert refused.json()["message"] in ("Invalid order ID", "Invalid customer ID")
    method, path, data = live.endpoints[name]
    assert call(live_api, method, path, data).status_code == 200
    # A test key on the production routes, or no key at all, is turned away before anything happens.
    assert call(ApiClient(api.key, root="/live"), method, path, data).json() == {"message": "environment_mismatch"}
    assert call(ApiClient(None), method, path, data).status_code == 401


@pytest.mark.parametrize("name", list(SCOPES))
def test_faults_reach_each_endpoint_through_its_scope(api, setup, name):
    method, path, data = setup(api).endpoints[name]
    with inject(error_rate=1.0, scope=SCOPES[name]):
        failed = call(api, method, path, data)
    assert failed.status_code == 500
    assert failed.json() == {"message": "Server Error."}
    with inject(error_200_message="Request could not be processed", scope=SCOPES[name]):
        refused = call(api, method, path, data)
    assert refused.status_code == 200
    assert refused.json() == {"status": "ERROR", "message": "Request could not be processed"}
    other = "register" if SCOPES[name] != "register" else "dns"
    with inject(error_rate=1.0, scope=other):
        assert call(api, method, path, data).status_code == 200


def test_a_delete_whose_answer_is_lost_still_happened(api, setup):
    """A malformed answer replaces the work's own: the change is made, and a client cannot read that it was."""
    order_id = setup(api).order_id
    with inject(malformed=True, scope="domains"):
        response = api.post("/api/v1/domains/delete", {"order_id": order_id})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    assert DomainOrder.objects.get(order_id=order_id).status == "Pending Delete Restorable"


@pytest.mark.parametrize("name", list(SCOPES))
def test_each_endpoint_counts_against_the_general_rate_limit(api, partner, setup, monkeypatch, name):
    method, path, data = setup(api).endpoints[name]
    # Every request in one Unix second, so the count does not depend on the machine's speed.
    monkeypatch.setattr("sandbox.ratelimit.time", SimpleNamespace(time=lambda: 1_800_000_000.25))
    partner.rate_limit = 1
    partner.save()
    answers = [call(api, method, path, data).status_code for _ in range(4)]
    assert answers[-1] == 429


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/v1/customers/details"),
        ("PUT", "/api/v1/contacts"),
        ("GET", "/api/v1/privacy-protection"),
        ("DELETE", "/api/v1/domains/details"),
        ("GET", "/api/v1/domains/delete"),
        ("POST", "/api/v1/transfers/lock"),
    ],
)
def test_another_method_is_405(api, method, path):
    response = api.get(path) if method == "GET" else api.send(method, path, {})
    assert response.status_code == 405


@pytest.mark.parametrize("path", ["/api/v1/contacts", "/api/v1/privacy-protection", "/api/v1/transfers/lock"])
def test_a_body_that_is_not_a_json_object_is_a_bad_request(api, path):
    method = "PUT" if path.endswith("lock") else "POST"
    response = api.client.generic(
        method, path, b"[1, 2]", content_type="application/json", headers={"Authorization": f"Bearer {api.key}"}
    )
    assert response.status_code == 400
