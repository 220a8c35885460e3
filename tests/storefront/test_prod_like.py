"""bench/prod_like.py, run as CI runs the suite: the storefront as the Procfile starts it (gunicorn, 2 workers,
production settings, the database cache, the worker, a real SMTP server) replays the security issue's
attacks. It fails on a renew form renewing twice, a rate limit counted per worker, or a secret in the logs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.mark.end_to_end
def test_the_production_like_run_passes(collected_static):
    result = subprocess.run(
        [sys.executable, "bench/prod_like.py"],
        cwd=ROOT,
        env=collected_static,
        capture_output=True,
        text=True,
        timeout=300,
    )

    print(result.stdout)  # its numbers, shown by pytest when the test fails (and with -s)
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    assert "renewals_recorded: 1" in result.stdout
    assert "canary_hits: 0" in result.stdout
