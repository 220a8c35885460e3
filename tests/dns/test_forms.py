"""The record form's rules, one row per rule: what the customer types, and the message they get."""

import pytest

from dns.forms import ChangeRecordForm, DeleteRecordForm, RecordForm, clean_txt, normalize_host
from storefront.gateway import DnsRecord, Unavailable

DOMAIN = "example-shop.com"
# A 1024-bit DKIM key (about 210 characters): fits in one DNS text string (at most 255).
DKIM = "v=DKIM1; k=rsa; p=" + "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ" * 5


class Zone:
    """Stands in for the zone listing the view hands to the form; remembers which types were asked for."""

    def __init__(self, *records: DnsRecord) -> None:
        self.records = records
        self.asked: list[str] = []

    def __call__(self, record_type: str) -> list[DnsRecord]:
        self.asked.append(record_type)
        return [r for r in self.records if r.type == record_type]


def rec(record_type: str, host: str, value: str) -> DnsRecord:
    return DnsRecord(type=record_type, host=host, value=value, time_to_live=3600, status="Active")


def form(data: dict, zone: Zone | None = None) -> RecordForm:
    return RecordForm({"ttl": "", "priority": "", "host": "", **data}, domain_name=DOMAIN, existing=zone or Zone())


# Accepted, and how the value is sent ---------------------------------------------------------------------------

ACCEPTED = [
    ({"type": "A", "host": "@", "value": "203.0.113.10"}, "@", "203.0.113.10"),
    ({"type": "A", "host": "", "value": " 203.0.113.10 "}, "@", "203.0.113.10"),
    ({"type": "A", "host": "WWW", "value": "203.0.113.10"}, "www", "203.0.113.10"),
    ({"type": "A", "host": f"blog.{DOMAIN}.", "value": "203.0.113.10"}, "blog", "203.0.113.10"),
    ({"type": "A", "host": DOMAIN, "value": "203.0.113.10"}, "@", "203.0.113.10"),
    ({"type": "A", "host": "*", "value": "203.0.113.10"}, "*", "203.0.113.10"),
    ({"type": "AAAA", "host": "www", "value": "2001:0db8:0000:0000:0000:0000:0000:0010"}, "www", "2001:db8::10"),
    ({"type": "CNAME", "host": "shop", "value": "shops.myshopify.com."}, "shop", "shops.myshopify.com"),
    (
        {"type": "CNAME", "host": "s1._domainkey", "value": "s1.domainkey.u123.wl.sendgrid.net"},
        "s1._domainkey",
        "s1.domainkey.u123.wl.sendgrid.net",
    ),
    ({"type": "MX", "host": "@", "value": "Mail.Example.NET", "priority": "10"}, "@", "mail.example.net"),
    ({"type": "MX", "host": "@", "value": "smtp.google.com", "priority": "0"}, "@", "smtp.google.com"),
    ({"type": "TXT", "host": "_dmarc", "value": "v=DMARC1; p=none"}, "_dmarc", "v=DMARC1; p=none"),
    (
        {"type": "TXT", "host": "@", "value": '"v=spf1 include:_spf.google.com ~all"'},
        "@",
        "v=spf1 include:_spf.google.com ~all",
    ),
    ({"type": "TXT", "host": "selector._domainkey", "value": DKIM}, "selector._domainkey", DKIM),
    (
        {"type": "TXT", "host": "google._domainkey", "value": f'"{DKIM[:200]}" "{DKIM[200:]}"'},
        "google._domainkey",
        DKIM,
    ),
]


@pytest.mark.parametrize(("data", "host", "value"), ACCEPTED)
def test_it_accepts_and_normalises(data, host, value):
    f = form(data)
    assert f.is_valid(), f.errors
    assert f.cleaned_data["host"] == host
    assert f.cleaned_data["value"] == value


def test_it_keeps_the_mx_priority_and_ignores_priority_for_other_types():
    mx = form({"type": "MX", "value": "mx.example.net", "priority": "20"})
    a = form({"type": "A", "value": "203.0.113.10", "priority": "20"})
    assert mx.is_valid() and a.is_valid()
    assert mx.cleaned_data["priority"] == 20
    assert a.cleaned_data["priority"] is None


def test_an_empty_ttl_means_the_zone_default():
    f = form({"type": "A", "value": "203.0.113.10", "ttl": ""})
    assert f.is_valid()
    assert f.cleaned_data["ttl"] is None


def test_a_ttl_in_range_is_kept():
    f = form({"type": "A", "value": "203.0.113.10", "ttl": "300"})
    assert f.is_valid()
    assert f.cleaned_data["ttl"] == 300


# Refused, with a message on the right field ---------------------------------------------------------------------

