"""Configuration that used to fail quietly: URL spellings, the MetaSearch key, the panel URL, a live key's
countries file, and MetaSearch in the operator's checks."""

from io import StringIO

import pytest
from django.core.checks.registry import registry
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command
from django.test import override_settings

from storefront.checks import live_key_without_countries_file
from storefront.gateway import ResellerGateway, gateway
from tests.settings_env import settings_with
from tests.storefront.scripted_server import Answer, ScriptedServer

HELLO = {"server_time": "t", "message": "Authorized"}
EMPTY_SEARCH = {"results": [], "results_total": 0, "results_hidden": 0, "meta": {}, "message": "none"}


@pytest.fixture
def server():
    with ScriptedServer().running() as running:
        yield running


def _client(base_url: str, metasearch_url: str, **options) -> ResellerGateway:
    return ResellerGateway(
        base_url=base_url,
        metasearch_url=metasearch_url,
        api_key="test_main-key",
        connect_timeout=0.5,
        read_timeout=1.0,
        get_retries=0,
        **options,
    )


@pytest.mark.parametrize("suffix", ["", "/", "/api/v1", "/api/v1/"])
def test_the_base_url_works_with_or_without_api_v1(server, suffix):
    server.script(Answer(body=HELLO))
    _client(server.url + suffix, server.url + "/ms").hello()
    assert server.seen[0].path == "/api/v1/hello"


@pytest.mark.parametrize("suffix", ["", "/", "/v1/search", "/v1/search/"])
def test_the_metasearch_url_works_with_or_without_v1_search(server, suffix):
    server.script(Answer(body=EMPTY_SEARCH))
    _client(server.url, server.url + "/ms" + suffix).metasearch(search_term="coffee")
    assert server.seen[0].path.split("?")[0] == "/ms/v1/search"


def test_metasearch_uses_its_own_key_and_the_main_interface_the_main_key(server):
    server.script(Answer(body=EMPTY_SEARCH), Answer(body=HELLO))
    client = _client(server.url, server.url + "/ms", metasearch_key="ms-token-1")
    client.metasearch(search_term="coffee")
    client.hello()
    assert server.seen[0].headers["Authorization"] == "Bearer ms-token-1"
    assert server.seen[1].headers["Authorization"] == "Bearer test_main-key"


def test_the_metasearch_key_defaults_to_the_main_key(server):
    server.script(Answer(body=EMPTY_SEARCH))
    _client(server.url, server.url + "/ms").metasearch(search_term="coffee")
    assert server.seen[0].headers["Authorization"] == "Bearer test_main-key"


def test_a_real_provider_needs_its_panel_url():
    with pytest.raises(ImproperlyConfigured) as refused:
        settings_with(
            DJANGO_DEBUG="true",
            RESELLER_API_KEY="live_" + "k" * 10,
            RESELLER_BASE_URL="https://namify.host/api/v1",
            RESELLER_METASEARCH_URL="https://metasearch.namify.host/v1/search",
        )
    assert "RESELLER_PANEL_URL" in str(refused.value)


def test_a_live_key_without_a_countries_file_is_a_deploy_warning():
    with override_settings(RESELLER_API_KEY="nk_live_" + "k" * 10, COUNTRIES_FILE=""):
        warnings = live_key_without_countries_file()
    assert [w.id for w in warnings] == ["storefront.W001"]
    with override_settings(RESELLER_API_KEY="nk_live_" + "k" * 10, COUNTRIES_FILE="/srv/countries.json"):
        assert live_key_without_countries_file() == []
    with override_settings(RESELLER_API_KEY="nk_test_" + "k" * 10, COUNTRIES_FILE=""):
        assert live_key_without_countries_file() == []
    assert live_key_without_countries_file in registry.get_checks(include_deployment_checks=True)
    assert live_key_without_countries_file not in registry.get_checks(include_deployment_checks=False)


@pytest.mark.django_db(transaction=True)
def test_reseller_check_also_checks_metasearch(sandbox_url, sandbox_partner):
    out = StringIO()
    call_command("reseller_check", stdout=out)
    assert "MetaSearch works" in out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_reseller_check_fails_when_metasearch_does(sandbox_url, sandbox_partner):
    with override_settings(RESELLER_METASEARCH_URL="http://127.0.0.1:9"), pytest.raises(CommandError) as caught:
        gateway.cache_clear()
        call_command("reseller_check", stdout=StringIO())
    gateway.cache_clear()
    assert "MetaSearch not working" in str(caught.value)
    assert "test_sandbox_demo" not in str(caught.value)
