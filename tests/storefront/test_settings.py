"""Production settings: refuse to start without a secret, and pass Django's deployment checks cleanly."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run_manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "RESELLER_", "SANDBOX_", "STRIPE_", "PAYMENTS_"))
    }
    clean.pop("DATABASE_URL", None)
    clean.pop("CACHE_URL", None)
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
}


def test_production_refuses_to_start_without_a_secret_key():
    result = _run_manage("check")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def _without_email(**env: str) -> subprocess.CompletedProcess[str]:
    saved = os.environ.pop("EMAIL_URL", None)
    try:
        return _run_manage("check", **env)
    finally:
        if saved is not None:
            os.environ["EMAIL_URL"] = saved


def test_production_refuses_to_start_without_a_mail_backend():
    result = _without_email(**{k: v for k, v in PRODUCTION.items() if k != "EMAIL_URL"})
    assert result.returncode != 0
    assert "EMAIL_URL must name a real mail backend" in result.stderr


def test_production_refuses_the_console_mail_backend_that_prints_reset_links():
    result = _run_manage("check", **{**PRODUCTION, "EMAIL_URL": "consolemail://"})
    assert result.returncode != 0
    assert "EMAIL_URL must name a real mail backend" in result.stderr


def test_a_per_process_cache_fails_the_deploy_check():
    result = _run_manage("check", "--deploy", **{**PRODUCTION, "CACHE_URL": "locmemcache://"})
    assert result.returncode != 0
    assert "storefront.E001" in result.stdout + result.stderr


def test_the_default_cache_is_shared_by_every_process():
    result = _run_manage(
        "shell", "-c", "from django.conf import settings; print(settings.CACHES['default']['BACKEND'])", **PRODUCTION
    )
    assert result.stdout.strip().splitlines()[-1] == "django.core.cache.backends.db.DatabaseCache", result.stderr


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


def test_production_without_a_provider_key_refuses_to_start():
    result = _run_manage("check", DJANGO_SECRET_KEY=PRODUCTION["DJANGO_SECRET_KEY"])
    assert result.returncode != 0
    assert "set RESELLER_API_KEY, or RESELLER_SANDBOX=true for a demo deployment" in result.stderr


def test_a_demo_deployment_on_the_sandbox_must_say_so_and_finds_it_at_sandbox_url():
    script = (
        "from django.conf import settings as s; "
        "print(s.RESELLER_BASE_URL, s.RESELLER_METASEARCH_URL, s.RESELLER_PANEL_URL)"
    )
    result = _run_manage(
        "shell",
        "-c",
        script,
        DJANGO_SECRET_KEY=PRODUCTION["DJANGO_SECRET_KEY"],
        RESELLER_SANDBOX="true",
        SANDBOX_URL="http://127.0.0.1:8123/",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].split() == [
        "http://127.0.0.1:8123",
        "http://127.0.0.1:8123/metasearch",
        "http://127.0.0.1:8123/panel",
    ]


def test_a_real_provider_needs_its_urls():
    result = _run_manage("check", DJANGO_DEBUG="true", RESELLER_API_KEY="live_" + "k" * 10)
    assert result.returncode != 0
    assert "RESELLER_BASE_URL" in result.stderr


def test_the_dns_app_is_ours_not_dnspython():
    import dns

    assert Path(dns.__file__).resolve().is_relative_to(ROOT)


def _production_without(*names: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in PRODUCTION.items() if k not in names}
    return _run_manage("check", **env, **extra)


def test_a_live_provider_key_without_a_stripe_key_refuses_to_start():
    result = _production_without("STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET")
    assert result.returncode != 0
    assert "set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET, or PAYMENTS_DISABLED=true" in result.stderr


def test_a_live_provider_key_may_start_with_payments_disabled():
    result = _production_without("STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", PAYMENTS_DISABLED="true")
    assert result.returncode == 0, result.stderr


def test_a_stripe_key_without_its_webhook_secret_refuses_to_start():
    result = _production_without("STRIPE_WEBHOOK_SECRET")
    assert result.returncode != 0
    assert "set STRIPE_WEBHOOK_SECRET" in result.stderr


def test_checkout_may_lead_to_stripe_checkout_under_the_content_security_policy():
    show = "from django.conf import settings; print(settings.CONTENT_SECURITY_POLICY['DIRECTIVES']['form-action'])"
    result = _run_manage("shell", "-c", show, **PRODUCTION)
    assert result.returncode == 0, result.stderr
    assert "https://checkout.stripe.com" in result.stdout