REFUSED = [
    ("ipv4", {"type": "A", "value": "203.0.113.300"}, "value", "invalid_ipv4", "IPv4 address"),
    ("ipv4-not-ipv6", {"type": "A", "value": "2001:db8::1"}, "value", "invalid_ipv4", "IPv4 address"),
    ("ipv4-leading-zeros", {"type": "A", "value": "203.0.113.010"}, "value", "invalid_ipv4", "IPv4 address"),
    ("ipv6", {"type": "AAAA", "value": "2001:db8::g"}, "value", "invalid_ipv6", "IPv6 address"),
    ("ipv6-not-ipv4", {"type": "AAAA", "value": "203.0.113.10"}, "value", "invalid_ipv6", "IPv6 address"),
    (
        "cname-not-fqdn",
        {"type": "CNAME", "host": "www", "value": "localhost"},
        "value",
        "invalid_target",
        "full hostname",
    ),
    (
        "cname-bad-label",
        {"type": "CNAME", "host": "www", "value": "-bad.example.com"},
        "value",
        "invalid_target",
        "full hostname",
    ),
    (
        "cname-ip",
        {"type": "CNAME", "host": "www", "value": "203.0.113.10"},
        "value",
        "target_is_ip",
        "not an IP address",
    ),
    ("mx-not-fqdn", {"type": "MX", "value": "mail", "priority": "10"}, "value", "invalid_target", "full hostname"),
    (
        "mx-underscore",
        {"type": "MX", "value": "mail_1.example.net", "priority": "10"},
        "value",
        "invalid_target",
        "full hostname",
    ),
    ("mx-ip", {"type": "MX", "value": "203.0.113.10", "priority": "10"}, "value", "target_is_ip", "not an IP address"),
    (
        "mx-priority-required",
        {"type": "MX", "value": "mx.example.net"},
        "priority",
        "priority_required",
        "needs a priority",
    ),
    (
        "mx-priority-range",
        {"type": "MX", "value": "mx.example.net", "priority": "65536"},
        "priority",
        "max_value",
        "between 0 and 65535",
    ),
    (
        "mx-priority-negative",
        {"type": "MX", "value": "mx.example.net", "priority": "-1"},
        "priority",
        "min_value",
        "between 0 and 65535",
    ),
    (
        "host-label-chars",
        {"type": "A", "host": "my site", "value": "203.0.113.10"},
        "host",
        "invalid_host",
        "letters, digits and hyphens",
    ),
    (
        "host-hyphen-start",
        {"type": "A", "host": "-www", "value": "203.0.113.10"},
        "host",
        "invalid_host",
        "not starting or ending with a hyphen",
    ),
    (
        "host-hyphen-end",
        {"type": "A", "host": "www-", "value": "203.0.113.10"},
        "host",
        "invalid_host",
        "not starting or ending with a hyphen",
    ),
    (
        "host-label-long",
        {"type": "A", "host": "a" * 64, "value": "203.0.113.10"},
        "host",
        "invalid_host",
        "1 to 63 characters",
    ),
    (
        "host-empty-label",
        {"type": "A", "host": "a..b", "value": "203.0.113.10"},
        "host",
        "invalid_host",
        "1 to 63 characters",
    ),
    (
        "host-underscore-in-a",
        {"type": "A", "host": "_dmarc", "value": "203.0.113.10"},
        "host",
        "invalid_host",
        "Underscores are only allowed in TXT and CNAME",
    ),
    (
        "cname-at-apex",
        {"type": "CNAME", "host": "@", "value": "target.example.net"},
        "host",
        "cname_apex",
        "can't be at the domain itself",
    ),
    (
        "cname-at-apex-empty",
        {"type": "CNAME", "host": "", "value": "target.example.net"},
        "host",
        "cname_apex",
        "can't be at the domain itself",
    ),
    ("ttl-too-low", {"type": "A", "value": "203.0.113.10", "ttl": "299"}, "ttl", "min_value", "at least 300"),
    ("ttl-too-high", {"type": "A", "value": "203.0.113.10", "ttl": "86401"}, "ttl", "max_value", "at most 86400"),
    ("ttl-not-number", {"type": "A", "value": "203.0.113.10", "ttl": "1h"}, "ttl", "invalid", "whole number"),
    ("txt-too-long", {"type": "TXT", "value": "x" * 256}, "value", "txt_too_long", "at most 255 characters"),
    ("txt-far-too-long", {"type": "TXT", "value": "x" * 4097}, "value", "max_length", "far too long"),
    ("txt-only-quotes", {"type": "TXT", "value": '""'}, "value", "required", "Enter the text"),
    ("txt-not-ascii", {"type": "TXT", "value": "café"}, "value", "txt_not_ascii", "plain ASCII"),
    ("value-required", {"type": "A", "value": ""}, "value", "required", "Enter the record's value"),
    ("type-read-only", {"type": "NS", "value": "ns1.example.net"}, "type", "invalid_choice", "Choose A, AAAA"),
]


