"""One id per request, from the edge to the provider: on the request's log lines, its tasks, its provider calls
(`X-Request-ID`), its error reports and the error pages a customer quotes to support (docs/operations.md).

The id is the router's `X-Request-ID` when a trusted proxy sent the request (`TRUSTED_PROXY_COUNT` > 0: a client
talking to us directly could otherwise choose its own, e.g. another customer's), else a new one. It lives in a
context variable for the request (a thread's or a task's), so code far from the view reads it without passing it
along. A task enqueued during a request runs under that request's id (storefront/requests/task_requests.py); any other
task gets an id of its own.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

HEADER = "X-Request-ID"
# What we accept from a proxy: a router's ids are uuids or hex strings; anything else (spaces, newlines, a
# kilobyte of text) is not echoed into logs and pages, a new id is made instead.
_ACCEPTED = re.compile(r"[A-Za-z0-9._:-]{8,128}")

_current: ContextVar[str | None] = ContextVar("request_id", default=None)
_request: ContextVar[HttpRequest | None] = ContextVar("request", default=None)


def generate() -> str:
    return uuid.uuid4().hex


def current() -> str | None:
    """The id of the request or task being served here, or None (a shell, the scheduler's own loop)."""
    return _current.get()


def current_user_id() -> int | None:
    """The signed-in user of the request being served, if any (for the provider call log)."""
    request = _request.get()
    user = getattr(request, "user", None) if request is not None else None
    if user is None or not user.is_authenticated:
        return None
    return int(user.pk)


@contextmanager
def bound(request_id: str, request: HttpRequest | None = None) -> Iterator[str]:
    """Serve the block under `request_id`; afterwards the previous one (or none) again."""
    token = _current.set(request_id)
    request_token = _request.set(request)
    try:
        yield request_id
    finally:
        _request.reset(request_token)
        _current.reset(token)


def from_request(request: HttpRequest) -> str:
    """The router's id when our own proxy stands in front (TRUSTED_PROXY_COUNT > 0), else a new one."""
    if int(getattr(settings, "TRUSTED_PROXY_COUNT", 0) or 0) > 0:
        offered = request.headers.get(HEADER, "").strip()
        if _ACCEPTED.fullmatch(offered):
            return offered
    return generate()


class RequestIdMiddleware:
    """First of all middleware: every later one, the view, the error pages and the request's log line run under the
    request's id, and the response names it (`X-Request-ID`)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with bound(from_request(request), request) as request_id:
            response = self.get_response(request)
        response[HEADER] = request_id
        return response


# --- Log lines -------------------------------------------------------------------------------------------------


def install_log_record_factory() -> None:
    """Every log record made while an id is bound carries it as `request_id` (a field of the JSON line, and of
    any handler's record: mail, the error tracker, a test's caplog). A record factory rather than a handler's
    filter: filters on a handler see only that handler's records, and in a web worker the line is formatted by a
    queue handler before the writer thread (storefront/observability/log_handlers.py) ever sees it."""
    previous = logging.getLogRecordFactory()
    if getattr(previous, "adds_request_id", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        request_id = _current.get()
        if request_id is not None:
            record.request_id = request_id
        return record

    factory.adds_request_id = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)


def bind(request_id: str | None) -> Token[str | None]:
    """Bind `request_id` until `unbind(token)` (for code whose start and end are separate calls: task signals)."""
    return _current.set(request_id)


def unbind(token: Token[str | None]) -> None:
    _current.reset(token)
