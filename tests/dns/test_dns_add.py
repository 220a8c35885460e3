"""POST /orders/<order_id>/dns/add/ (type host value ttl priority)."""

import pytest
from django.utils.html import escape

from tests.dns.conftest import url, zone, zone_record

pytestmark = pytest.mark.django_db

# A 1024-bit DKIM key (about 210 characters): fits in one DNS text string (at most 255).
DKIM = "v=DKIM1; k=rsa; p=" + "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ" * 5
# A 2048-bit one (about 400): more than one string holds.
LONG_DKIM = "v=DKIM1; k=rsa; p=" + "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" * 9


def post(client, order, **fields):
    data = {"type": "A", "host": "", "value": "", "ttl": "", "priority": "", **fields}
    return client.post(url("dns_add", order), data)


def records_sent(provider_calls) -> int:
    return provider_calls.count("dns_record_add")


@pytest.mark.parametrize(
    ("fields", "stored"),
    [
        ({"type": "A", "host": "www", "value": "203.0.113.10"}, ("A", "www", "203.0.113.10")),
        ({"type": "A", "host": "@", "value": "203.0.113.11"}, ("A", "@", "203.0.113.11")),
        ({"type": "AAAA", "host": "www", "value": "2001:db8:0:0::10"}, ("AAAA", "www", "2001:db8::10")),
        ({"type": "CNAME", "host": "shop", "value": "shops.myshopify.com."}, ("CNAME", "shop", "shops.myshopify.com")),
        ({"type": "MX", "host": "@", "value": "mx1.example.net", "priority": "10"}, ("MX", "@", "mx1.example.net")),
        ({"type": "TXT", "host": "_dmarc", "value": '"v=DMARC1; p=none"'}, ("TXT", "_dmarc", "v=DMARC1; p=none")),
    ],
)
def test_it_adds_each_type(signed_in, active_order, provider_calls, fields, stored):
    response = post(signed_in, active_order, **fields)
    assert response.status_code == 302
    assert response["Location"] == url("dns", active_order, f"type={fields['type']}")
    assert zone_record(active_order, *stored) is not None
    assert records_sent(provider_calls) == 1

    page = signed_in.get(response["Location"]).content.decode()
    assert f"Added {stored[0]} record" in page
    assert stored[2] in page


def test_it_sends_the_ttl_and_the_mx_priority(signed_in, active_order):
    post(signed_in, active_order, type="MX", host="@", value="mx2.example.net", ttl="600", priority="20")
    record = zone_record(active_order, "MX", "@", "mx2.example.net")
    assert record.time_to_live == 600
    assert record.priority == 20


def test_a_dkim_key_pasted_as_quoted_strings_is_sent_as_one_value(signed_in, active_order):
    pasted = f'"{DKIM[:150]}" "{DKIM[150:]}"'
    response = post(signed_in, active_order, type="TXT", host="google._domainkey", value=pasted)
    assert response.status_code == 302
    assert zone_record(active_order, "TXT", "google._domainkey", DKIM) is not None


@pytest.mark.parametrize("value", [LONG_DKIM, f'"{LONG_DKIM[:250]}" "{LONG_DKIM[250:]}"', "x" * 256])
def test_a_txt_value_longer_than_one_dns_string_is_refused_with_the_reason(
    signed_in, active_order, provider_calls, value
):
    # DNS needs a value over 255 characters split into several strings; the provider takes one string only.
    provider_calls.clear()
    response = post(signed_in, active_order, type="TXT", host="google._domainkey", value=value)
    body = response.content.decode()
    assert response.status_code == 200
    assert "A DNS text string holds at most 255 characters" in body
    assert "1024-bit key" in body
    assert not any(name == "dns_record_add" for name, _ in provider_calls)
    assert escape(value) in body  # what was typed is kept in the form


def test_htmx_gets_the_refreshed_editor_in_place(htmx, active_order, provider_calls):
    response = post(htmx, active_order, type="A", host="blog", value="203.0.113.12")
    body = response.content.decode()
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#dns-editor"
    assert response["HX-Reswap"] == "outerHTML"
    assert "<html" not in body
    assert "Added A record blog → 203.0.113.12." in body
    assert "203.0.113.12" in body.split("Add a record")[0]  # listed in the table
    # The CNAME rule, then the listing (of the added type), then the zone's nameservers.
    assert provider_calls.record_types_read() == ["CNAME", "A", "NS"]


INVALID = [
    ({"type": "A", "host": "www", "value": "203.0.113.256"}, "Enter an IPv4 address"),
    ({"type": "AAAA", "host": "www", "value": "203.0.113.10"}, "Enter an IPv6 address"),
    ({"type": "CNAME", "host": "@", "value": "target.example.net"}, "A CNAME can&#x27;t be at the domain itself"),
    ({"type": "CNAME", "host": "www", "value": "target"}, "full hostname"),
    ({"type": "MX", "host": "@", "value": "mx.example.net"}, "needs a priority"),
    ({"type": "MX", "host": "@", "value": "mail", "priority": "10"}, "full hostname"),
    ({"type": "A", "host": "bad host!", "value": "203.0.113.10"}, "Enter a host such as www"),
    ({"type": "A", "host": "www", "value": "203.0.113.10", "ttl": "60"}, "at least 300 seconds"),
    ({"type": "A", "host": "www", "value": "203.0.113.10", "ttl": "90000"}, "at most 86400 seconds"),
    ({"type": "A", "host": "_www", "value": "203.0.113.10"}, "Underscores are only allowed in TXT and CNAME"),
    ({"type": "MX", "host": "@", "value": "mx.example.net", "priority": "70000"}, "between 0 and 65535"),
    ({"type": "CNAME", "host": "www", "value": "203.0.113.10"}, "not an IP address"),
    ({"type": "TXT", "host": "@", "value": "x" * 256}, "holds at most 255 characters"),
    ({"type": "TXT", "host": "@", "value": ""}, "Enter the record&#x27;s value"),
]


