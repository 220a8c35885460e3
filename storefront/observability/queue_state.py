"""What the task queues and their workers are doing, read from the database: for the metrics (/metrics) and the
staff dashboard. Every figure is one small grouped query, however many tasks wait."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Case, Count, F, Max, Min, When
from django.utils import timezone
from django_tasks_db.models import DBTaskResult, get_date_max

from storefront.models import WorkerBeat
from storefront.queues import QUEUES

# No worker has taken a task for this long while tasks wait: staff are alerted (the dashboard).
STALLED_AFTER = dt.timedelta(minutes=5)


@dataclass(frozen=True)
class QueueState:
    name: str
    waiting: int  # ready to run now
    oldest_seconds: float  # how long the oldest of them has been ready (0 when none waits)


def queue_states(*, now: dt.datetime | None = None) -> list[QueueState]:
    """Every queue, most urgent first, with the tasks ready now and the age of the oldest (ready since it was
    enqueued, or since its `run_after` for a deferred one)."""
    now = now or timezone.now()
    ready_since = Case(When(run_after=get_date_max(), then=F("enqueued_at")), default=F("run_after"))
    rows = (
        DBTaskResult.objects.ready()
        .values("queue_name")
        .annotate(waiting=Count("pk"), oldest=Min(ready_since))
        .order_by()
    )
    found = {row["queue_name"]: row for row in rows}
    names = [*QUEUES, *sorted(set(found) - set(QUEUES))]
    states = []
    for name in names:
        row = found.get(name)
        oldest = max(0.0, (now - row["oldest"]).total_seconds()) if row else 0.0
        states.append(QueueState(name, row["waiting"] if row else 0, oldest))
    return states


def workers_seen() -> list[WorkerBeat]:
    return list(WorkerBeat.objects.order_by("-seen_at")[:50])


def last_task_taken_at() -> dt.datetime | None:
    return WorkerBeat.objects.aggregate(last=Max("took_task_at"))["last"]


def workers_stalled(*, now: dt.datetime | None = None, queues: list[QueueState] | None = None) -> bool:
    """Tasks have been waiting for STALLED_AFTER and no worker has taken one for as long (dead, or stuck)."""
    now = now or timezone.now()
    queues = queue_states(now=now) if queues is None else queues
    if not any(q.waiting and q.oldest_seconds >= STALLED_AFTER.total_seconds() for q in queues):
        return False
    taken = last_task_taken_at()
    return taken is None or now - taken >= STALLED_AFTER
