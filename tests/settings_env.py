"""What storefront/settings.py makes of an environment, evaluated in this process: its values, or what it refuses
with. A fresh `manage.py` process per environment cost a Django start (about a second) each; the settings module
itself needs none of it. What needs Django's system checks under other settings (`check --deploy`) still starts one.
"""

from __future__ import annotations

import logging
import os
import runpy
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
SETTINGS_FILE = ROOT / "storefront" / "settings.py"

# The deployment's own configuration, if the shell running the tests has any, must not decide a test.
_DEPLOYMENT_PREFIXES = (
    "DJANGO_",
    "RESELLER_",
    "SANDBOX_",
    "STRIPE_",
    "PAYMENTS_",
    "PRICE_",
    "STORE_",
    "TAX_",
    "PAYMENT_FEE_",
)
_DEPLOYMENT_NAMES = ("DATABASE_URL", "CACHE_URL", "SITE_URL")


def clean_environ(*, without: tuple[str, ...] = ()) -> dict[str, str]:
    """This process's environment without the deployment's variables (nor `without`)."""
    return {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(_DEPLOYMENT_PREFIXES) and name not in _DEPLOYMENT_NAMES and name not in without
    }


def settings_under(environ: Mapping[str, str]) -> dict[str, Any]:
    """The names storefront/settings.py defines with `environ` as the whole environment; raises what it raises."""
    showwarning = warnings.showwarning
    # settings.py reads os.environ itself (django-environ's Env does), so it is swapped, not passed.
    with mock.patch.dict(os.environ, environ, clear=True):
        try:
            return runpy.run_path(str(SETTINGS_FILE))
        finally:
            # Its last line routes Python's warnings into logging: only if this process had not already, undone.
            if warnings.showwarning is not showwarning:
                logging.captureWarnings(False)


def settings_with(**env: str) -> dict[str, Any]:
    """The settings under this process's clean environment (see clean_environ) with `env` added."""
    return settings_under({**clean_environ(), **env})
