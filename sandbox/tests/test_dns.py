"""DNS: activate, dns-records, and add/modify/delete of A, AAAA, CNAME, MX and TXT records."""

import pytest

from sandbox.models import DnsRecord

pytestmark = pytest.mark.django_db

ACTIVATE = "/api/v1/dns/activate"
RECORDS = "/api/v1/dns/dns-records"
INVALID_ORDER = {"status": "ERROR", "message": "Invalid order ID"}
ADDED = {"status": "SUCCESS", "message": "Record added successfully"}


def path(record_type):
    return f"/api/v1/dns/{record_type.lower()}-record"


@pytest.fixture
def order_id(api, customer_id):
    body = {"customer_id": customer_id, "domain_name": "zone.com", "duration": 1}
    return api.post("/api/v1/domains/register", body).json()["order_id"]


@pytest.fixture
def zone(api, order_id):
    assert api.post(ACTIVATE, {"order_id": order_id}).status_code == 200
    return order_id


def listed(api, order_id, record_type="A"):
    response = api.get(RECORDS, {"order_id": order_id, "record_type": record_type})
    assert response.status_code == 200, response.content
    return response.json()["dns_records"]


def add(api, order_id, record_type, value, **extra):
    return api.post(path(record_type), {"order_id": order_id, "value": value, **extra})


# Activation -------------------------------------------------------------------------------------------------


def test_activate_once_creates_ns_and_soa(api, order_id):
    response = api.post(ACTIVATE, {"order_id": order_id})
    assert response.status_code == 200
    assert response.json() == {"status": "SUCCESS", "message": "DNS service activated successfully"}
    ns = listed(api, order_id, "NS")
    assert len(ns) == 2
    assert all(row["host"] == "@" and row["status"] == "Active" for row in ns)
    soa = listed(api, order_id, "SOA")
    assert len(soa) == 1
    assert "zone.com" in soa[0]["value"]
    again = api.post(ACTIVATE, {"order_id": order_id})
    assert again.status_code == 422
    assert again.json() == {"status": "ERROR", "message": "DNS service is already active"}
    assert len(listed(api, order_id, "NS")) == 2


def test_activate_an_unknown_or_foreign_order(api, other_api, order_id):
    for client, target in ((api, 123456789), (other_api, order_id), (api, None)):
        response = client.post(ACTIVATE, {"order_id": target})
        assert response.status_code == 422
        assert response.json() == INVALID_ORDER


def test_records_before_activation_are_refused(api, order_id):
    refused = {"status": "ERROR", "message": "DNS service is not active for this order"}
    response = api.get(RECORDS, {"order_id": order_id})
    assert (response.status_code, response.json()) == (422, refused)
    response = add(api, order_id, "A", "203.0.113.10", host="www")
    assert (response.status_code, response.json()) == (422, refused)


def test_listing_defaults_to_a_and_refuses_unknown_types(api, zone):
    add(api, zone, "A", "203.0.113.10", host="www")
    add(api, zone, "TXT", "hello")
    response = api.get(RECORDS, {"order_id": zone})
    assert [row["type"] for row in response.json()["dns_records"]] == ["A"]
    response = api.get(RECORDS, {"order_id": zone, "record_type": "PTR"})
    assert response.status_code == 422


def test_listing_of_an_unknown_or_foreign_order(api, other_api, zone):
    for client, target in ((api, "123456789"), (other_api, zone), (api, "x")):
        response = client.get(RECORDS, {"order_id": target})
        assert response.status_code == 422
        assert response.json() == INVALID_ORDER


# Add --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record_type", "value", "host", "stored_value"),
    [
        ("A", "203.0.113.10", "www", "203.0.113.10"),
        ("AAAA", "2001:0db8:0000:0000:0000:0000:0000:0001", "www", "2001:db8::1"),
        ("CNAME", "Target.Example.NET.", "shop", "target.example.net"),
        ("TXT", "v=spf1 include:_spf.example.net ~all", "@", "v=spf1 include:_spf.example.net ~all"),
    ],
)
def test_add_and_list_each_type(api, zone, record_type, value, host, stored_value):
    response = add(api, zone, record_type, value, host=host, time_to_live=600)
    assert response.status_code == 200
    assert response.json() == ADDED
    assert listed(api, zone, record_type) == [
        {"type": record_type, "host": host, "value": stored_value, "time_to_live": 600, "status": "Active"}
    ]


