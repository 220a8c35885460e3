"""Every answer carries a request id (the go-live checklist asks integrators to log the `request_id` of every
response): an X-Request-Id header on every answer, and a `request_id` field in JSON error bodies."""

import json
import re

import pytest

from sandbox.faults import inject

pytestmark = pytest.mark.django_db

REQUEST_ID = re.compile(r"^req_[0-9a-f]{32}$")


def raw(api, method, path, body=None, **params):
    """The answer as it comes off the wire (ApiClient hides the body's request_id to compare bodies)."""
    headers = {"Authorization": f"Bearer {api.key}"} if api.key else {}
    if method == "GET":
        return api.client.get(api.root + path, params, headers=headers)
    call = getattr(api.client, method.lower())
    return call(api.root + path, json.dumps(body or {}), content_type="application/json", headers=headers)


def test_a_success_carries_the_header_only(api):
    response = raw(api, "GET", "/api/v1/hello")
    assert response.status_code == 200
    assert REQUEST_ID.match(response["X-Request-Id"])
    assert "request_id" not in response.json()


def test_each_answer_has_its_own_id(api):
    ids = {raw(api, "GET", "/api/v1/hello")["X-Request-Id"] for _ in range(5)}
    assert len(ids) == 5


def test_a_refusal_carries_it_in_header_and_body(api):
    response = raw(api, "POST", "/api/v1/domains/register", {"customer_id": 1, "domain_name": "a.com", "duration": 1})
    assert response.status_code == 422
    body = response.json()
    assert body["message"] == "Invalid customer ID"
    assert REQUEST_ID.match(body["request_id"])
    assert body["request_id"] == response["X-Request-Id"]


@pytest.mark.parametrize(
    ("key", "path", "params", "status", "field"),
    [
        (None, "/api/v1/hello", {}, 401, "message"),
        ("demo", "/api/v1/domains/availability", {}, 422, "message"),
        ("demo", "/metasearch/v1/search", {}, 400, "error"),
        (None, "/metasearch/v1/search", {"search_term": "tea"}, 401, "error"),
    ],
)
def test_errors_of_every_shape_carry_it(api, key, path, params, status, field):
    api.key = api.key if key else None
    response = raw(api, "GET", path, **params)
    assert response.status_code == status
    body = response.json()
    assert body[field]
    assert body["request_id"] == response["X-Request-Id"]


def test_wrong_method_and_faults_carry_it(api):
    wrong = raw(api, "POST", "/api/v1/hello")
    assert wrong.status_code == 405
    assert wrong.json()["request_id"] == wrong["X-Request-Id"]
    with inject(error_rate=1.0):
        failed = raw(api, "GET", "/api/v1/hello")
    assert failed.status_code == 500
    assert failed.json() == {"message": "Server Error.", "request_id": failed["X-Request-Id"]}
    with inject(error_200_message="Nope"):
        refused = raw(api, "GET", "/api/v1/hello")
    assert refused.json() == {"status": "ERROR", "message": "Nope", "request_id": refused["X-Request-Id"]}


def test_a_malformed_answer_keeps_its_body_and_still_has_the_header(api):
    with inject(malformed=True):
        response = raw(api, "GET", "/api/v1/hello")
    assert response.content.startswith(b"<html>")
    assert REQUEST_ID.match(response["X-Request-Id"])


def test_metasearch_results_carry_the_header(api):
    response = raw(api, "GET", "/metasearch/v1/search", search_term="tea")
    assert response.status_code == 200
    assert REQUEST_ID.match(response["X-Request-Id"])
    assert "request_id" not in response.json()


def test_an_unexpected_failure_is_logged_with_the_id_the_client_got(api, monkeypatch, caplog):
    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("sandbox.views.search.Catalogue", explode)
    response = raw(api, "GET", "/api/v1/domains/availability", search_term="tea")
    assert response.status_code == 500
    request_id = response.json()["request_id"]
    assert request_id == response["X-Request-Id"]
    assert any(request_id in record.getMessage() for record in caplog.records)
