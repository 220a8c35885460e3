"""Production settings: refuse to start without a secret, and pass Django's deployment checks cleanly."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run_manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "RESELLER_"))}
    clean.pop("DATABASE_URL", None)
    clean["DJANGO_SETTINGS_MODULE"] = "storefront.settings"
    clean.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=120
    )


def test_production_refuses_to_start_without_a_secret_key():
    result = _run_manage("check")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def test_check_deploy_is_clean_under_production_settings():
    result = _run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SECRET_KEY="a-long-random-production-secret-" + "x7Qp2" * 10,
        DJANGO_ALLOWED_HOSTS="shop.example.com",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_a_real_provider_needs_its_urls():
    result = _run_manage("check", DJANGO_DEBUG="true", RESELLER_API_KEY="live_" + "k" * 10)
    assert result.returncode != 0
    assert "RESELLER_BASE_URL" in result.stderr


def test_the_dns_app_is_ours_not_dnspython():
    import dns

    assert Path(dns.__file__).resolve().is_relative_to(ROOT)