@pytest.mark.parametrize(("case", "data", "field", "code", "message"), REFUSED, ids=[r[0] for r in REFUSED])
def test_it_refuses_with_a_clear_message(case, data, field, code, message):
    f = form(data)
    assert not f.is_valid()
    assert f.has_error(field, code), f.errors.as_data()
    assert message in " ".join(f.errors[field])


# The CNAME rules, with only the listings they need ---------------------------------------------------------------


def test_a_cname_cannot_join_other_records_on_its_host():
    zone = Zone(rec("A", "www", "203.0.113.10"))
    f = form({"type": "CNAME", "host": "www", "value": "shops.myshopify.com"}, zone)
    assert not f.is_valid()
    assert f.has_error("host", "cname_conflict")
    assert "www already has an A record" in f.errors["host"][0]


def test_a_second_cname_on_a_host_is_refused():
    zone = Zone(rec("CNAME", "www", "old.example.net"))
    f = form({"type": "CNAME", "host": "www", "value": "new.example.net"}, zone)
    assert not f.is_valid()
    assert f.has_error("host", "cname_conflict")
    assert zone.asked == ["CNAME"]  # stops at the first conflict


def test_a_cname_on_a_free_host_reads_each_editable_type_once():
    zone = Zone(rec("A", "@", "203.0.113.10"), rec("TXT", "_dmarc", "v=DMARC1; p=none"))
    f = form({"type": "CNAME", "host": "www", "value": "target.example.net"}, zone)
    assert f.is_valid(), f.errors
    assert sorted(zone.asked) == ["A", "AAAA", "CNAME", "MX", "TXT"]


def test_no_record_can_join_a_cname():
    zone = Zone(rec("CNAME", "shop", "shops.myshopify.com"))
    f = form({"type": "TXT", "host": "shop", "value": "hello"}, zone)
    assert not f.is_valid()
    assert f.has_error("host", "host_is_cname")
    assert "alias of shops.myshopify.com" in f.errors["host"][0]


def test_a_record_beside_a_cname_elsewhere_is_fine_and_reads_only_cnames():
    zone = Zone(rec("CNAME", "shop", "shops.myshopify.com"))
    f = form({"type": "A", "host": "www", "value": "203.0.113.10"}, zone)
    assert f.is_valid(), f.errors
    assert zone.asked == ["CNAME"]


def test_hosts_are_compared_as_the_listing_names_them():
    zone = Zone(rec("A", f"www.{DOMAIN}", "203.0.113.10"))
    f = form({"type": "CNAME", "host": "WWW", "value": "target.example.net"}, zone)
    assert not f.is_valid()
    assert f.has_error("host", "cname_conflict")


def test_invalid_input_reads_no_listing():
    zone = Zone()
    f = form({"type": "CNAME", "host": "www", "value": "not a host"}, zone)
    assert not f.is_valid()
    assert zone.asked == []


def test_a_listing_that_fails_is_reported_on_the_form():
    def broken(record_type):
        raise Unavailable()

    f = RecordForm({"type": "CNAME", "host": "www", "value": "target.example.net"}, domain_name=DOMAIN, existing=broken)
    assert not f.is_valid()
    assert f.has_error("__all__", "lookup_failed")
    assert "unavailable right now" in f.non_field_errors()[0]


# Change and delete forms ----------------------------------------------------------------------------------------


def test_the_change_form_applies_the_same_value_rules_without_reading_the_zone():
    f = ChangeRecordForm(
        {"type": "A", "host": "www", "current_value": "203.0.113.10", "value": "203.0.113.999"}, domain_name=DOMAIN
    )
    assert not f.is_valid()
    assert f.has_error("value", "invalid_ipv4")
    assert f.existing is None


def test_the_change_form_needs_the_current_value():
    f = ChangeRecordForm({"type": "A", "host": "www", "value": "203.0.113.11"}, domain_name=DOMAIN)
    assert not f.is_valid()
    assert f.has_error("current_value", "required")


def test_the_delete_form_names_an_editable_record():
    assert DeleteRecordForm({"type": "A", "host": "", "value": "203.0.113.10"}, domain_name=DOMAIN).is_valid()
    assert not DeleteRecordForm({"type": "SOA", "host": "@", "value": "x"}, domain_name=DOMAIN).is_valid()
    assert not DeleteRecordForm({"type": "A", "host": "@", "value": ""}, domain_name=DOMAIN).is_valid()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("", "@"), ("@", "@"), (" Www ", "www"), (f"mail.{DOMAIN}", "mail"), (f"{DOMAIN}.", "@"), ("a.b", "a.b")],
)
def test_hosts_are_made_relative_to_the_zone(raw, expected):
    assert normalize_host(raw, DOMAIN) == expected


def test_quotes_around_a_pasted_txt_value_go():
    assert clean_txt('"hello world"') == "hello world"
    assert clean_txt('"part one " "part two"') == "part one part two"
    assert clean_txt('say "hi"') == 'say "hi"'
