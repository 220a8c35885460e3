"""How the gateway exchanges one request with the provider: session, retries, call slots, rate limits (each service's
breaker is storefront.resilience.breaker's).

What is never logged here: the key, the Authorization header, request bodies (passwords), response bodies
(auto-login tokens, transfer codes). A log line names the method, the path, the status, the time taken, the
provider's `request_id` and its `X-RateLimit-*` headers.
"""

from __future__ import annotations

import hashlib
import logging
import math
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

import requests
import urllib3
from django.core.cache import cache
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import ConnectionPool
from urllib3.response import BaseHTTPResponse
from urllib3.util.retry import Retry

from storefront.gateway.errors import (
    GatewayError,
    OutcomeUnknown,
    RateLimited,
    TldRestricted,
    Unauthorized,
    Unavailable,
    ValidationRejected,
    refusal_class,
)
from storefront.requests import request_ids
from storefront.resilience.breaker import CircuitBreaker

logger = logging.getLogger("storefront.gateway")

# Statuses a GET may be asked again for: a proxy or load balancer in front of the provider had a hiccup.
RETRY_STATUSES = frozenset({502, 503, 504})
_RATE_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


# --- Call slots (bulkhead) ----------------------------------------------------------------------------------


class CallSlots:
    """At most `size` calls in flight per process for one service (0: no limit).

    Kept below the web server's thread count, so a slow provider can hold only some threads and pages that need
    no provider call still find a free one; one set per service, so a MetaSearch outage never blocks buying.
    """

    def __init__(self, size: int) -> None:
        self._semaphore = threading.BoundedSemaphore(size) if size > 0 else None

    @contextmanager
    def hold(self, method: str, path: str) -> Iterator[None]:
        if self._semaphore is None:
            yield
            return
        if not self._semaphore.acquire(blocking=False):
            logger.warning("provider %s %s skipped: every call slot is busy", method, path)
            raise Unavailable()
        try:
            yield
        finally:
            self._semaphore.release()


# --- Rate limits, shared by every thread and process through Django's cache ---------------------------------


class RateGuard:
    """Keeps one service under the provider's per-key rate and honours its `Retry-After` everywhere.

    Two cache keys per service and key: a cooldown (set on a 429, for `Retry-After` plus jitter; while it lasts
    every call fails fast with RateLimited and sends nothing) and a counter per wall-clock second (a call beyond
    `per_second` waits for the next second, at most `max_wait` seconds, then gives up as RateLimited).
    """

    def __init__(self, *, service: str, api_key: str, per_second: int, max_wait: float = 1.5) -> None:
        # The key's fingerprint, never the key: cache keys may show up in a cache server's own tooling.
        fingerprint = hashlib.sha256(api_key.encode()).hexdigest()[:16]
        self._prefix = f"provider-rate:{service}:{fingerprint}"
        self.service = service
        self.per_second = per_second
        self.max_wait = max_wait

    @property
    def _cooldown_key(self) -> str:
        return f"{self._prefix}:cooldown"

    def cooling_for(self) -> float:
        until = cache.get(self._cooldown_key)
        return max(0.0, float(until) - time.time()) if until else 0.0

    def acquire(self) -> None:
        """Take one request of this second's budget, or raise RateLimited (nothing sent).

        With the shared cache unreachable the call goes ahead: the provider's own 429 still protects it, and a
        cache outage must not become a provider outage.
        """
        try:
            self._acquire()
        except RateLimited:
            raise
        except Exception as err:  # noqa: BLE001 - any cache failure: do not block the call
            logger.warning("provider %s rate guard skipped: cache failed (%s)", self.service, type(err).__name__)

    def _acquire(self) -> None:
        wait = self.cooling_for()
        if wait > 0:
            raise RateLimited(status=None, retry_after=wait)
        if self.per_second <= 0:
            return
        deadline = time.time() + self.max_wait
        while True:
            now = time.time()
            second = int(now)
            key = f"{self._prefix}:{second}"
            cache.add(key, 0, timeout=5)
            try:
                used = cache.incr(key)
            except ValueError:  # expired between add and incr: this second's counter starts again
                cache.add(key, 1, timeout=5)
                used = 1
            if used <= self.per_second:
                return
            # Over budget: wait for the next second, with jitter so waiting threads do not all go at once.
            pause = second + 1 - now + random.uniform(0, 0.05)  # noqa: S311 (jitter, not secrecy)
            if now + pause > deadline:
                raise RateLimited(status=None, retry_after=pause)
            time.sleep(pause)

    def cool_down(self, retry_after: float | None) -> float:
        """After a 429: every instance stops for `Retry-After` (1 s when absent), plus up to 25% jitter."""
        seconds = (retry_after if retry_after is not None else 1.0) * (1 + random.uniform(0, 0.25))  # noqa: S311
        try:
            cache.set(self._cooldown_key, time.time() + seconds, timeout=max(1, math.ceil(seconds)))
        except Exception as err:  # noqa: BLE001 - this instance still raises RateLimited; others learn by 429
            logger.warning("provider %s cooldown not shared: cache failed (%s)", self.service, type(err).__name__)
        logger.warning("provider %s rate limited: every instance waits %.1f s", self.service, seconds)
        return seconds


