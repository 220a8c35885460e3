"""/orders/<order_id>/dns/change/: GET the form for one record, POST type host current_value value ttl priority."""

import pytest

from storefront.gateway import OutcomeUnknown
from tests.dns.conftest import url, zone, zone_record

pytestmark = pytest.mark.django_db


def post(client, order, **fields):
    data = {"type": "A", "host": "", "current_value": "", "value": "", "ttl": "", "priority": "", **fields}
    return client.post(url("dns_change", order), data)


def changes_sent(provider_calls) -> int:
    return provider_calls.count("dns_record_modify")


def test_the_form_is_filled_in_with_the_record(signed_in, active_order, provider_calls):
    response = signed_in.get(
        url("dns_change", active_order, "type=MX&host=@&value=mx1.example.net&ttl=600&priority=10")
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert "Change the MX record" in body
    assert 'name="current_value" value="mx1.example.net"' in body
    assert 'name="value" value="mx1.example.net"' in body
    assert 'value="600"' in body
    assert 'name="priority" value="10"' in body
    assert len(provider_calls) == 0


def test_htmx_gets_the_form_as_a_table_row(htmx, active_order):
    response = htmx.get(url("dns_change", active_order, "type=A&host=www&value=203.0.113.10"))
    body = response.content.decode()
    assert body.lstrip().startswith('<tr class="dns-edit-row">')
    assert 'hx-target="closest tr"' in body


def test_a_link_to_a_read_only_record_is_refused(signed_in, active_order, provider_calls):
    response = signed_in.get(url("dns_change", active_order, "type=SOA&host=@&value=x"))
    assert response.status_code == 400
    assert b"can be changed" in response.content
    assert len(provider_calls) == 0


@pytest.mark.parametrize(
    ("record_type", "host", "old", "new", "stored_new", "extra"),
    [
        ("A", "www", "203.0.113.10", "203.0.113.20", "203.0.113.20", {}),
        ("AAAA", "www", "2001:db8::10", "2001:db8::0:20", "2001:db8::20", {}),
        ("CNAME", "shop", "old.example.net", "new.example.net.", "new.example.net", {}),
        ("MX", "@", "mx1.example.net", "mx9.example.net", "mx9.example.net", {"priority": 10}),
        ("TXT", "@", "v=spf1 -all", '"v=spf1 include:_spf.google.com ~all"', "v=spf1 include:_spf.google.com ~all", {}),
    ],
)
def test_it_changes_each_type(
    signed_in, active_order, add_record, provider_calls, record_type, host, old, new, stored_new, extra
):
    add_record(record_type, host, old, **extra)
    response = post(
        signed_in,
        active_order,
        type=record_type,
        host=host,
        current_value=old,
        value=new,
        ttl="1800",
        priority=str(extra.get("priority", "")),
    )
    assert response.status_code == 302
    assert response["Location"] == url("dns", active_order, f"type={record_type}")
    assert zone_record(active_order, record_type, host, old) is None
    changed = zone_record(active_order, record_type, host, stored_new)
    assert changed is not None
    assert changed.time_to_live == 1800
    assert changes_sent(provider_calls) == 1
    page = signed_in.get(response["Location"]).content.decode()
    assert f"Changed the {record_type} record {host} to {stored_new}." in page


def test_htmx_gets_the_refreshed_editor(htmx, active_order, add_record):
    add_record("A", "www", "203.0.113.10")
    response = post(htmx, active_order, host="www", current_value="203.0.113.10", value="203.0.113.30")
    assert response["HX-Retarget"] == "#dns-editor"
    assert b"203.0.113.30" in response.content


def test_an_invalid_new_value_is_refused_before_anything_is_sent(signed_in, active_order, add_record, provider_calls):
    add_record("A", "www", "203.0.113.10")
    provider_calls.clear()
    before = zone(active_order)
    response = post(signed_in, active_order, host="www", current_value="203.0.113.10", value="203.0.113.999")
    body = response.content.decode()
    assert response.status_code == 200
    assert "Enter an IPv4 address" in body
    assert 'name="value" value="203.0.113.999"' in body
    assert changes_sent(provider_calls) == 0
    assert len(provider_calls) == 0
    assert zone(active_order) == before


def test_an_mx_change_keeps_needing_a_priority(signed_in, active_order, add_record, provider_calls):
    add_record("MX", "@", "mx1.example.net", priority=10)
    provider_calls.clear()
    response = post(
        signed_in, active_order, type="MX", host="@", current_value="mx1.example.net", value="mx2.example.net"
    )
    assert b"needs a priority" in response.content
    assert changes_sent(provider_calls) == 0


def test_a_provider_refusal_is_shown_in_the_row_with_the_input_kept(htmx, active_order, provider_calls):
    response = post(htmx, active_order, host="www", current_value="198.51.100.1", value="198.51.100.2")
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<tr class="dns-edit-row">')
    assert "notice-error" in body or "errorlist" in body
    assert 'name="value" value="198.51.100.2"' in body
    assert changes_sent(provider_calls) == 1


def test_a_lost_answer_says_to_check_the_list_before_retrying(
    signed_in, active_order, add_record, provider_calls, fake_gateway
):
    add_record("A", "www", "203.0.113.10")
    provider_calls.clear()
    fake_gateway.fail("dns_record_modify", OutcomeUnknown, after=True)  # it happens; its answer is lost
    response = post(signed_in, active_order, host="www", current_value="203.0.113.10", value="203.0.113.40")
    body = response.content.decode()
    assert response.status_code == 503
    assert "Check the list of records before trying again." in body
    assert 'name="value" value="203.0.113.40"' in body
    assert changes_sent(provider_calls) == 1  # never retried
    assert zone_record(active_order, "A", "www", "203.0.113.40") is not None  # it did happen
