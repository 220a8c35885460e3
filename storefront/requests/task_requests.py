"""Tasks run under the id of the request that enqueued them (storefront/requests/request_ids.py): the id is kept by task
(storefront.TaskRequest) when the task is enqueued, and bound in the worker's thread while the task runs, so its
log lines, provider calls and error reports carry it. A task enqueued with no request behind it (the scheduler's)
runs under an id of its own."""

from __future__ import annotations

import logging
import threading
from contextvars import Token
from typing import Any

from django.db import DatabaseError, transaction
from django_tasks.backends.immediate import ImmediateBackend
from django_tasks.signals import task_enqueued, task_finished, task_started

from storefront.models import TaskRequest
from storefront.requests import request_ids

logger = logging.getLogger("storefront.background.worker")
_task_tokens = threading.local()


def _runs_at_once(sender: Any) -> bool:
    # django-tasks-db's worker sends task_started with the backend itself as sender, the others with its class.
    return issubclass(sender if isinstance(sender, type) else type(sender), ImmediateBackend)


def task_enqueued_remember(*, sender: Any, task_result: Any, **_: Any) -> None:
    """django-tasks' task_enqueued: a task enqueued while serving a request will run under the request's id.
    (Nothing to keep for a backend that runs the task at once, in this very context.)"""
    request_id = request_ids.current()
    if request_id is None or _runs_at_once(sender):
        return
    try:
        # A savepoint of its own: the enqueue's transaction stays usable whatever happens here.
        with transaction.atomic():
            TaskRequest.objects.create(task_id=str(task_result.id), request_id=request_id)
    except DatabaseError as err:  # the task still runs, under an id of its own
        logger.warning("task %s: its request id was not kept (%s)", task_result.id, type(err).__name__)


def task_started_bind(*, sender: Any, task_result: Any, **_: Any) -> None:
    """django-tasks' task_started, in the thread about to run the task: bind the id of the request that enqueued
    it, or (run at once inside that request, or with no request behind it) the current id or a new one. Never
    raises: a receiver's error would fail the task."""
    stored = None
    if not _runs_at_once(sender):
        try:
            rows = TaskRequest.objects.filter(task_id=str(task_result.id))
            stored = rows.values_list("request_id", flat=True).first()
        except DatabaseError as err:
            logger.warning("task %s: its request id could not be read (%s)", task_result.id, type(err).__name__)
    tokens: list[Token[str | None]] = _task_tokens.__dict__.setdefault("stack", [])
    tokens.append(request_ids.bind(stored or request_ids.current() or request_ids.generate()))


def task_finished_unbind(**_: Any) -> None:
    """django-tasks' task_finished (connected after its own receiver, which logs a failure under the task's id):
    the thread's previous id again (none in a worker; the request's for a task run at once)."""
    tokens: list[Token[str | None]] = _task_tokens.__dict__.get("stack", [])
    if tokens:
        request_ids.unbind(tokens.pop())


def connect_task_signals() -> None:
    task_enqueued.connect(task_enqueued_remember, dispatch_uid="request_ids.enqueued")
    task_started.connect(task_started_bind, dispatch_uid="request_ids.started")
    task_finished.connect(task_finished_unbind, dispatch_uid="request_ids.finished")
