"""Production settings: refuse to start without a secret, and pass Django's deployment checks cleanly.

What settings.py makes of an environment (its values, or its refusal to load) is read in this process
(tests/settings_env.py); only Django's deployment checks under production settings start `manage.py`."""

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.settings_env import clean_environ, settings_under, settings_with

ROOT = Path(__file__).resolve().parents[2]


def _run_manage(*args: str, without: tuple[str, ...] = (), **env: str) -> subprocess.CompletedProcess[str]:
    clean = clean_environ(without=without)
    clean["DJANGO_SETTINGS_MODULE"] = "storefront.settings"
    clean.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=120
    )


PRODUCTION = {
    "DJANGO_SECRET_KEY": "a-long-random-production-secret-" + "x7Qp2" * 10,
    "DJANGO_ALLOWED_HOSTS": "shop.example.com",
    "SITE_URL": "https://shop.example.com",
    "RESELLER_API_KEY": "live_" + "k" * 24,
    "RESELLER_BASE_URL": "https://provider.example.net",
    "RESELLER_METASEARCH_URL": "https://metasearch.example.net",
    "RESELLER_PANEL_URL": "https://panel.example.net",
    # A live key signs customers up at the real provider: its own countries file (tests read the shared copy).
    "COUNTRIES_FILE": str(ROOT.parent / "shared" / "reference" / "countries.json"),
    "EMAIL_URL": "smtp+tls://mailer:pw@smtp.example.com:587",
    # A live provider key sells real domains: the store takes real payments (placeholders, never used here).
    "STRIPE_SECRET_KEY": "sk_live_" + "s" * 24,
    "STRIPE_WEBHOOK_SECRET": "whsec_" + "w" * 24,
    # A store earns its markup (selling at cost is a deploy warning: pricing.W001).
    "PRICE_MARKUP_PERCENT": "20",
    # Somebody receives the worker's alerts (nobody is a deploy warning: storefront.W002).
    "ADMINS": "Ops <ops@example.com>",
}


def test_production_refuses_to_start_without_a_secret_key():
    with pytest.raises(ImproperlyConfigured, match="DJANGO_SECRET_KEY must be set"):
        settings_with()


def test_production_refuses_to_start_without_a_mail_backend():
    production = {k: v for k, v in PRODUCTION.items() if k != "EMAIL_URL"}
    with pytest.raises(ImproperlyConfigured, match="EMAIL_URL must name a real mail backend"):
        # Not even the one the test session sets for itself (tests/settings.py).
        settings_under({**clean_environ(without=("EMAIL_URL",)), **production})


def test_production_refuses_the_console_mail_backend_that_prints_reset_links():
    with pytest.raises(ImproperlyConfigured, match="EMAIL_URL must name a real mail backend"):
        settings_with(**{**PRODUCTION, "EMAIL_URL": "consolemail://"})


def test_a_per_process_cache_fails_the_deploy_check():
    result = _run_manage("check", "--deploy", **{**PRODUCTION, "CACHE_URL": "locmemcache://"})
    assert result.returncode != 0
    assert "storefront.E001" in result.stdout + result.stderr


def test_the_default_cache_is_shared_by_every_process():
    assert settings_with(**PRODUCTION)["CACHES"]["default"]["BACKEND"] == "django.core.cache.backends.db.DatabaseCache"


def test_check_deploy_is_clean_under_production_settings():
    result = _run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        **PRODUCTION,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_selling_at_cost_is_a_deploy_warning():
    result = _run_manage("check", "--deploy", **{**PRODUCTION, "PRICE_MARKUP_PERCENT": "0"})
    assert "pricing.W001" in result.stdout + result.stderr
    assert "every domain sells at the provider's cost" in result.stdout + result.stderr


def test_production_without_admins_warns_that_alerts_reach_nobody(settings):
    from storefront.checks import alerts_reach_someone

    settings.DEBUG, settings.ADMINS = False, []
    [warning] = alerts_reach_someone()
    assert warning.id == "storefront.W002" and "go to nobody" in warning.msg
    settings.ADMINS = [("Ops", "ops@example.com")]
    assert alerts_reach_someone() == []


def test_production_without_a_provider_key_refuses_to_start():
    with pytest.raises(
        ImproperlyConfigured, match="set RESELLER_API_KEY, or RESELLER_SANDBOX=true for a demo deployment"
    ):
        settings_with(DJANGO_SECRET_KEY=PRODUCTION["DJANGO_SECRET_KEY"])


