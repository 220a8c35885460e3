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


def _run_manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = clean_environ()
    clean["DJANGO_SETTINGS_MODULE"] = "storefront.settings"
    clean.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=120
    )


PRODUCTION = {
    "DJANGO_SECRET_KEY": "a-long-random-production-secret-" + "x7Qp2" * 10,
    "DJANGO_ALLOWED_HOSTS": "shop.example.com",
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
        DJANGO_SECRET_KEY=PRODUCTION["DJANGO_SECRET_KEY"], RESELLER_SANDBOX="true", SANDBOX_URL="http://127.0.0.1:8123/"
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
    return settings_with(**env, **extra)


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