def test_mx_records_carry_a_priority(api, zone):
    assert add(api, zone, "MX", "aspmx.l.google.com", host="@", priority=1).json() == ADDED
    assert add(api, zone, "MX", "alt1.aspmx.l.google.com", priority=5).json() == ADDED
    rows = listed(api, zone, "MX")
    assert rows[0] == {
        "type": "MX",
        "host": "@",
        "value": "aspmx.l.google.com",
        "time_to_live": 3600,
        "status": "Active",
        "priority": 1,
    }
    assert rows[1]["priority"] == 5


def test_mx_priority_defaults_to_10_and_is_checked(api, zone):
    add(api, zone, "MX", "mail.example.net")
    assert listed(api, zone, "MX")[0]["priority"] == 10
    assert add(api, zone, "MX", "mx2.example.net", priority=-1).status_code == 422
    assert add(api, zone, "MX", "mx2.example.net", priority="high").status_code == 422


def test_host_at_empty_and_omitted_all_mean_the_apex(api, zone):
    assert add(api, zone, "A", "203.0.113.1", host="@").status_code == 200
    assert add(api, zone, "A", "203.0.113.2", host="").status_code == 200
    assert add(api, zone, "A", "203.0.113.3").status_code == 200
    assert add(api, zone, "A", "203.0.113.4", host="zone.com").status_code == 200
    assert {row["host"] for row in listed(api, zone)} == {"@"}
    assert add(api, zone, "A", "203.0.113.5", host="www.zone.com").status_code == 200
    assert "www" in {row["host"] for row in listed(api, zone)}


def test_ttl_defaults_to_the_zone_and_must_be_at_least_300(api, zone):
    add(api, zone, "A", "203.0.113.1", host="a")
    assert listed(api, zone)[0]["time_to_live"] == 3600
    assert add(api, zone, "A", "203.0.113.2", host="b", time_to_live=300).status_code == 200
    response = add(api, zone, "A", "203.0.113.3", host="c", time_to_live=299)
    assert response.status_code == 422
    assert response.json() == {"status": "ERROR", "message": "TTL must be at least 300 seconds"}
    assert add(api, zone, "A", "203.0.113.3", host="c", time_to_live="soon").status_code == 422


@pytest.mark.parametrize(
    ("record_type", "value"),
    [
        ("A", "2001:db8::1"),
        ("A", "300.1.1.1"),
        ("A", "example.com"),
        ("AAAA", "203.0.113.10"),
        ("AAAA", "2001:db8::zz"),
        ("CNAME", "not a host"),
        ("CNAME", "localhost"),
        ("MX", "mail server"),
        ("TXT", ""),
        ("TXT", "x" * 4097),
        ("A", None),
    ],
)
def test_invalid_values_are_refused(api, zone, record_type, value):
    response = add(api, zone, record_type, value, host="www")
    assert response.status_code == 422
    assert response.json()["status"] == "ERROR"
    assert not DnsRecord.objects.filter(type=record_type).exists()


def test_long_txt_values_are_accepted(api, zone):
    dkim = "v=DKIM1; k=rsa; p=" + "A" * 4000
    assert add(api, zone, "TXT", dkim, host="selector1._domainkey").status_code == 200
    assert listed(api, zone, "TXT")[0]["value"] == dkim


@pytest.mark.parametrize("host", ["bad host", "-bad", "a..b", "x" * 64])
def test_invalid_hosts_are_refused(api, zone, host):
    response = add(api, zone, "A", "203.0.113.10", host=host)
    assert response.status_code == 422


def test_duplicates_are_refused(api, zone):
    assert add(api, zone, "A", "203.0.113.10", host="www").status_code == 200
    response = add(api, zone, "A", "203.0.113.10", host="WWW")
    assert response.status_code == 422
    assert response.json() == {"status": "ERROR", "message": "Duplicate record found"}
    assert add(api, zone, "A", "203.0.113.11", host="www").status_code == 200  # a second address is fine


@pytest.mark.parametrize("host", ["@", "", None])
def test_no_cname_at_the_apex(api, zone, host):
    body = {"host": host} if host is not None else {}
    response = add(api, zone, "CNAME", "target.example.net", **body)
    assert response.status_code == 422
    assert "apex" in response.json()["message"]


def test_a_cname_stands_alone_on_its_host(api, zone):
    add(api, zone, "A", "203.0.113.10", host="www")
    response = add(api, zone, "CNAME", "target.example.net", host="www")
    assert response.status_code == 422
    assert "CNAME" in response.json()["message"]
    assert add(api, zone, "CNAME", "target.example.net", host="shop").status_code == 200
    assert add(api, zone, "TXT", "verify", host="shop").status_code == 422
    assert add(api, zone, "CNAME", "other.example.net", host="shop").status_code == 422


