"""bench/fault_matrix.py, run as CI runs the suite: the whole stack as the Procfile starts it (production settings,
gunicorn, the worker and the scheduler, a private Redis, the sandbox provider and payment service, an SMTP server),
on this run's database engine (SQLite, or PostgreSQL in a database of its own beside the test database), with each
outside service stopped in turn while a scripted customer signs in, searches, buys and renews. It fails on a 500, a
request over 30 s, a flow that does not complete once the service is back, or money taken without a domain."""

from __future__ import annotations

import subprocess
import sys

import pytest
from django.conf import settings

from tests.conftest import ROOT


def _postgres() -> list[str]:
    database = settings.DATABASES["default"]
    if database["ENGINE"] != "django.db.backends.postgresql":
        return []
    auth = database["USER"] + (f":{database['PASSWORD']}" if database["PASSWORD"] else "")
    server = f"{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}"
    return ["--postgres", f"postgres://{auth}@{server}/{database['NAME']}_faults"]


@pytest.mark.end_to_end
def test_every_outside_service_fails_alone_and_nothing_becomes_a_500(collected_static):
    command = [sys.executable, "bench/fault_matrix.py", "--web-processes", "1", *_postgres()]
    result = subprocess.run(command, cwd=ROOT, env=collected_static, capture_output=True, text=True, timeout=900)

    print(result.stdout)  # what customers saw per fault, shown by pytest when the test fails (and with -s)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert "fault_matrix: OK" in result.stdout
    for fault in ("mail", "redis", "database", "metasearch", "main", "payments"):
        assert f"== {fault}:" in result.stdout
