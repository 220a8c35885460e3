"""Helpers every background task shares: retry with backoff, and claiming rows so two workers never both act.

Retries: a task that fails raises (its result is recorded FAILED, with the traceback, for staff in the admin)
after enqueueing its next attempt with a growing, jittered delay. Backends that cannot defer (the immediate one
the tests use) get no automatic retry; the periodic sweeps pick the work up again instead.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from django.conf import settings
from django.db import connections, router, transaction
from django.db.models import Model, QuerySet
from django.utils import timezone
from django_tasks.base import Task

from storefront.queues import DEFAULT, PAID

M = TypeVar("M", bound=Model)

_FIRST_DELAY_SECONDS = 60
_MAX_DELAY_SECONDS = 60 * 60
# Paid work (a customer paid and waits): 5, 10, then every 15 seconds. With the provider's breaker cooldown (30 s)
# before it, a paid task runs again within a minute of the service coming back, not at the next hourly retry.
_PAID_FIRST_DELAY_SECONDS = 5
_PAID_MAX_DELAY_SECONDS = 15


def retry_delay(*, attempt: int, queue_name: str = DEFAULT) -> dt.timedelta:
    """1, 2, 4 ... minutes (capped at an hour), each with up to a quarter added so retries do not bunch up; paid
    work 5, 10, 15, 15 ... seconds."""
    first, most = (
        (_PAID_FIRST_DELAY_SECONDS, _PAID_MAX_DELAY_SECONDS)
        if queue_name == PAID
        else (_FIRST_DELAY_SECONDS, _MAX_DELAY_SECONDS)
    )
    base = min(first * 2 ** max(attempt - 1, 0), most)
    return dt.timedelta(seconds=base * (1 + random.random() / 4))  # noqa: S311 (jitter, not security)


def retry_attempts(*, queue_name: str) -> int:
    """How many times a task is tried: paid work for TASK_PAID_RETRY_MINUTES of retries (an outage that long),
    anything else TASK_RETRY_ATTEMPTS times (the periodic sweeps pick it up after that)."""
    if queue_name == PAID:
        return max(settings.TASK_RETRY_ATTEMPTS, int(settings.TASK_PAID_RETRY_MINUTES * 60 / _PAID_MAX_DELAY_SECONDS))
    return settings.TASK_RETRY_ATTEMPTS


def retry_later(task: Task, *, attempt: int, kwargs: dict[str, Any]) -> bool:
    """Enqueue attempt `attempt + 1` of `task` after a backoff delay. False when no retry was enqueued."""
    if attempt >= retry_attempts(queue_name=task.queue_name) or not task.get_backend().supports_defer:
        return False
    run_after = timezone.now() + retry_delay(attempt=attempt, queue_name=task.queue_name)
    task.using(run_after=run_after).enqueue(**kwargs, attempt=attempt + 1)
    return True


@contextmanager
def claimed(queryset: QuerySet[M]) -> Iterator[list[M]]:
    """The rows of `queryset` that no other worker holds, kept locked until the block ends.

    PostgreSQL (several workers): row locks, skipping rows another worker has, so the slow part inside the
    block (a mail server) runs once per row. SQLite runs one worker (docs/deployment.md), and a transaction there would
    lock out every writer, web requests included, for as long as the block takes: the rows as they are.
    """
    alias = router.db_for_write(queryset.model)
    if connections[alias].vendor == "postgresql":
        with transaction.atomic(using=alias):
            yield list(queryset.select_for_update(skip_locked=True, of=("self",)))
    else:
        yield list(queryset)
