"""Paid work is never behind bulk work: 10,000 sync tasks wait, then a payment's task is enqueued; how many seconds
until a worker starts it. Also: how long a paid task held by a killed worker waits before another worker runs it.

    .venv/bin/python bench/queue_priority.py            # PostgreSQL when BENCH_POSTGRES_URL's server answers
    .venv/bin/python bench/queue_priority.py --sqlite

The workers are the Procfile's (`worker`: paid,default; `bulk`: bulk,default), each a `manage.py run_worker` process
on a database of its own. The 10,000 tasks are the order sync's own (`sync_orders_batch`, bulk queue); the paid task
is billing's `settle_payment` (paid queue), the task that registers a paid payment's lines: it is enqueued for a
payment id that does not exist, so it starts (what is measured: enqueued_at to started_at, as the database records
them) and ends at once without calling anyone. A killed worker is what its death leaves: a paid task RUNNING, its
lease renewed a moment ago (TASK_LEASE_SECONDS=30, the default), never again.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from servers import _database_url  # noqa: E402 - bench/ is not a package

BULK_TASKS = 10_000
RUNS = 5
WORKER = ["--queues", "paid,default", "--interval", "0.5"]  # the Procfile's
BULK = ["--queues", "bulk,default", "--interval", "2"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sqlite", action="store_true", help="SQLite even when PostgreSQL answers")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="storefront-queues-") as tmp:
        folder = Path(tmp)
        url = f"sqlite:///{folder / 'queues.sqlite3'}" if args.sqlite else _database_url(folder, "queues")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL", "METRICS"))}
        env.update(
            DJANGO_DEBUG="true", DATABASE_URL=url, LOG_LEVEL="WARNING", DJANGO_SETTINGS_MODULE="storefront.settings"
        )
        subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
        os.environ.update(env)
        import django

        django.setup()
        print(f"database: {url.split(':')[0]}")
        _paid_behind_bulk(env)
        _killed_worker(env)


def _start(env: dict[str, str], options: list[str]) -> subprocess.Popen:
    # Their log lines (the measured task fails at once: no such payment) would bury the figures.
    command = [sys.executable, "manage.py", "run_worker", *options]
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _stop(*processes: subprocess.Popen) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait(timeout=60)


def _wait_for_workers(count: int) -> None:
    from storefront.models import WorkerBeat

    while WorkerBeat.objects.count() < count:
        time.sleep(0.1)


def _enqueue_bulk() -> None:
    from django.utils import timezone
    from django_tasks_db.models import DBTaskResult, get_date_max

    now = timezone.now()
    DBTaskResult.objects.bulk_create(
        [
            DBTaskResult(
                task_path="domains.orders.tasks.sync_orders_batch",
                args_kwargs={"args": [], "kwargs": {"customer_pks": [], "order_pks": []}},
                backend_name="default",
                queue_name="bulk",
                run_after=get_date_max(),
                enqueued_at=now,
            )
            for _ in range(BULK_TASKS)
        ],
        batch_size=1000,
    )


def _paid_start_seconds() -> float:
    from django_tasks_db.models import DBTaskResult

    from billing.tasks import settle_payment

    result = settle_payment.enqueue(payment_id=0)
    while True:
        row = DBTaskResult.objects.get(pk=result.id)
        if row.started_at is not None:
            return (row.started_at - row.enqueued_at).total_seconds()
        time.sleep(0.05)


def _bulk_waiting() -> int:
    from django_tasks_db.models import DBTaskResult

    return DBTaskResult.objects.ready().filter(queue_name="bulk").count()


def _paid_behind_bulk(env: dict[str, str]) -> None:
    for layout, workers in (
        ("Procfile (worker + bulk)", [WORKER, BULK]),
        ("one worker for every queue", [["--interval", "0.5"]]),
    ):
        _enqueue_bulk()
        processes = [_start(env, options) for options in workers]
        try:
            _wait_for_workers(len(workers))  # running (each has written its first heartbeat), the bulk one busy
            time.sleep(1)
            figures = []
            for _ in range(RUNS):
                waiting = _bulk_waiting()
                figures.append(_paid_start_seconds())
                time.sleep(1)
            print(
                f"{layout}: {waiting:,} bulk tasks still waiting; a paid task started after "
                f"{', '.join(f'{s:.2f}' for s in figures)} s (median {statistics.median(figures):.2f} s)"
            )
        finally:
            _stop(*processes)
        from django_tasks_db.models import DBTaskResult

        DBTaskResult.objects.all().delete()


def _killed_worker(env: dict[str, str]) -> None:
    from django.utils import timezone
    from django_tasks_db.models import DBTaskResult, get_date_max

    from storefront.models import TaskLease

    process = _start(env, WORKER)
    try:
        _wait_for_workers(1)
        now = timezone.now()
        row = DBTaskResult.objects.create(
            task_path="billing.tasks.settle_payment",
            args_kwargs={"args": [], "kwargs": {"payment_id": 0}},
            backend_name="default",
            queue_name="paid",
            run_after=get_date_max(),
            status="RUNNING",
            started_at=now,
            worker_ids=["killed"],
        )
        lease = int(os.environ.get("TASK_LEASE_SECONDS", "30"))
        TaskLease.objects.create(task_id=row.pk, worker_id="killed", expires_at=now + dt.timedelta(seconds=lease))
        while True:
            row.refresh_from_db()
            if len(row.worker_ids) == 2 and row.started_at is not None:
                break
            time.sleep(0.2)
        print(f"killed worker: its paid task ran again {(row.started_at - now).total_seconds():.1f} s after its death")
    finally:
        _stop(process)


if __name__ == "__main__":
    main()
