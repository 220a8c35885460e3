"""A web worker loads what it serves, not what only the PDF downloads, the staff API and the task worker use (issue
41, item 4): WeasyPrint and Factur-X (with fontTools, Pillow, pypdf, lxml) made a worker about 35 MB larger,
confusable-homoglyphs' Unicode tables about 6 MB, and django-ninja with pydantic about 14 MB (bench/memory.py,
docs/benchmarks.md). Checked in a new process that loads the application and every URL module as gunicorn.conf.py's
post_worker_init does: this test process has imported much more by the time it runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

LOADED = """
import sys
from django.core.wsgi import get_wsgi_application
get_wsgi_application()
from django.urls import get_resolver
get_resolver().url_patterns
print(" ".join(sorted({name.split(".")[0] for name in sys.modules})))
"""

# Then a request under /api/v1/ (through the whole stack: middleware, the request's URLconf): the API answers, and
# only from then on is it loaded. Neither request reads the database (no key: refused before any lookup).
API_ON_DEMAND = (
    LOADED
    + """
from django.test import Client
client = Client(SERVER_NAME="127.0.0.1")  # an allowed host (tests/settings.py: SITE_URL)
refused = client.get("/api/v1/customers")
described = client.get("/api/v1/openapi.json")
print(json.dumps({
    "refused": [refused.status_code, refused.headers.get("WWW-Authenticate")],
    "described": [described.status_code, sorted(described.json()["paths"])],
    "loaded": sorted({name.split(".")[0] for name in sys.modules}),
}))
"""
).replace("import sys\n", "import json, sys\n", 1)

# Loaded only when a PDF or an e-invoice is asked for (billing/views.py), an internationalised name is looked at
# (storefront/site/lookalikes.py), or the staff API is called (reseller_api/middleware.py).
ON_DEMAND = ("weasyprint", "facturx", "fontTools", "pypdf", "PIL", "lxml", "confusable_homoglyphs", "ninja", "pydantic")
API_PACKAGES = ("ninja", "pydantic")


@pytest.mark.parametrize("package", ON_DEMAND)
def test_a_web_worker_does_not_load_it_at_start(package: str, loaded_packages: set[str]) -> None:
    assert package not in loaded_packages


def test_the_check_sees_what_is_loaded(loaded_packages: set[str]) -> None:
    """The list is the process's: the packages every request needs are in it."""
    assert {"django", "allauth", "domains", "billing", "storefront"} <= loaded_packages


def test_the_staff_api_answers_once_asked_for_and_is_loaded_then() -> None:
    """The first line is the same process's list before the requests: the API was not loaded until one came."""
    before, after = _run(API_ON_DEMAND).splitlines()[-2:]
    assert not set(API_PACKAGES) & set(before.split())
    answers = json.loads(after)
    assert answers["refused"] == [401, "Bearer"]
    status, paths = answers["described"]
    assert status == 200 and "/api/v1/customers" in paths
    assert set(API_PACKAGES) <= set(answers["loaded"])


@pytest.fixture(scope="module")
def loaded_packages() -> set[str]:
    return set(_run(LOADED).split())


def _run(script: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={"DJANGO_SETTINGS_MODULE": "tests.settings", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return done.stdout
