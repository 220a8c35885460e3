"""GET /orders/<order_id>/dns/ (?type=A): the zone, one record type at a time, one provider call per type."""

import pytest

from tests.dns.conftest import url
from tests.fakes.gateway import DNS_METHODS

pytestmark = pytest.mark.django_db


def test_it_lists_a_records_by_default(signed_in, active_order, add_record, provider_calls):
    add_record("A", "www", "203.0.113.10", ttl=3600)
    provider_calls.clear()
    response = signed_in.get(url("dns", active_order))
    assert response.status_code == 200
    body = response.content.decode()
    assert "A records" in body
    assert "www" in body
    assert f"www.{active_order.domain_name}" in body
    assert "203.0.113.10" in body
    assert "1 hour" in body
    assert "Active" in body
    assert provider_calls.record_types_read() == ["A"]
    assert len(provider_calls) == 1


def test_each_type_is_read_on_its_own(signed_in, active_order, add_record, provider_calls):
    add_record("MX", "@", "mx1.example.net", priority=10)
    add_record("A", "@", "203.0.113.10")
    provider_calls.clear()
    response = signed_in.get(url("dns", active_order, "type=MX"))
    body = response.content.decode()
    assert "MX records" in body
    assert "mx1.example.net" in body
    assert "Priority" in body
    assert "203.0.113.10" not in body
    assert provider_calls.record_types_read() == ["MX"]


def test_tabs_are_plain_links_that_htmx_loads_in_place(signed_in, active_order, provider_calls):
    response = signed_in.get(url("dns", active_order))
    body = response.content.decode()
    for record_type in ("A", "AAAA", "CNAME", "MX", "TXT", "NS", "SRV", "SOA"):
        link = url("dns", active_order, f"type={record_type}")
        assert f'href="{link}"' in body
        assert f'hx-get="{link}"' in body
    assert 'aria-current="page" class="dns-tab dns-tab-current">A<' in body


def test_an_htmx_request_gets_the_editor_fragment_only(htmx, active_order, add_record, provider_calls):
    add_record("TXT", "@", "v=spf1 include:_spf.google.com ~all")
    provider_calls.clear()
    response = htmx.get(url("dns", active_order, "type=TXT"))
    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body
    assert 'id="dns-editor"' in body
    assert "v=spf1 include:_spf.google.com ~all" in body
    assert provider_calls.record_types_read() == ["TXT"]


def test_read_only_types_have_no_edit_controls(signed_in, active_order, provider_calls):
    response = signed_in.get(url("dns", active_order, "type=NS"))
    body = response.content.decode()
    assert response.status_code == 200
    assert "NS records" in body
    assert "Add a record" not in body
    assert ">Edit<" not in body
    assert "can't be changed" in body
    assert provider_calls.record_types_read() == ["NS"]


def test_an_unknown_type_shows_a_records(signed_in, active_order, provider_calls):
    response = signed_in.get(url("dns", active_order, "type=PTR"))
    assert response.status_code == 200
    assert b"A records" in response.content
    assert provider_calls.record_types_read() == ["A"]


def test_an_empty_type_says_so(signed_in, active_order, provider_calls):
    response = signed_in.get(url("dns", active_order, "type=AAAA"))
    assert b"No AAAA records yet." in response.content


def test_editable_records_offer_edit_and_delete(signed_in, active_order, add_record):
    add_record("A", "www", "203.0.113.10")
    body = signed_in.get(url("dns", active_order)).content.decode()
    assert url("dns_change", active_order, "type=A&amp;host=www&amp;value=203.0.113.10") in body
    assert url("dns_delete", active_order, "type=A&amp;host=www&amp;value=203.0.113.10") in body


def test_a_provider_outage_is_shown_on_the_page(signed_in, active_order, provider_calls, fake_gateway):
    with fake_gateway.outage(*DNS_METHODS):
        response = signed_in.get(url("dns", active_order))
    assert response.status_code == 503
    assert b"notice-error" in response.content
    assert b"Add a record" in response.content  # the rest of the editor is still there


def test_the_page_shows_the_presets(signed_in, active_order):
    body = signed_in.get(url("dns", active_order)).content.decode()
    assert "Quick setups" in body
    assert "Point the domain at a server" in body
