"""The scheduler enqueues each job once per period, however many scheduler processes tick."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.core.management import call_command
from django.test import override_settings

from storefront.background.scheduler import job_schedule, job_unschedule, jobs, period_start, scheduler_tick
from storefront.models import ScheduledRun
from tests.worker import jobs as counting

pytestmark = pytest.mark.django_db

EVERY_FIVE = ["counted"]


@pytest.fixture(autouse=True)
def _counted_job():
    counting.RUNS.clear()
    job_schedule("counted", "*/5 * * * *", counting.count_run)
    yield
    job_unschedule("counted")


@override_settings(SCHEDULED_JOBS=EVERY_FIVE)
def test_each_period_is_enqueued_once_whatever_the_number_of_ticks():
    with time_machine.travel(dt.datetime(2026, 3, 1, 10, 1, 30, tzinfo=dt.UTC), tick=False):
        assert scheduler_tick() == ["counted"]
        assert scheduler_tick() == []  # a second scheduler (or the next tick) in the same period
    with time_machine.travel(dt.datetime(2026, 3, 1, 10, 4, 59, tzinfo=dt.UTC), tick=False):
        assert scheduler_tick() == []
    with time_machine.travel(dt.datetime(2026, 3, 1, 10, 5, 0, tzinfo=dt.UTC), tick=False):
        assert scheduler_tick() == ["counted"]
    assert counting.RUNS == ["ran", "ran"]
    assert list(ScheduledRun.objects.order_by("period_start").values_list("period_start__minute", flat=True)) == [0, 5]


@override_settings(SCHEDULED_JOBS=EVERY_FIVE)
def test_the_command_ticks_once():
    call_command("run_scheduler", "--once")
    call_command("run_scheduler", "--once")
    assert counting.RUNS == ["ran"]


def test_a_time_on_the_boundary_starts_its_own_period():
    boundary = dt.datetime(2026, 3, 1, 10, 5, tzinfo=dt.UTC)
    assert period_start(cron="*/5 * * * *", now=boundary) == boundary
    assert period_start(cron="*/5 * * * *", now=boundary - dt.timedelta(seconds=1)) == boundary.replace(minute=0)


def test_every_app_schedules_its_jobs_at_start_up():
    scheduled = {job.name: job for job in jobs()}
    assert {
        "reconcile-registrations",
        "checkout-emails",
        "order-sync",
        "renewal-reminders",
        "auto-renew",
        "staff-alerts",
        "send-emails",
        "authorisation-expiry",
        "price-sync",
        "webhook-deliveries",
        "webhooks-domain-expiring",
        "demand-arrivals",
    } <= set(scheduled)
    for job in scheduled.values():
        assert hasattr(job.task, "enqueue"), job.name
