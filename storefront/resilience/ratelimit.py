"""Request rate limits kept in the shared cache, so every web process counts together (CACHE_URL: Redis).

    @rate_limit("search")                     # limit and window from settings.RATE_LIMITS["search"]
    def search(request): ...

Counts per client address (behind the platform's proxies, see storefront.requests.request_helpers.client_address), or
per signed-in user with `per="user"`. Over the limit the view is not run: the customer gets a 429 with a
Retry-After header and a page (or, for htmx, a fragment) that says how long to wait.
"""

from __future__ import annotations

import functools
import hashlib
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from storefront.requests.request_helpers import client_address
from storefront.resilience.counters import counter_incr

View = Callable[..., HttpResponse]


# Requests are counted in this process first and added to the shared counter in batches of a tenth of the limit:
# a customer's searches then cost a round trip to Redis (or an SQL write on the database cache) once per batch,
# not on every request. The price: each process may let through up to a batch less one more than the limit per
# window, under a tenth of it. A limit under BATCHED_FROM is counted exactly, each request in the shared counter.
BATCHED_FROM = 20


@dataclass
class _Pending:
    expires: float  # the window's end (monotonic): the entry is dropped after it
    counted: int = 0  # this process's requests not yet added to the shared counter
    shared: int = 0  # the shared count as last read (every process's requests, ours included)


_pending: dict[str, _Pending] = {}
_pending_lock = threading.Lock()
_pruned_at = 0.0


def hit(scope: str, who: str, *, limit: int, window: int) -> int:
    """Count one request; the seconds to wait when over the limit, else 0. Fixed windows, atomic increments."""
    now = time.time()
    bucket = int(now // window)
    digest = hashlib.sha256(who.encode()).hexdigest()[:24]
    key = f"ratelimit:{scope}:{digest}:{bucket}"
    batch = max(1, limit // 10) if limit >= BATCHED_FROM else 1
    with _pending_lock:
        _prune()
        entry = _pending.get(key)
        if entry is None:
            entry = _pending[key] = _Pending(expires=time.monotonic() + (bucket + 1) * window - now)
        entry.counted += 1
        count = entry.shared + entry.counted
        adding = 0
        if entry.counted >= batch or count > limit:
            adding, entry.counted = entry.counted, 0
    if adding:
        shared = counter_incr(key, timeout=window + 1, by=adding)
        with _pending_lock:
            entry.shared = max(entry.shared, shared)
        # Judged on its own increment's answer, which counts every request before it: a later request of another
        # thread may already have raised entry.shared past the limit, and must not refuse this one.
        count = shared
    if count <= limit:
        return 0
    return max(1, math.ceil((bucket + 1) * window - time.time()))


def _prune() -> None:
    """Drop the counts of windows that have ended (at most once a second; the caller holds the lock)."""
    global _pruned_at
    now = time.monotonic()
    if now - _pruned_at < 1.0:
        return
    _pruned_at = now
    for key in [key for key, entry in _pending.items() if entry.expires < now]:
        del _pending[key]


def rate_limit_forget() -> None:
    """Forget this process's uncounted requests (tests start each from nothing)."""
    with _pending_lock:
        _pending.clear()


def rate_limit(
    scope: str,
    *,
    limit: int | None = None,
    window: int | None = None,
    per: Literal["address", "user"] = "address",
    methods: tuple[str, ...] = (),
) -> Callable[[View], View]:
    def decorator(view: View) -> View:
        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
            if methods and request.method not in methods:
                return view(request, *args, **kwargs)
            if per == "user" and request.user.is_authenticated:
                who = f"user:{request.user.pk}"
            else:
                who = f"address:{client_address(request)}"
            configured_limit, configured_window = settings.RATE_LIMITS.get(scope, (0, 60))
            allowed = limit if limit is not None else configured_limit
            if allowed <= 0:  # switched off for this scope
                return view(request, *args, **kwargs)
            wait = hit(scope, who, limit=allowed, window=window or configured_window)
            if wait:
                return too_many_requests(request, wait)
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


def too_many_requests(request: HttpRequest, wait: int) -> HttpResponse:
    template = "storefront/_rate_limited.html" if request.headers.get("HX-Request") else "storefront/rate_limited.html"
    context = {"wait_seconds": wait, "wait_minutes": max(1, math.ceil(wait / 60))}
    response = render(request, template, context, status=429)
    response["Retry-After"] = str(wait)
    return response