def test_a_demo_deployment_on_the_sandbox_must_say_so_and_finds_it_at_sandbox_url():
    demo = settings_with(
        DJANGO_SECRET_KEY=PRODUCTION["DJANGO_SECRET_KEY"],
        RESELLER_SANDBOX="true",
        SANDBOX_URL="http://127.0.0.1:8123/",
        SITE_URL="https://demo.example.com",
    )
    assert [demo["RESELLER_BASE_URL"], demo["RESELLER_METASEARCH_URL"], demo["RESELLER_PANEL_URL"]] == [
        "http://127.0.0.1:8123",
        "http://127.0.0.1:8123/metasearch",
        "http://127.0.0.1:8123/panel",
    ]


def test_a_real_provider_needs_its_urls():
    with pytest.raises(ImproperlyConfigured, match="RESELLER_BASE_URL"):
        settings_with(DJANGO_DEBUG="true", RESELLER_API_KEY="live_" + "k" * 10)


def test_the_dns_app_is_ours_not_dnspython():
    import dns

    assert Path(dns.__file__).resolve().is_relative_to(ROOT)


def _production_without(*names: str, **extra: str) -> dict[str, Any]:
    env = {k: v for k, v in PRODUCTION.items() if k not in names}
    return settings_with(**{**env, **extra})


def test_a_live_provider_key_without_a_stripe_key_refuses_to_start():
    with pytest.raises(
        ImproperlyConfigured, match="set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET, or PAYMENTS_DISABLED=true"
    ):
        _production_without("STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET")


def test_a_live_provider_key_may_start_with_payments_disabled():
    # Only settings.py refuses over these variables: no system check reads them.
    started = _production_without("STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", PAYMENTS_DISABLED="true")
    assert started["PAYMENTS_DISABLED"] is True


def test_a_stripe_key_without_its_webhook_secret_refuses_to_start():
    with pytest.raises(ImproperlyConfigured, match="set STRIPE_WEBHOOK_SECRET"):
        _production_without("STRIPE_WEBHOOK_SECRET")


def test_checkout_may_lead_to_stripe_checkout_under_the_content_security_policy():
    form_action = settings_with(**PRODUCTION)["CONTENT_SECURITY_POLICY"]["DIRECTIVES"]["form-action"]
    assert "https://checkout.stripe.com" in form_action


def test_production_without_site_url_refuses_to_start_saying_what_to_set():
    with pytest.raises(ImproperlyConfigured) as refused:
        _production_without("SITE_URL")
    # Everything else is configured: the one sentence says what to set, and nothing else is refused.
    assert str(refused.value) == (
        "SITE_URL must be set to the store's public address when DJANGO_DEBUG is off, e.g. "
        "SITE_URL=https://shop.example.com: the links in the emails the worker sends (address confirmation, "
        "password reset) are made from it."
    )


@pytest.mark.parametrize(
    "loopback", ["http://127.0.0.1:8000", "http://localhost:5000/", "https://[::1]", "http://0.0.0.0"]
)
def test_production_refuses_a_site_url_no_customer_can_open(loopback):
    with pytest.raises(ImproperlyConfigured, match="an address of this machine that no customer can open"):
        _production_without(SITE_URL=loopback)


def test_a_loopback_site_url_is_accepted_where_the_site_answers_to_loopback_names_only():
    # A production-like run on one machine (bench/): its links do open, on that machine.
    local = _production_without(SITE_URL="http://127.0.0.1:8123", DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost")
    assert local["SITE_URL"] == "http://127.0.0.1:8123"


def test_a_fresh_clone_with_debug_off_refuses_to_start_naming_what_to_set():
    """As `DJANGO_DEBUG=false python manage.py …` in a fresh clone: nothing configured. One error lists each setting
    production needs, SITE_URL among them."""
    result = _run_manage("check", without=("EMAIL_URL",), DJANGO_DEBUG="false")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    for needed in (
        "DJANGO_SECRET_KEY must be set",
        "EMAIL_URL must name a real mail backend",
        "set RESELLER_API_KEY, or RESELLER_SANDBOX=true",
        "SITE_URL must be set to the store's public address when DJANGO_DEBUG is off, e.g. "
        "SITE_URL=https://shop.example.com",
    ):
        assert needed in result.stderr


def test_a_mail_server_or_database_that_hangs_fails_in_seconds_not_never():
    """Each outside service may be slow: the worker's email sends and a PostgreSQL connection give up in time."""
    production = settings_with(**PRODUCTION, DATABASE_URL="postgres://shop:pw@db.example.net:5432/shop")
    assert production["EMAIL_TIMEOUT"] == 20
    assert production["DATABASES"]["default"]["OPTIONS"]["connect_timeout"] == 5
