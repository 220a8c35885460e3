"""Billing's work handed to the worker: the services ask for a task here, never by importing billing/tasks.py.

The tasks call the services (settling, collecting, processing a Stripe event), and the services ask for those same
tasks (a hold that lapsed starts collecting, the webhook hands its event over): importing the tasks from the services
would close a circle between the files. So, as Zulip's actions queue their events by queue name, the services enqueue
through the functions below, and billing/tasks.py registers its tasks here when it is imported. Billing's
`AppConfig.ready` imports it, so every process (web, worker, commands) has them before its first request or task.
"""

from __future__ import annotations

from typing import Any

from django_tasks.base import Task

_TASKS: dict[str, Task[..., Any]] = {}


def jobs_register(*tasks: Task[..., Any]) -> None:
    for registered in tasks:
        _TASKS[registered.name] = registered


def _task(name: str) -> Task[..., Any]:
    try:
        return _TASKS[name]
    except KeyError:
        raise LookupError(f"billing task {name!r} is not registered: billing/tasks.py registers it") from None


def payment_settle_enqueue(*, payment_id: int) -> None:
    """`billing.tasks.settle_payment`: register the paid payment's lines and capture (or release)."""
    _task("settle_payment").enqueue(payment_id=payment_id)


def payment_collect_enqueue(*, payment_id: int, again: bool = False) -> None:
    """`billing.tasks.collect_payment`: collect a registered-unpaid payment (the saved card, then the link)."""
    _task("collect_payment").enqueue(payment_id=payment_id, again=again)


def stripe_event_process_enqueue(*, event_id: str) -> None:
    """`billing.tasks.process_stripe_event`: act on one stored Stripe event."""
    _task("process_stripe_event").enqueue(event_id=event_id)
