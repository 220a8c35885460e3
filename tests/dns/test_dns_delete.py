"""/orders/<order_id>/dns/delete/: GET asks "Delete A record www → 203.0.113.10?", POST type host value deletes."""

import pytest

from tests.dns.conftest import url, zone_record

pytestmark = pytest.mark.django_db


def deletes_sent(provider_calls) -> int:
    return provider_calls.count("dns_record_delete")


def test_it_asks_first_and_names_the_record(signed_in, active_order, add_record, provider_calls):
    add_record("A", "www", "203.0.113.10")
    provider_calls.clear()
    response = signed_in.get(url("dns_delete", active_order, "type=A&host=www&value=203.0.113.10"))
    body = response.content.decode()
    assert response.status_code == 200
    assert "Delete A record www → 203.0.113.10?" in body
    assert f"www.{active_order.domain_name}" in body
    assert "Delete this record" in body
    assert len(provider_calls) == 0
    assert zone_record(active_order, "A", "www", "203.0.113.10") is not None


def test_the_question_names_the_mx_priority_when_given(htmx, active_order):
    response = htmx.get(url("dns_delete", active_order, "type=MX&host=@&value=mx1.example.net&priority=10"))
    body = response.content.decode()
    assert body.lstrip().startswith('<tr class="dns-confirm-row">')
    assert "Delete MX record @ → mx1.example.net (priority 10)?" in body


@pytest.mark.parametrize(
    ("record_type", "host", "value", "extra"),
    [
        ("A", "www", "203.0.113.10", {}),
        ("AAAA", "@", "2001:db8::10", {}),
        ("CNAME", "shop", "shops.myshopify.com", {}),
        ("MX", "@", "mx1.example.net", {"priority": 10}),
        ("TXT", "_dmarc", "v=DMARC1; p=none", {}),
    ],
)
def test_it_deletes_each_type(signed_in, active_order, add_record, provider_calls, record_type, host, value, extra):
    add_record(record_type, host, value, **extra)
    add_record("A", "keep", "203.0.113.99")
    provider_calls.clear()
    response = signed_in.post(url("dns_delete", active_order), {"type": record_type, "host": host, "value": value})
    assert response.status_code == 302
    assert response["Location"] == url("dns", active_order, f"type={record_type}")
    assert zone_record(active_order, record_type, host, value) is None
    assert zone_record(active_order, "A", "keep", "203.0.113.99") is not None
    assert deletes_sent(provider_calls) == 1
    page = signed_in.get(response["Location"]).content.decode()
    assert f"Deleted the {record_type} record {host} →" in page


def test_htmx_gets_the_refreshed_editor(htmx, active_order, add_record):
    add_record("A", "www", "203.0.113.10")
    response = htmx.post(url("dns_delete", active_order), {"type": "A", "host": "www", "value": "203.0.113.10"})
    assert response["HX-Retarget"] == "#dns-editor"
    assert b"Deleted the A record www" in response.content
    assert b"No A records yet." in response.content or b"203.0.113.10</code>" not in response.content


def test_a_provider_refusal_is_shown_next_to_the_record(htmx, active_order, provider_calls):
    response = htmx.post(url("dns_delete", active_order), {"type": "A", "host": "www", "value": "198.51.100.7"})
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<tr class="dns-confirm-row">')
    assert "notice-error" in body
    assert 'name="value" value="198.51.100.7"' in body
    assert deletes_sent(provider_calls) == 1


def test_read_only_records_cannot_be_deleted(signed_in, active_order, provider_calls):
    response = signed_in.post(url("dns_delete", active_order), {"type": "NS", "host": "@", "value": "ns1.example"})
    assert response.status_code == 400
    assert len(provider_calls) == 0


def test_the_plain_confirmation_works_without_htmx(signed_in, active_order, add_record):
    add_record("TXT", "@", "hello world")
    page = signed_in.get(url("dns_delete", active_order, "type=TXT&host=@&value=hello+world")).content.decode()
    assert '<form class="dns-delete-form" method="post"' in page
    assert "hx-post" not in page.split('class="dns-delete-form"')[1].split(">")[0]


@pytest.mark.parametrize("priority", ["²", "\u0661\u0660", "1e3", "-5"])
def test_a_priority_that_is_not_plain_digits_is_ignored_not_a_server_error(htmx, active_order, priority):
    response = htmx.get(url("dns_delete", active_order, f"type=MX&host=@&value=mx1.example.net&priority={priority}"))
    assert response.status_code == 200
    assert "Delete MX record @ → mx1.example.net?" in response.content.decode()
