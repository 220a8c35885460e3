"""Bearer keys: the contract's authentication table, environments, the two-active-keys limit, hello."""

import datetime as dt
import re

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from sandbox.models import LIVE, TEST, ApiKey, hash_secret

from .conftest import ApiClient, without_request_id

pytestmark = pytest.mark.django_db


def test_hello_answers_authorized_with_server_time(api):
    response = api.get("/api/v1/hello")
    assert response.status_code == 200
    body = response.json()
    assert body["message"] == "Authorized"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", body["server_time"])


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "Bearer",
        "Bearer ",
        "Basic dGVzdDp0ZXN0",
        "test_sandbox_demo",
        "Bearer nonsense",
        "Bearer test_unknown",
    ],
)
def test_missing_malformed_or_unknown_keys_get_401_unauthorized(partner, client, header):
    headers = {"Authorization": header} if header is not None else {}
    response = without_request_id(client.get("/api/v1/hello", headers=headers))
    assert response.status_code == 401
    assert response.json() == {"message": "Unauthorized"}


def test_it_tolerates_nk_prefixed_keys(partner):
    _, plaintext = ApiKey.issue(partner=partner, plaintext="nk_test_abcdef123456")
    assert ApiClient(plaintext).get("/api/v1/hello").status_code == 200


def test_revoked_key_gets_key_revoked(partner):
    key, plaintext = ApiKey.issue(partner=partner)
    key.revoke()
    response = ApiClient(plaintext).get("/api/v1/hello")
    assert response.status_code == 401
    assert response.json() == {"message": "key_revoked"}


def test_expired_key_gets_key_expired(partner):
    key, plaintext = ApiKey.issue(partner=partner)
    key.expires_at = timezone.now() - dt.timedelta(seconds=1)
    key.save()
    response = ApiClient(plaintext).get("/api/v1/hello")
    assert response.status_code == 401
    assert response.json() == {"message": "key_expired"}


def test_test_key_against_production_is_environment_mismatch(api):
    response = ApiClient(api.key, root="/live").get("/api/v1/hello")
    assert response.status_code == 403
    assert response.json() == {"message": "environment_mismatch"}


def test_live_key_against_sandbox_is_environment_mismatch(live_api):
    assert live_api.get("/api/v1/hello").status_code == 200
    response = ApiClient(live_api.key, root="").get("/api/v1/hello")
    assert response.status_code == 403
    assert response.json() == {"message": "environment_mismatch"}


def test_inactive_partner_is_forbidden(partner, api):
    partner.is_active = False
    partner.save()
    response = api.get("/api/v1/hello")
    assert response.status_code == 403
    assert response.json() == {"message": "Forbidden"}


def test_keys_are_stored_as_hash_and_prefix_only(partner):
    key, plaintext = ApiKey.issue(partner=partner, environment=LIVE)
    assert plaintext.startswith("live_")
    stored = ApiKey.objects.get(pk=key.pk)
    assert stored.key_hash == hash_secret(plaintext)
    assert stored.prefix == plaintext[:12]
    assert stored.environment == LIVE
    assert plaintext not in {str(value) for value in stored.__dict__.values()}


def test_at_most_two_active_keys_per_partner_and_environment(partner):
    # The seed holds one active test key; a second fits, a third does not.
    second, _ = ApiKey.issue(partner=partner, environment=TEST)
    with pytest.raises(ValidationError):
        ApiKey.issue(partner=partner, environment=TEST)
    second.revoke()
    ApiKey.issue(partner=partner, environment=TEST)
    # Live keys count separately.
    ApiKey.issue(partner=partner, environment=LIVE)
    ApiKey.issue(partner=partner, environment=LIVE)
    assert ApiKey.objects.active().filter(partner=partner).count() == 4


def test_a_key_needs_a_known_prefix(partner):
    with pytest.raises(ValidationError):
        ApiKey.issue(partner=partner, plaintext="prod_abcdef")


def test_wrong_method_is_405(api):
    response = api.post("/api/v1/hello")
    assert response.status_code == 405


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("PUT", "/api/v1/domains/auto-renew"),
        ("DELETE", "/api/v1/customers"),
        ("GET", "/api/v1/transfers"),
        ("GET", "/api/v1/transfers/status"),
    ],
)
def test_announced_endpoints_answer_200_when_authenticated(api, method, path):
    response = api.get(path) if method == "GET" else api.send(method, path, {})
    assert response.status_code == 200
    assert response.json()["status"] == "SUCCESS"
    unauthenticated = ApiClient(None)
    anonymous = unauthenticated.get(path) if method == "GET" else unauthenticated.send(method, path, {})
    assert anonymous.status_code == 401


def test_seed_is_idempotent(partner):
    from sandbox.management.commands.sandbox_seed import seed

    again = seed()
    assert again == partner
    assert ApiKey.objects.filter(partner=partner).count() == 1
    assert partner.catalogue.count() >= 8
    assert partner.catalogue.first().tld == "com"
