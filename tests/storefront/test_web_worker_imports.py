"""A web worker loads what it serves, not what only the PDF downloads and the task worker use (issue 41, item 4):
WeasyPrint and Factur-X (with fontTools, Pillow, pypdf, lxml) made a worker about 35 MB larger, and
confusable-homoglyphs' Unicode tables about 6 MB (bench/memory.py, docs/benchmarks.md). Checked in a new process
that loads the application and every URL module as gunicorn.conf.py's post_worker_init does: this test process has
imported much more by the time it runs."""

from __future__ import annotations

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

# Loaded only when a PDF or an e-invoice is asked for (billing/views.py), or an internationalised name is looked at
# (storefront/site/lookalikes.py).
ON_DEMAND = ("weasyprint", "facturx", "fontTools", "pypdf", "PIL", "lxml", "confusable_homoglyphs")


@pytest.mark.parametrize("package", ON_DEMAND)
def test_a_web_worker_does_not_load_it_at_start(package: str, loaded_packages: set[str]) -> None:
    assert package not in loaded_packages


def test_the_check_sees_what_is_loaded(loaded_packages: set[str]) -> None:
    """The list is the process's: the packages every request needs are in it."""
    assert {"django", "allauth", "domains", "billing", "storefront"} <= loaded_packages


@pytest.fixture(scope="module")
def loaded_packages() -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", LOADED],
        cwd=ROOT,
        env={"DJANGO_SETTINGS_MODULE": "tests.settings", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return set(done.stdout.split())