# --- One service ------------------------------------------------------------------------------------------


@dataclass
class Service:
    """What the gateway keeps per provider service (registration and orders, DNS, MetaSearch, its AI suggestions,
    availability): each has a breaker of its own and so fails on its own."""

    name: str
    base_url: str
    breaker: CircuitBreaker
    slots: CallSlots
    rate: RateGuard


class GetRetry(Retry):
    """urllib3's Retry, except that a read timeout is never retried (it counts as a read error there)."""

    def increment(
        self,
        method: str | None = None,
        url: str | None = None,
        response: BaseHTTPResponse | None = None,
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: TracebackType | None = None,
    ) -> Self:
        if isinstance(error, urllib3.exceptions.ReadTimeoutError):
            raise error
        return super().increment(method, url, response, error, _pool, _stacktrace)


class EnvironmentOnceSession(requests.Session):
    """A session that reads the proxy and CA-bundle environment once per origin, not on every request.

    requests scans the whole process environment (proxies, no_proxy, REQUESTS_CA_BUNDLE) before each request:
    measured with bench/profile_search.py, a tenth of an uncached search's own time. The environment of a running
    process does not change, and this session only ever talks to the provider's few origins.
    """

    def __init__(self) -> None:
        super().__init__()
        self._environment: dict[tuple[Any, ...], Any] = {}

    def merge_environment_settings(self, url: Any, proxies: Any, stream: Any, verify: Any, cert: Any) -> Any:
        if proxies:  # a caller's own proxies: requests' rules, unchanged
            return super().merge_environment_settings(url, proxies, stream, verify, cert)
        parts = urlsplit(str(url))
        key = (parts.scheme, parts.netloc, stream, verify, cert)
        settings = self._environment.get(key)
        if settings is None:
            settings = self._environment[key] = super().merge_environment_settings(url, {}, stream, verify, cert)
        return dict(settings)


def new_session(*, get_retries: int) -> requests.Session:
    """One session per process: a pool of keep-alive connections, and urllib3 retrying idempotent GETs only.

    Retried: connection errors, resets before an answer, and 502/503/504. Never a read timeout (a provider too
    slow to answer will not get faster by being asked again) and never POST/PUT/DELETE.
    """
    retry = GetRetry(
        total=get_retries,
        connect=get_retries,
        read=get_retries,
        status=get_retries,
        other=0,
        allowed_methods=frozenset({"GET"}),
        status_forcelist=RETRY_STATUSES,
        backoff_factor=0.1,
        backoff_jitter=0.05,
        backoff_max=1.0,
        raise_on_status=False,
        respect_retry_after_header=False,
    )
    session = EnvironmentOnceSession()
    adapter = HTTPAdapter(pool_connections=4, pool_maxsize=32, max_retries=retry)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def certainly_not_sent(err: requests.RequestException) -> bool:
    """True only when the request certainly never reached the provider: no connection was ever made.

    Decided from exception types: a connect timeout, or a connection error caused by urllib3's failure to open a
    connection (refused, name resolution); anything else may have been sent.
    """
    if isinstance(err, requests.ConnectTimeout):
        return True
    if isinstance(err, requests.ConnectionError) and not isinstance(err, requests.ReadTimeout):
        cause: Any = err.args[0] if err.args else None
        if isinstance(cause, urllib3.exceptions.MaxRetryError):
            cause = cause.reason
        return isinstance(cause, urllib3.exceptions.NewConnectionError)  # NameResolutionError is one too
    return False


