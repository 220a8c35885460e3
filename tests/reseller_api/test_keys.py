"""API keys: stored hashed, found by prefix, scoped, revocable, last use kept; a key is the only way in."""

from __future__ import annotations

import hashlib

import pytest

from accounts.models import Activity
from domains.models import Order
from reseller_api.keys import api_key_find, api_keys_revoke
from reseller_api.models import ApiKey
from tests.factories import CustomerFactory, OrderFactory

pytestmark = pytest.mark.django_db


def test_the_key_is_stored_only_as_its_hash(read_key):
    row = ApiKey.objects.get(pk=read_key.key.pk)
    assert read_key.secret.startswith(f"rsk_{row.prefix}_")
    assert row.secret_hash == hashlib.sha256(read_key.secret.encode()).hexdigest()
    secret_part = read_key.secret.rsplit("_", 1)[-1]
    stored = " ".join(str(value) for value in ApiKey.objects.filter(pk=row.pk).values().get().values())
    assert secret_part not in stored and read_key.secret not in stored


def test_a_key_is_found_only_whole(read_key):
    assert api_key_find(read_key.secret) == read_key.key
    assert api_key_find(read_key.secret[:-1] + ("A" if read_key.secret[-1] != "A" else "B")) is None
    assert api_key_find(f"rsk_{read_key.key.prefix}_") is None
    assert api_key_find("rsk_") is None
    assert api_key_find(read_key.secret.removeprefix("rsk_")) is None


def test_two_keys_never_share_a_prefix(make_key):
    keys = [make_key(f"system {n}") for n in range(5)]
    assert len({issued.key.prefix for issued in keys}) == 5


@pytest.mark.parametrize(
    "header", [None, "Bearer", "Bearer ", "Bearer rsk_nope_nope", "Basic dXNlcjpwYXNz", "Token {secret}", "{secret}"]
)
def test_without_a_valid_bearer_key_it_is_401(client, read_key, header):
    headers = {"Authorization": header.format(secret=read_key.secret)} if header else {}
    response = client.get("/api/v1/customers", headers=headers)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Bearer"
    assert response.json() == {"detail": "A valid API key is needed: Authorization: Bearer …"}


def test_a_revoked_key_is_401_from_its_next_request(api, read_key):
    assert api.get("/customers").status_code == 200
    assert api_keys_revoke(keys=[read_key.key]) == 1
    assert api.get("/customers").status_code == 401
    assert ApiKey.objects.get(pk=read_key.key.pk).revoked_at is not None


def test_a_signed_in_customer_or_staff_session_opens_nothing(client, admin_user):
    customer = CustomerFactory.create()
    client.force_login(customer.user)
    assert client.get("/api/v1/customers").status_code == 401
    client.force_login(admin_user)
    assert client.get("/api/v1/customers").status_code == 401


def test_a_read_key_is_refused_the_write(client, read_key):
    order = OrderFactory.create(auto_renew=True)
    response = client.post(
        f"/api/v1/domains/{order.order_id}/auto-renew",
        {"auto_renew": False},
        content_type="application/json",
        headers={"Authorization": f"Bearer {read_key.secret}"},
    )
    assert response.status_code == 403
    assert "may only read" in response.json()["detail"]
    assert Order.objects.get(pk=order.pk).auto_renew is True
    assert not Activity.objects.filter(action="auto_renew_off").exists()


def test_a_write_key_reads_too(write_api):
    assert write_api.get("/customers").status_code == 200


def test_each_use_is_logged_with_the_keys_name_and_its_time_kept(api, read_key):
    assert ApiKey.objects.get(pk=read_key.key.pk).last_used_at is None
    api.get("/payments", month="2026-11")
    row = Activity.objects.get(action="api_request")
    assert row.actor == Activity.Actor.STAFF
    assert row.actor_name == "API key: Accounting sync"
    assert row.detail == {"key_name": "Accounting sync", "method": "GET", "path": "/api/v1/payments?month=2026-11"}
    assert row.customer is None
    assert read_key.secret not in str(row.detail)
    assert ApiKey.objects.get(pk=read_key.key.pk).last_used_at is not None


def test_a_refused_request_is_not_logged(client, read_key):
    client.get("/api/v1/customers", headers={"Authorization": "Bearer rsk_nope_nope"})
    assert not Activity.objects.exists()
