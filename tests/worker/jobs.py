"""Tasks for the worker's own tests (module level, as the tasks API requires)."""

from __future__ import annotations

import os
import time

from django_tasks import task

RUNS: list[str] = []


@task()
def count_run() -> None:
    RUNS.append("ran")


@task()
def record_run(*, n: int, path: str) -> int:
    """Append which process ran job `n` to `path` (one short write: O_APPEND keeps lines whole)."""
    time.sleep(0.02)  # long enough that two workers interleave
    with open(path, "a") as log:
        log.write(f"{n} {os.getpid()}\n")
    return n


class Mailbox:
    broken = True


@task()
def deliver(*, to: str) -> str:
    if Mailbox.broken:
        raise ConnectionRefusedError(f"mail relay refused the message for {to}")
    return to


@task()
def dies_the_first_time(*, path: str) -> int:
    """Writes a line per run; the first run then waits a minute (long enough to be killed mid-task)."""
    with open(path, "a") as log:
        log.write(f"{os.getpid()}\n")
    with open(path) as log:
        runs = len(log.read().splitlines())
    if runs == 1:
        time.sleep(60)
    return runs


ORDER: list[str] = []


@task(queue_name="bulk")
def bulk_job(*, n: int) -> int:
    ORDER.append(f"bulk {n}")
    return n


@task(queue_name="paid")
def paid_job(*, n: int) -> int:
    ORDER.append(f"paid {n}")
    return n
