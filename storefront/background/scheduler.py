"""The periodic jobs, and the tick that enqueues each one once per period (run by `manage.py run_scheduler`).

Any number of scheduler processes may run (two dynos, a restart overlapping the old one): each period of each
job is a row of `ScheduledRun` under a unique constraint, inserted in the same transaction as the enqueued task,
so only the first process to tick in a period enqueues it. Periods are cron expressions (croniter), in UTC.

Each app schedules its own jobs beside the tasks they run (`job_schedule(...)` at the end of its tasks module, which
its AppConfig imports): the storefront package imports no app, and the task is an object an editor can follow.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from croniter import croniter
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django_tasks.base import Task

from storefront.models import ScheduledRun

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Job:
    name: str
    cron: str
    task: Task


_JOBS: dict[str, Job] = {}


def job_schedule(name: str, cron: str, task: Task) -> Job:
    """Run `task` (enqueued with no arguments) once in every period of `cron` (UTC). Called once per job, beside
    the task, when its app is loaded; a second call with the same name replaces the first."""
    job = Job(name, cron, task)
    _JOBS[name] = job
    return job


def job_unschedule(name: str) -> None:
    _JOBS.pop(name, None)


def jobs() -> list[Job]:
    """Every scheduled job, or only those settings.SCHEDULED_JOBS names (a list of job names) when it is set."""
    only = getattr(settings, "SCHEDULED_JOBS", None)
    return [job for name, job in sorted(_JOBS.items()) if only is None or name in only]


def next_run_at(*, cron: str, after: dt.datetime) -> dt.datetime:
    """The first time matching `cron` (UTC) at or after `after`: when a job is next enqueued."""
    base = after.astimezone(dt.UTC) - dt.timedelta(seconds=1)
    return croniter(cron, base).get_next(dt.datetime).replace(tzinfo=dt.UTC)


def period_start(*, cron: str, now: dt.datetime) -> dt.datetime:
    """The start of the period of `cron` that `now` falls in (a time matching the expression counts as the
    start of its own period)."""
    base = now.replace(second=0, microsecond=0) + dt.timedelta(seconds=1)
    return croniter(cron, base).get_prev(dt.datetime)


def scheduler_tick(*, now: dt.datetime | None = None) -> list[str]:
    """Enqueue every job whose current period has not been enqueued yet. Returns the names enqueued."""
    now = now or timezone.now()
    enqueued = []
    for job in jobs():
        start = period_start(cron=job.cron, now=now)
        try:
            with transaction.atomic():
                run = ScheduledRun.objects.create(job=job.name, period_start=start)
                result = job.task.enqueue()
                run.task_result_id = str(result.id)
                run.save(update_fields=["task_result_id"])
        except IntegrityError:
            continue  # another scheduler enqueued this period
        logger.info("scheduled %s for the period from %s", job.name, start.isoformat())
        enqueued.append(job.name)
    return enqueued