def log_answer(
    method: str, path: str, response: requests.Response, data: Any, elapsed: float, *, request_id: str = ""
) -> str | None:
    """Log the answer with the provider's `request_id` (returned) and ours: the record carries ours already when
    the call is part of a request or task (storefront/requests/request_ids.py), else it is added here."""
    provider_id = response.headers.get("X-Request-Id") or (data.get("request_id") if isinstance(data, dict) else None)
    limits = " ".join(f"{h.lower()}={response.headers[h]}" for h in _RATE_HEADERS if h in response.headers)
    logger.info(
        "provider %s %s %s in %.0f ms request_id=%s %s",
        method,
        path,
        response.status_code,
        elapsed * 1000,
        provider_id or "-",
        limits,
        extra={"request_id": request_id} if request_id and request_ids.current() is None else None,
    )
    return str(provider_id) if provider_id else None


def read_body(response: requests.Response) -> Any:
    try:
        return response.json(parse_float=Decimal)
    except ValueError:
        return None


def interpret(response: requests.Response, data: Any, *, endpoint: str, changes_state: bool) -> dict[str, Any]:
    """The answer's data, or the exception its status *and* body mean.

    A `{status: ERROR}` or MetaSearch `{error}` body is a refusal even with 200: a careful client never reads
    such an answer as success.
    """
    status = response.status_code
    text = _error_text(data)
    if status in (401, 403):
        raise Unauthorized(text, status=status)
    if status == 429:
        raise RateLimited(text, status=status, retry_after=retry_after(response))
    if 200 <= status < 300:
        if not isinstance(data, dict):
            if changes_state:
                raise OutcomeUnknown(status=status)
            raise Unavailable("unreadable answer", status=status)
        if not _is_error_body(data):
            return data
        raise _refusal(endpoint=endpoint, text=text, status=status, data=data)
    if status >= 500:
        kind = refusal_class(endpoint=endpoint, text=text)
        if issubclass(kind, ValidationRejected) and kind is not ValidationRejected:
            # A documented refusal that comes as a 5xx (signup's "Signup Failed, …" is a 500 in the OpenAPI).
            raise kind(text, status=status)
        if changes_state:
            raise OutcomeUnknown(text, status=status)
        raise Unavailable(text, status=status, retryable=status in RETRY_STATUSES)
    if data is None:
        # A 4xx that is not the provider's JSON (a proxy's page): the request was turned away unhandled.
        raise Unavailable(status=status)
    raise _refusal(endpoint=endpoint, text=text, status=status, data=data)


def _refusal(*, endpoint: str, text: str, status: int, data: Any = None) -> GatewayError:
    missing = missing_fields(data) if endpoint == "register" else []
    if missing:
        return TldRestricted(text, missing=missing, status=status)
    if not text:
        return ValidationRejected(status=status)
    return refusal_class(endpoint=endpoint, text=text)(text, status=status)


def missing_fields(data: Any) -> list[str]:
    """The fields a register refusal names as missing (a TLD's requirements). The docs say only that the 422 names
    them: read a `missing_fields` list, or Laravel's validation shape `{message, errors: {field: [texts]}}`."""
    if not isinstance(data, dict):
        return []
    named = data.get("missing_fields")
    if isinstance(named, list):
        return [str(field) for field in named if field]
    errors = data.get("errors")
    if isinstance(errors, dict):
        return [str(field) for field in errors if field]
    return []


def _is_error_body(data: dict[str, Any]) -> bool:
    status = data.get("status")
    return (isinstance(status, str) and status.upper() == "ERROR") or bool(data.get("error"))


def _error_text(data: Any) -> str:
    """The provider's message from either main-interface shape, or MetaSearch's `{error}`."""
    if isinstance(data, dict):
        for key in ("error", "message"):
            value = data.get(key)
            if isinstance(value, str) and value:
                return value
    return ""


def retry_after(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
