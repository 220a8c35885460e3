"""Keys in the admin: made with a name and scope, the key shown once on the page that follows, revoked by an action,
never deleted."""

from __future__ import annotations

import hashlib
import re

import pytest
from django.contrib.auth import get_user_model

from reseller_api.models import ApiKey

pytestmark = pytest.mark.django_db

URL = "/admin/reseller_api/apikey/"


@pytest.fixture
def staff(client):
    admin = get_user_model().objects.create_superuser("staff@example.org", "staff@example.org", "Staff#12345")
    client.force_login(admin)
    return client


def test_a_key_is_made_and_its_secret_shown_once(staff):
    response = staff.post(f"{URL}add/", {"name": "Accounting sync", "scope": "write"})
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    page = response.content.decode()
    secret = re.search(r'value="(rsk_[^"]+)"', page)
    assert secret is not None, page
    key = ApiKey.objects.get(name="Accounting sync")
    assert key.scope == ApiKey.Scope.WRITE
    assert key.created_by is not None and key.created_by.get_username() == "staff@example.org"
    assert key.secret_hash == hashlib.sha256(secret.group(1).encode()).hexdigest()
    # Never again: not on the key's page, not in the list.
    assert secret.group(1) not in staff.get(f"{URL}{key.pk}/change/").content.decode()
    listing = staff.get(URL).content.decode()
    assert secret.group(1) not in listing and f"rsk_{key.prefix}_" in listing
    # And it works.
    assert staff.get("/api/v1/domains", headers={"Authorization": f"Bearer {secret.group(1)}"}).status_code == 200


def test_the_name_is_fixed_once_made_and_unique(staff, read_key):
    staff.post(f"{URL}{read_key.key.pk}/change/", {"name": "Renamed", "scope": "write"})
    key = ApiKey.objects.get(pk=read_key.key.pk)
    assert (key.name, key.scope) == ("Accounting sync", ApiKey.Scope.WRITE)
    again = staff.post(f"{URL}add/", {"name": "Accounting sync", "scope": "read"})
    assert again.status_code == 200 and "already exists" in again.content.decode()
    assert ApiKey.objects.count() == 1


def test_revoking_in_the_admin_refuses_the_key(staff, api, read_key, make_key):
    other = make_key("CRM")
    response = staff.post(URL, {"action": "revoke", "_selected_action": [read_key.key.pk]}, follow=True)
    assert "1 key(s) revoked." in response.content.decode()
    assert api.get("/customers").status_code == 401
    assert ApiKey.objects.get(pk=other.key.pk).revoked_at is None


def test_keys_are_never_deleted(staff, read_key):
    assert staff.post(f"{URL}{read_key.key.pk}/delete/", {"post": "yes"}).status_code == 403
    assert ApiKey.objects.filter(pk=read_key.key.pk).exists()
