"""Presets never add a record that clashes with the zone unnoticed: an existing SPF record is merged (a second
one breaks SPF), another provider's MX and another apex address are replaced or kept, as the customer chooses,
and the preview shows what will be removed and what added."""

import re

import pytest
from django.urls import reverse

from tests.dns.conftest import zone, zone_record

pytestmark = pytest.mark.django_db

ZOHO_SPF = "v=spf1 include:zohomail.com ~all"
GOOGLE_SPF = "v=spf1 include:_spf.google.com ~all"
MERGED_SPF = "v=spf1 include:zohomail.com include:_spf.google.com ~all"


def preset_url(order, slug: str) -> str:
    return reverse("dns_preset", args=[order.order_id, slug])


def _hidden(page: str, name: str) -> str:
    found = re.search(rf'<input type="hidden" name="{name}" value="([^"]*)"', page)
    assert found, f"no hidden {name} on the page"
    return found.group(1)


def _apply_as_previewed(client, order, slug: str, answers: dict, choice: str = "") -> str:
    """Preview (with the choice, if any), then press Apply with what the preview's form carries."""
    preview = client.get(preset_url(order, slug), {**answers, **({"existing": choice} if choice else {})})
    page = preview.content.decode()
    posted = {**answers, "existing": _hidden(page, "existing"), "seen": _hidden(page, "seen")}
    return client.post(preset_url(order, slug), posted).content.decode()


def _spf_records(order) -> set[str]:
    return {value for kind, host, value in zone(order) if kind == "TXT" and value.startswith("v=spf1")}


def test_spf_preview_offers_to_merge_into_the_existing_record(signed_in, active_order, add_record):
    add_record("TXT", "@", ZOHO_SPF)
    page = signed_in.get(preset_url(active_order, "spf"), {"provider": "google"}).content.decode()
    assert "already has 1 record this would clash with" in page
    assert ZOHO_SPF in page
    assert "Will be changed" in page and MERGED_SPF in page
    assert "Will be added" not in page
    # Merge is the default; replacing is offered, keeping two SPF records is not.
    assert "Merge: one SPF record that allows both" in page and "Replace: only the new provider" in page
    assert "Keep" not in page
    assert _spf_records(active_order) == {ZOHO_SPF}  # a preview changes nothing


def test_spf_apply_merges_into_one_record(signed_in, active_order, add_record):
    add_record("TXT", "@", ZOHO_SPF)
    body = _apply_as_previewed(signed_in, active_order, "spf", {"provider": "google"})
    assert "Changed" in body
    assert _spf_records(active_order) == {MERGED_SPF}


def test_spf_replace_leaves_only_the_new_provider(signed_in, active_order, add_record):
    add_record("TXT", "@", ZOHO_SPF)
    _apply_as_previewed(signed_in, active_order, "spf", {"provider": "google"}, choice="replace")
    assert _spf_records(active_order) == {GOOGLE_SPF}


def test_spf_already_allowing_the_provider_needs_nothing(signed_in, active_order, add_record, provider_calls):
    add_record("TXT", "@", MERGED_SPF)
    page = signed_in.get(preset_url(active_order, "spf"), {"provider": "google"}).content.decode()
    assert "Nothing to change" in page and "Apply" not in page


def test_mail_preview_shows_the_other_providers_mx_to_be_removed(signed_in, active_order, add_record):
    add_record("MX", "@", "mx.zoho.com", priority=10)
    page = signed_in.get(preset_url(active_order, "mail"), {"provider": "google"}).content.decode()
    assert "mx.zoho.com" in page and "Will be removed" in page
    assert "smtp.google.com" in page and "Will be added" in page
    assert "Apply: make these changes" in page


def test_mail_replace_removes_the_old_mx_after_adding_the_new(signed_in, active_order, add_record):
    add_record("MX", "@", "mx.zoho.com", priority=10)
    body = _apply_as_previewed(signed_in, active_order, "mail", {"provider": "google"})
    assert "Removed" in body and "Added" in body
    assert zone_record(active_order, "MX", "@", "smtp.google.com") is not None
    assert zone_record(active_order, "MX", "@", "mx.zoho.com") is None


def test_mail_keep_adds_beside_the_old_mx(signed_in, active_order, add_record):
    add_record("MX", "@", "mx.zoho.com", priority=10)
    page = signed_in.get(preset_url(active_order, "mail"), {"provider": "google", "existing": "keep"})
    assert b"Will be removed" not in page.content
    _apply_as_previewed(signed_in, active_order, "mail", {"provider": "google"}, choice="keep")
    assert zone_record(active_order, "MX", "@", "smtp.google.com") is not None
    assert zone_record(active_order, "MX", "@", "mx.zoho.com") is not None


def test_the_choice_links_rebuild_the_preview(signed_in, active_order, add_record):
    add_record("MX", "@", "mx.zoho.com", priority=10)
    page = signed_in.get(preset_url(active_order, "mail"), {"provider": "google"}).content.decode()
    keep_link = re.search(r'<a href="([^"]*existing=keep[^"]*)"', page).group(1).replace("&amp;", "&")
    kept = signed_in.get(keep_link).content.decode()
    assert "Will be removed" not in kept and "Apply: add these records" in kept


def test_server_replaces_another_apex_address(signed_in, active_order, add_record):
    add_record("A", "@", "198.51.100.7")
    add_record("AAAA", "@", "2001:db8::7")
    answers = {"ip": "203.0.113.10", "www": "none"}
    page = signed_in.get(preset_url(active_order, "server"), answers).content.decode()
    assert "already has 2 records this would clash with" in page
    assert page.count("Will be removed") == 2
    _apply_as_previewed(signed_in, active_order, "server", answers)
    assert zone_record(active_order, "A", "@", "203.0.113.10") is not None
    assert zone_record(active_order, "A", "@", "198.51.100.7") is None
    assert zone_record(active_order, "AAAA", "@", "2001:db8::7") is None


def test_nothing_is_removed_if_the_zone_changed_since_the_preview(signed_in, active_order, add_record):
    add_record("MX", "@", "mx.zoho.com", priority=10)
    answers = {"provider": "google"}
    preview = signed_in.get(preset_url(active_order, "mail"), answers).content.decode()
    seen = _hidden(preview, "seen")
    add_record("MX", "@", "mx2.zoho.com", priority=20)  # another tab, meanwhile
    body = signed_in.post(preset_url(active_order, "mail"), {**answers, "existing": "replace", "seen": seen})
    assert b"Nothing was changed" in body.content
    assert zone_record(active_order, "MX", "@", "mx.zoho.com") is not None
    assert zone_record(active_order, "MX", "@", "smtp.google.com") is None


def test_the_old_mx_stays_when_the_new_one_could_not_be_added(signed_in, active_order, add_record, fake_gateway):
    from storefront.gateway import ValidationRejected

    add_record("MX", "@", "mx.zoho.com", priority=10)

    preview = signed_in.get(preset_url(active_order, "mail"), {"provider": "google"}).content.decode()
    fake_gateway.fail("dns_record_add", ValidationRejected("Record refused", status=400), times=None)
    body = signed_in.post(
        preset_url(active_order, "mail"),
        {"provider": "google", "existing": "replace", "seen": _hidden(preview, "seen")},
    ).content.decode()
    assert "Not removed" in body
    assert zone_record(active_order, "MX", "@", "mx.zoho.com") is not None
