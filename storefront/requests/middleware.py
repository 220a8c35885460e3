"""The storefront's middleware: one structured log line per request (what was asked, how it ended, how long it and
its provider calls took), the guard that turns away what no page takes, and the one place an outside service's
error becomes a response."""

import logging
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import render

from storefront.errors import StoreError, error_status
from storefront.observability.metrics import request_observed
from storefront.requests import request_ids, request_stats
from storefront.requests.provider_errors import provider_error
from storefront.requests.request_helpers import client_address, is_fragment

logger = logging.getLogger("storefront.requests")


class RequestLogMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with request_stats.serving(
            max_calls=settings.REQUEST_PROVIDER_CALLS_MAX,
            deadline=settings.REQUEST_PROVIDER_DEADLINE,
            caller=client_address(request),
        ) as calls:
            return self._logged(request, calls)

    def _logged(self, request: HttpRequest, calls: request_stats.ProviderCalls) -> HttpResponse:
        started = time.perf_counter()
        statements = _Statements()
        with connection.execute_wrapper(statements):
            response = self.get_response(request)
        match = request.resolver_match
        seconds = time.perf_counter() - started
        # The route pattern, not the raw path: paths can carry one-time secrets (password reset links).
        route = f"/{match.route}" if match else "(unresolved)"
        request_observed(route=route, status=response.status_code, seconds=seconds)
        line = {
            "method": request.method,
            "route": route,
            "status": response.status_code,
            "duration_ms": round(seconds * 1000, 1),
            "provider_calls": calls.count,
            "provider_ms": round(calls.seconds * 1000, 1),
            "htmx": request.headers.get("HX-Request") == "true",
            # SQL statements on the default database, and how many of them wrote: a page whose count grows with
            # the rows it holds, or a cached search that writes, shows here first.
            "db_queries": statements.count,
            "db_writes": statements.writes,
        }
        # Fields, not a preformatted string: the JSON formatter (settings.LOGGING) writes them as one object.
        logger.info("request", extra=line)
        return response


class _Statements:
    """An execute wrapper (Django's database instrumentation) that counts the statements run through it."""

    _READS = ("SELECT", "SAVEPOINT", "RELEASE", "BEGIN", "COMMIT", "ROLLBACK", "SET", "SHOW")

    def __init__(self) -> None:
        self.count = 0
        self.writes = 0

    def __call__(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        self.count += 1
        if not sql.lstrip().upper().startswith(self._READS):
            self.writes += 1
        return execute(sql, params, many, context)


class RequestGuardMiddleware:
    """Turns away, before any view runs, requests that no page of ours ever takes.

    Forms post `application/x-www-form-urlencoded` and no form takes files, so a multipart body is refused
    unread: Django would otherwise spool each uploaded file (no size limit applies to file parts) to memory or
    disk. Pages answer GET, HEAD and POST only; PUT, DELETE, TRACE and the rest get 405 whatever the URL.
    """

    ALLOWED_METHODS = ("GET", "HEAD", "POST")

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method not in self.ALLOWED_METHODS:
            return HttpResponseNotAllowed(self.ALLOWED_METHODS)
        if request.content_type == "multipart/form-data":
            return HttpResponse("File uploads are not accepted here.", status=415, content_type="text/plain")
        return self.get_response(request)


class StoreErrorMiddleware:
    """The one place an outside service's error that a view let escape becomes a response: the full error page, or
    the error fragment for an htmx request (swapped in where the view's answer would have gone). The status and
    the customer's sentence come from the error itself (storefront.errors)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, StoreError):
            return None  # a bug: Django's own handling (500, the error report)
        logger.info("store error %s on %s", type(exception).__name__, request.path_info)
        fragment = is_fragment(request)
        template = "storefront/_error.html" if fragment else "storefront/error.html"
        context = {"error": provider_error(exception), "request_id": request_ids.current()}
        return render(request, template, context, status=error_status(exception, fragment=fragment))
