"""The test-only control endpoint: off unless SANDBOX_CONTROL is on; arranges and reads state over HTTP."""

import pytest

from sandbox.models import ApiKey, CatalogueTld, DomainOrder, Fault, Partner, hash_secret

with_control = pytest.mark.urls("sandbox.tests.urls_with_control")


def test_it_is_not_served_by_default(client, db):
    assert client.post("/_control/reset").status_code == 404
    assert client.get("/_control/rows/Partner").status_code == 404


@with_control
def test_reset_wipes_everything_and_seeds_the_demo_partner(client, partner, other_partner):
    response = client.post("/_control/reset")
    assert response.json() == {"partner": "Demo Reseller", "key": "test_sandbox_demo"}
    assert list(Partner.objects.values_list("name", flat=True)) == ["Demo Reseller"]
    assert ApiKey.objects.filter(key_hash=hash_secret("test_sandbox_demo")).exists()


@with_control
def test_faults_take_any_fault_field_and_are_cleared(client, api):
    response = client.put("/_control/faults", {"error_rate": 1.0, "scope": "hello"}, content_type="application/json")
    assert response.status_code == 200
    assert api.get("/api/v1/hello").status_code == 500
    assert client.delete("/_control/faults").json() == {"deleted": 1}
    assert api.get("/api/v1/hello").status_code == 200


@with_control
def test_an_unknown_fault_field_is_refused_by_name(client, partner):
    response = client.put("/_control/faults", {"error_rat": 1.0}, content_type="application/json")
    assert response.status_code == 400
    assert "error_rat" in response.json()["error"]
    assert not Fault.objects.exists()


@with_control
def test_keys_are_issued_with_their_plaintext_once(client, partner):
    response = client.post("/_control/keys", {"environment": "live"}, content_type="application/json")
    key = response.json()["key"]
    assert key.startswith("live_")
    assert ApiKey.objects.get(key_hash=hash_secret(key)).environment == "live"


@with_control
def test_rows_are_created_read_and_updated_by_partner_name(client, partner):
    created = client.post(
        "/_control/rows/ReservedName",
        {"partner": "Demo Reseller", "domain_name": "gold.com", "kind": "premium", "premium_price": "99.00"},
        content_type="application/json",
    )
    assert created.status_code == 201
    assert created.json()["partner"] == "Demo Reseller"
    updated = client.patch(
        "/_control/rows/CatalogueTld?partner=Demo+Reseller&tld=dev", {"min_term": 3}, content_type="application/json"
    )
    assert updated.json() == {"updated": 1}
    assert CatalogueTld.objects.get(partner=partner, tld="dev").min_term == 3
    rows = client.get("/_control/rows/CatalogueTld", {"tld__in": "com,net"}).json()["rows"]
    assert sorted(row["tld"] for row in rows) == ["com", "net"]


@with_control
def test_orders_can_be_read_and_changed(client, api, customer_id):
    order_id = api.post(
        "/api/v1/domains/register", {"customer_id": customer_id, "domain_name": "ctl.com", "duration": 1}
    ).json()["order_id"]
    client.patch(
        f"/_control/rows/DomainOrder?order_id={order_id}",
        {"status": "Suspended", "expires_at": "2030-01-02T03:04:05.123456+00:00"},
        content_type="application/json",
    )
    [row] = client.get("/_control/rows/DomainOrder", {"domain_name": "ctl.com"}).json()["rows"]
    assert (row["status"], row["expires_at"]) == ("Suspended", "2030-01-02T03:04:05.123456+00:00")
    assert DomainOrder.objects.get(order_id=order_id).status == "Suspended"


@with_control
def test_bad_input_is_a_clear_400(client, partner):
    assert client.get("/_control/rows/NoSuchModel").status_code == 400
    assert client.get("/_control/rows/Partner", {"no_such_field": "x"}).status_code == 400
    assert client.post("/_control/keys", {"partner": "Nobody"}, content_type="application/json").status_code == 400