def test_adding_to_a_foreign_order_is_invalid_order_id(other_api, zone):
    response = add(other_api, zone, "A", "203.0.113.10")
    assert response.status_code == 422
    assert response.json() == INVALID_ORDER


# Modify and delete ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record_type", "old", "new"),
    [
        ("A", "203.0.113.10", "203.0.113.20"),
        ("AAAA", "2001:db8::1", "2001:db8::2"),
        ("CNAME", "old.example.net", "new.example.net"),
        ("MX", "mx1.example.net", "mx2.example.net"),
        ("TXT", "old text", "new text"),
    ],
)
def test_modify_and_delete_each_type(api, zone, record_type, old, new):
    add(api, zone, record_type, old, host="www")
    response = api.put(
        path(record_type),
        {"order_id": zone, "current_value": old, "new_value": new, "host": "www", "time_to_live": 900, "priority": 20},
    )
    assert response.status_code == 200
    assert response.json() == {"status": "SUCCESS", "message": "Record modified successfully"}
    [row] = listed(api, zone, record_type)
    assert (row["value"], row["time_to_live"]) == (new, 900)
    if record_type == "MX":
        assert row["priority"] == 20
    response = api.delete(path(record_type), {"order_id": zone, "value": new, "host": "www"})
    assert response.status_code == 200
    assert response.json() == {"status": "SUCCESS", "message": "Record deleted successfully"}
    assert listed(api, zone, record_type) == []


def test_modify_keeps_the_ttl_when_omitted(api, zone):
    add(api, zone, "A", "203.0.113.10", host="www", time_to_live=600)
    api.put(path("A"), {"order_id": zone, "current_value": "203.0.113.10", "new_value": "203.0.113.11", "host": "www"})
    assert listed(api, zone)[0]["time_to_live"] == 600


def test_modify_of_a_missing_record_fails(api, zone):
    add(api, zone, "A", "203.0.113.10", host="www")
    for body in (
        {"current_value": "203.0.113.99", "new_value": "203.0.113.11", "host": "www"},
        {"current_value": "203.0.113.10", "new_value": "203.0.113.11", "host": "api"},
        {"current_value": "not an ip", "new_value": "203.0.113.11", "host": "www"},
    ):
        response = api.put(path("A"), {"order_id": zone, **body})
        assert response.status_code == 422
        assert response.json() == {"status": "ERROR", "message": "Failed to modify the record"}


def test_modify_into_a_duplicate_or_invalid_value_is_refused(api, zone):
    add(api, zone, "A", "203.0.113.10", host="www")
    add(api, zone, "A", "203.0.113.11", host="www")
    body = {"order_id": zone, "current_value": "203.0.113.10", "host": "www"}
    response = api.put(path("A"), {**body, "new_value": "203.0.113.11"})
    assert response.json() == {"status": "ERROR", "message": "Duplicate record found"}
    assert api.put(path("A"), {**body, "new_value": "2001:db8::1"}).status_code == 422
    assert api.put(path("A"), {**body, "new_value": "203.0.113.12", "time_to_live": 10}).status_code == 422


def test_delete_of_a_missing_record_fails(api, zone):
    add(api, zone, "TXT", "keep me", host="@")
    response = api.delete(path("TXT"), {"order_id": zone, "value": "other", "host": "@"})
    assert response.status_code == 422
    assert response.json() == {"status": "ERROR", "message": "Failed to delete the record"}
    response = api.delete(path("TXT"), {"order_id": zone, "value": "keep me", "host": "www"})
    assert response.json()["message"] == "Failed to delete the record"
    assert api.delete(path("TXT"), {"order_id": zone, "value": "keep me"}).status_code == 200


def test_ns_and_soa_cannot_be_changed(api, zone):
    for record_type in ("ns", "soa"):
        response = api.post(f"/api/v1/dns/{record_type}-record", {"order_id": zone, "value": "x.example.net"})
        assert response.status_code == 404
    assert len(listed(api, zone, "NS")) == 2


def test_modify_and_delete_on_a_foreign_order(api, other_api, zone):
    add(api, zone, "A", "203.0.113.10", host="www")
    body = {"order_id": zone, "current_value": "203.0.113.10", "new_value": "203.0.113.11", "host": "www"}
    assert other_api.put(path("A"), body).json() == INVALID_ORDER
    assert other_api.delete(path("A"), {"order_id": zone, "value": "203.0.113.10", "host": "www"}).json() == (
        INVALID_ORDER
    )
    assert listed(api, zone)[0]["value"] == "203.0.113.10"


def test_other_methods_are_not_allowed(api, zone):
    assert api.get(path("A")).status_code == 405
