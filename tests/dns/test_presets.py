"""/orders/<order_id>/dns/presets/<preset>/: questions, a preview of the exact records, then Apply."""

import pytest

from tests.dns.conftest import zone, zone_record

pytestmark = pytest.mark.django_db


def preset_url(order, slug: str) -> str:
    from django.urls import reverse

    return reverse("dns_preset", args=[order.order_id, slug])


def records_sent(provider_calls) -> int:
    return provider_calls.count("dns_record_add")


def test_an_unknown_preset_is_not_found(signed_in, active_order):
    assert signed_in.get(preset_url(active_order, "nonsense")).status_code == 404


def test_it_asks_its_questions_first(signed_in, active_order, provider_calls):
    response = signed_in.get(preset_url(active_order, "server"))
    body = response.content.decode()
    assert response.status_code == 200
    assert "Your server&#x27;s IPv4 address" in body
    assert "Preview the records" in body
    assert len(provider_calls) == 0


def test_the_preview_lists_the_exact_records_and_adds_nothing(signed_in, active_order, provider_calls):
    before = zone(active_order)
    response = signed_in.get(preset_url(active_order, "server"), {"ip": "203.0.113.10", "www": "cname"})
    body = response.content.decode()
    assert response.status_code == 200
    assert "These records will be added" in body
    assert "203.0.113.10" in body
    assert f"<code>{active_order.domain_name}</code>" in body  # www → the domain
    assert "Apply: add these records" in body
    assert records_sent(provider_calls) == 0
    assert zone(active_order) == before


def test_a_bad_answer_is_asked_again(signed_in, active_order, provider_calls):
    response = signed_in.get(preset_url(active_order, "server"), {"ip": "300.1.1.1", "www": "a"})
    body = response.content.decode()
    assert "Enter an IPv4 address" in body
    assert 'value="300.1.1.1"' in body
    assert len(provider_calls) == 0


def test_apply_adds_each_record_and_reports_it(signed_in, active_order, provider_calls):
    response = signed_in.post(preset_url(active_order, "server"), {"ip": "203.0.113.10", "www": "cname"})
    body = response.content.decode()
    assert response.status_code == 200
    assert body.count(">Added<") == 2
    assert zone_record(active_order, "A", "@", "203.0.113.10") is not None
    assert zone_record(active_order, "CNAME", "www", active_order.domain_name) is not None
    assert records_sent(provider_calls) == 2


def test_apply_reports_a_refusal_and_carries_on(signed_in, active_order, monkeypatch):
    from storefront.gateway import DuplicateRecord
    from tests.fakes.gateway import FakeGateway

    original = FakeGateway.dns_record_add

    def refuse_the_apex(self, **kwargs):
        if kwargs["host"] == "@":
            raise DuplicateRecord("Duplicate record found", status=422)
        return original(self, **kwargs)

    monkeypatch.setattr(FakeGateway, "dns_record_add", refuse_the_apex)
    response = signed_in.post(preset_url(active_order, "server"), {"ip": "203.0.113.10", "www": "a"})
    body = response.content.decode()
    assert "Not added" in body
    assert "An A record for the domain itself (@) pointing to 203.0.113.10 already exists." in body
    assert zone_record(active_order, "A", "www", "203.0.113.10") is not None


def test_a_record_already_in_the_zone_is_shown_and_not_sent_again(signed_in, active_order, add_record, provider_calls):
    add_record("A", "@", "203.0.113.10")
    preview = signed_in.get(preset_url(active_order, "server"), {"ip": "203.0.113.10", "www": "a"}).content.decode()
    assert "Already there" in preview and "clash" not in preview
    provider_calls.clear()
    body = signed_in.post(preset_url(active_order, "server"), {"ip": "203.0.113.10", "www": "a"}).content.decode()
    assert "Already there" in body and "Not added" not in body
    assert zone_record(active_order, "A", "www", "203.0.113.10") is not None
    assert records_sent(provider_calls) == 1  # only www


def test_a_record_that_breaks_the_cname_rule_is_shown_and_skipped(signed_in, active_order, add_record, provider_calls):
    add_record("A", "www", "198.51.100.5")
    preview = signed_in.get(preset_url(active_order, "server"), {"ip": "203.0.113.10", "www": "cname"})
    assert b"Will be skipped" in preview.content
    provider_calls.clear()
    applied = signed_in.post(preset_url(active_order, "server"), {"ip": "203.0.113.10", "www": "cname"})
    assert b"Not sent: www already has an A record" in applied.content
    assert zone_record(active_order, "CNAME", "www", active_order.domain_name) is None
    assert records_sent(provider_calls) == 1  # only the apex A


def test_microsoft_365_mail_uses_the_domain_with_dashes(signed_in, active_order):
    signed_in.post(preset_url(active_order, "mail"), {"provider": "microsoft"})
    target = active_order.domain_name.replace(".", "-") + ".mail.protection.outlook.com"
    record = zone_record(active_order, "MX", "@", target)
    assert record is not None
    assert record.priority == 0


def test_google_workspace_mail(signed_in, active_order):
    signed_in.post(preset_url(active_order, "mail"), {"provider": "google"})
    assert zone_record(active_order, "MX", "@", "smtp.google.com").priority == 1


def test_spf(signed_in, active_order):
    signed_in.post(preset_url(active_order, "spf"), {"provider": "google"})
    assert zone_record(active_order, "TXT", "@", "v=spf1 include:_spf.google.com ~all") is not None


def test_dmarc_preview_and_apply(signed_in, active_order):
    answers = {"policy": "none", "rua": "reports@example.org"}
    preview = signed_in.get(preset_url(active_order, "dmarc"), answers).content.decode()
    assert "v=DMARC1; p=none; rua=mailto:reports@example.org" in preview
    signed_in.post(preset_url(active_order, "dmarc"), answers)
    assert zone_record(active_order, "TXT", "_dmarc", "v=DMARC1; p=none; rua=mailto:reports@example.org") is not None


def test_verification_token(signed_in, active_order):
    signed_in.post(preset_url(active_order, "verification"), {"token": '"google-site-verification=abc123"', "host": ""})
    assert zone_record(active_order, "TXT", "@", "google-site-verification=abc123") is not None


def test_htmx_apply_asks_the_editor_to_refresh(htmx, active_order):
    response = htmx.post(preset_url(active_order, "spf"), {"provider": "microsoft"})
    assert response["HX-Trigger"] == "dns-changed"
    assert b"<html" not in response.content
    assert b">Added<" in response.content
