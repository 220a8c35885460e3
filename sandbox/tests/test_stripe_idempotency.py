"""The setup's `require_idempotency_keys`: with it on, a state-changing request without a key of the caller's own
is refused, so the storefront's tests can prove every such call carries one."""

from __future__ import annotations

import pytest
import stripe
from django.contrib.auth.models import User
from django.test import Client

from sandbox.stripe_api.models import Setup, StripeObject
from sandbox.tests.stripe_helpers import SESSION, Api, control, sdk

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> Api:
    control("PUT", "setup", {"require_idempotency_keys": True})
    return Api()


def test_a_post_without_a_key_is_refused_naming_its_path(api):
    response = api.post("checkout/sessions", SESSION)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "idempotency_error"
    assert "POST /stripe/v1/checkout/sessions was sent without an Idempotency-Key" in error["message"]
    assert not StripeObject.objects.exists()


def test_a_post_with_its_own_key_is_served_and_replayed(api):
    first = api.post("checkout/sessions", SESSION, idempotency_key="checkout-1")
    again = api.post("checkout/sessions", SESSION, idempotency_key="checkout-1")
    assert (first.status_code, again["Idempotent-Replayed"]) == (200, "true")
    assert again.json()["id"] == first.json()["id"]
    other = api.post("checkout/sessions", {**SESSION, "client_reference_id": "x"}, idempotency_key="checkout-1")
    assert other.json()["error"]["type"] == "idempotency_error"


def test_reads_need_no_key(api):
    made = api.post("checkout/sessions", SESSION, idempotency_key="checkout-2").json()
    assert api.get(f"checkout/sessions/{made['id']}").status_code == 200


def test_reset_switches_it_off_and_staff_switch_it_in_the_admin(api):
    control("POST", "reset")
    assert Setup.current().require_idempotency_keys is False
    assert Api().post("checkout/sessions", SESSION).status_code == 200
    admin = Client()
    admin.force_login(User.objects.create_superuser("staff", "staff@example.org", "x"))
    page = admin.get(f"/admin/stripe_api/setup/{Setup.current().pk}/change/").content.decode()
    assert 'name="require_idempotency_keys"' in page


@pytest.mark.django_db(transaction=True)
def test_the_sdks_automatic_key_does_not_count(live_server):
    control("PUT", "setup", {"require_idempotency_keys": True})
    client = sdk(live_server)
    with pytest.raises(stripe.IdempotencyError) as refused:
        client.v1.customers.create(params={"email": "ada@example.org"})  # the SDK adds a random key of its own
    assert "POST /stripe/v1/customers carried only the Stripe SDK's automatic Idempotency-Key" in str(refused.value)
    made = client.v1.customers.create(params={"email": "ada@example.org"}, options={"idempotency_key": "customer-7"})
    assert made.email == "ada@example.org"
