"""Two worker processes on one PostgreSQL database never run the same task twice (rows claimed under lock).

Needs DATABASE_URL to name PostgreSQL (CI: the PostgreSQL job); skipped on SQLite, where one worker is the rule.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test import override_settings
from django_tasks_db.models import DBTaskResult

from storefront.queues import QUEUES
from tests.worker.jobs import record_run

ROOT = Path(__file__).resolve().parents[2]
JOBS = 60

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
        reason="needs DATABASE_URL=postgres://… (row locks between worker processes)",
    ),
]


def worker_env() -> dict[str, str]:
    db = connection.settings_dict
    host = f"{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
    url = f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{host}/{db['NAME']}"
    return {
        **os.environ,
        "DATABASE_URL": url,  # the test database pytest made, not the one named in the outer DATABASE_URL
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "STOREFRONT_TEST_TASKS": "database",
    }


@override_settings(TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": list(QUEUES)}})
def test_two_workers_never_run_the_same_job_twice(tmp_path):
    log = tmp_path / "runs.log"
    for n in range(JOBS):
        record_run.enqueue(n=n, path=str(log))

    command = [sys.executable, "manage.py", "run_worker", "--batch", "--no-startup-delay", "-v", "0"]
    workers = [
        subprocess.Popen([*command, "--worker-id", f"w{i}"], cwd=ROOT, env=worker_env(), stderr=subprocess.PIPE)
        for i in range(2)
    ]
    for worker in workers:
        _, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err.decode()

    runs = [line.split() for line in log.read_text().splitlines()]
    counts = Counter(int(n) for n, _ in runs)
    assert sorted(counts) == list(range(JOBS))
    assert set(counts.values()) == {1}  # each job ran exactly once
    assert len({pid for _, pid in runs}) == 2  # and both workers took part
    assert DBTaskResult.objects.successful().count() == JOBS