@pytest.mark.parametrize(("fields", "message"), INVALID)
def test_invalid_input_is_refused_before_anything_is_sent(signed_in, active_order, provider_calls, fields, message):
    before = zone(active_order)
    response = post(signed_in, active_order, **fields)
    body = response.content.decode()
    assert response.status_code == 200
    assert message in body
    assert records_sent(provider_calls) == 0
    assert zone(active_order) == before
    assert f'value="{fields["host"]}"' in body  # what was typed is kept


def test_invalid_input_over_htmx_returns_the_form_alone(htmx, active_order, provider_calls):
    response = post(htmx, active_order, type="A", host="www", value="not-an-ip")
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<form id="dns-add-form"')
    assert "Enter an IPv4 address" in body
    assert 'value="not-an-ip"' in body
    assert len(provider_calls) == 0


def test_a_cname_cannot_join_an_existing_record(signed_in, active_order, add_record, provider_calls):
    add_record("A", "www", "203.0.113.10")
    provider_calls.clear()
    before = zone(active_order)
    response = post(signed_in, active_order, type="CNAME", host="www", value="shops.myshopify.com")
    assert b"www already has an A record" in response.content
    assert records_sent(provider_calls) == 0
    assert zone(active_order) == before


def test_no_record_can_join_a_cname(signed_in, active_order, add_record, provider_calls):
    add_record("CNAME", "shop", "shops.myshopify.com")
    provider_calls.clear()
    response = post(signed_in, active_order, type="TXT", host="shop", value="hello")
    assert b"shop is a CNAME" in response.content
    assert records_sent(provider_calls) == 0
    assert provider_calls.record_types_read()[0] == "CNAME"


def test_a_duplicate_is_refused_by_the_provider_and_shown_with_the_input(signed_in, active_order, add_record):
    add_record("A", "www", "203.0.113.10")
    response = post(signed_in, active_order, type="A", host="www", value="203.0.113.10", ttl="900")
    body = response.content.decode()
    assert response.status_code == 200
    # The provider's "Duplicate record found" names no record: the customer is told which one.
    assert "An A record for www pointing to 203.0.113.10 already exists." in body
    assert "Duplicate record found" not in body
    assert 'value="203.0.113.10"' in body
    assert 'value="900"' in body
    assert len([r for r in zone(active_order) if r == ("A", "www", "203.0.113.10")]) == 1


def test_it_sends_nothing_while_dns_is_off(signed_in, order, provider_calls):
    response = post(signed_in, order, type="A", host="www", value="203.0.113.10")
    assert response.status_code == 302
    assert len(provider_calls) == 0
    page = signed_in.get(response["Location"]).content.decode()
    assert "Activate it first" in page


def test_dns_found_off_while_checking_the_cname_rule_is_turned_on_when_the_editor_opens(
    signed_in, order, provider_calls
):
    order.dns_active = True  # our flag says on; the provider never activated it
    order.save(update_fields=["dns_active"])
    response = post(signed_in, order, type="CNAME", host="www", value="target.example.net")
    assert response.status_code == 302
    assert records_sent(provider_calls) == 0
    order.refresh_from_db()
    assert not order.dns_active
    page = signed_in.get(response["Location"]).content.decode()
    assert f"DNS is on for {order.domain_name}. You can add records now." in page
    assert provider_calls.count("dns_activate") == 1


def test_a_second_spf_record_at_a_host_is_refused_with_the_merged_value(
    signed_in, active_order, add_record, provider_calls
):
    add_record("TXT", "@", "v=spf1 include:zohomail.com ~all")
    provider_calls.clear()
    response = post(signed_in, active_order, type="TXT", host="@", value="v=spf1 include:_spf.google.com ~all")
    body = " ".join(response.content.decode().split())
    assert "@ already has an SPF record (v=spf1 include:zohomail.com ~all)" in body
    assert "A name can have only one" in body
    assert "v=spf1 include:zohomail.com include:_spf.google.com ~all" in body
    assert records_sent(provider_calls) == 0
    assert ("TXT", "@", "v=spf1 include:_spf.google.com ~all") not in zone(active_order)


def test_other_txt_records_and_spf_on_another_host_are_still_added(signed_in, active_order, add_record):
    add_record("TXT", "@", "v=spf1 include:zohomail.com ~all")
    post(signed_in, active_order, type="TXT", host="@", value="google-site-verification=abc")
    post(signed_in, active_order, type="TXT", host="mail", value="v=spf1 include:_spf.google.com ~all")
    assert zone_record(active_order, "TXT", "@", "google-site-verification=abc") is not None
    assert zone_record(active_order, "TXT", "mail", "v=spf1 include:_spf.google.com ~all") is not None


def test_the_added_sentence_is_in_the_customers_language(htmx, active_order, provider_calls):
    data = {"type": "A", "host": "blog", "value": "203.0.113.12", "ttl": "", "priority": ""}
    response = htmx.post(url("dns_add", active_order), data, HTTP_ACCEPT_LANGUAGE="es")
    body = response.content.decode()
    assert "Añadido: registro A blog → 203.0.113.12." in body
    assert "Added" not in body
