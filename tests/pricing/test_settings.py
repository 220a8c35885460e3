"""The default rule comes from the environment; a setting that would misprice everything stops the start."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _check(**env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "RESELLER_", "PRICE_", "STORE_"))}
    clean.pop("DATABASE_URL", None)
    clean.update(DJANGO_SETTINGS_MODULE="storefront.settings", DJANGO_DEBUG="true", **env)
    return subprocess.run(
        [sys.executable, "manage.py", "shell", "-v", "0", "-c", "from django.conf import settings as s; "
         "print(s.PRICE_MARKUP_PERCENT, s.PRICE_MARKUP_FIXED, s.PRICE_ROUNDING, s.STORE_CURRENCY)"],
        cwd=ROOT, env=clean, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_defaults_sell_at_cost_in_usd():
    result = _check()
    assert result.stdout.split() == ["0", "0", "none", "USD"]


def test_values_from_the_environment():
    result = _check(PRICE_MARKUP_PERCENT="12.5", PRICE_MARKUP_FIXED="1.00", PRICE_ROUNDING="99", STORE_CURRENCY="eur")
    assert result.stdout.split() == ["12.5", "1.00", "99", "EUR"]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"PRICE_ROUNDING": "nearest"}, 'PRICE_ROUNDING must be "none" or "99".'),
        ({"PRICE_MARKUP_PERCENT": "-10"}, "must be 0 or more"),
        ({"PRICE_MARKUP_FIXED": "two"}, "must be numbers"),
    ],
)
def test_bad_values_refuse_to_start(env, message):
    result = _check(**env)
    assert result.returncode != 0
    assert message in result.stderr
