"""RESELLER_CAPABILITIES: which of the provider's "coming soon" features the store may use
(storefront/site/capabilities.py), its defaults and refusals, and the sentence a customer reads while one is off."""

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings
from django.utils import translation

from storefront.gateway import CapabilityOff
from storefront.site.capabilities import CAPABILITIES, capability_enabled
from tests.settings_env import settings_with


def test_the_customers_sentence_says_it_cannot_be_done_here_yet_in_both_languages():
    error = CapabilityOff("privacy")
    assert str(error.message) == "This cannot be done through this store yet."
    with translation.override("es"):
        assert str(error.message) == "Esto todavía no se puede hacer a través de esta tienda."
    assert "privacy" in error.provider_message  # for staff and logs


def test_capability_enabled_reads_the_setting_each_time_and_knows_its_names():
    with override_settings(RESELLER_CAPABILITIES=["privacy"]):
        assert capability_enabled("privacy") and not capability_enabled("domain_delete")
    with override_settings(RESELLER_CAPABILITIES=[]):
        assert not capability_enabled("privacy")
    with pytest.raises(ValueError, match="known: customer_details, contacts"):
        capability_enabled("whois")


def test_with_the_sandbox_every_capability_is_on_by_default():
    assert settings_with(DJANGO_DEBUG="true", RESELLER_SANDBOX="true")["RESELLER_CAPABILITIES"] == list(CAPABILITIES)


def test_with_the_real_provider_none_is_on_by_default():
    real = settings_with(
        DJANGO_DEBUG="true",
        RESELLER_API_KEY="live_" + "k" * 24,
        RESELLER_BASE_URL="https://provider.example.net",
        RESELLER_METASEARCH_URL="https://metasearch.example.net",
        RESELLER_PANEL_URL="https://panel.example.net",
    )
    assert real["RESELLER_SANDBOX"] is False
    assert real["RESELLER_CAPABILITIES"] == []


def test_a_list_names_exactly_what_is_on_and_empty_turns_all_off():
    named = settings_with(DJANGO_DEBUG="true", RESELLER_CAPABILITIES=" privacy, Transfer_Lock ,")
    assert named["RESELLER_CAPABILITIES"] == ["privacy", "transfer_lock"]
    assert (
        settings_with(DJANGO_DEBUG="true", RESELLER_SANDBOX="true", RESELLER_CAPABILITIES="")["RESELLER_CAPABILITIES"]
        == []
    )


def test_an_unknown_name_refuses_to_start_with_a_sentence_listing_the_known_ones():
    with pytest.raises(ImproperlyConfigured) as caught:
        settings_with(DJANGO_DEBUG="true", RESELLER_CAPABILITIES="privacy,whois_privacy")
    assert str(caught.value) == (
        "RESELLER_CAPABILITIES names whois_privacy, which this store does not know; the known capabilities are "
        "customer_details, contacts, privacy, domain_details, domain_delete, transfer_lock "
        "(comma-separated, or empty for none)."
    )
