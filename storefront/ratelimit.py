"""Request rate limits kept in the shared cache, so every web process counts together (CACHE_URL: Redis).

    @rate_limit("search")                     # limit and window from settings.RATE_LIMITS["search"]
    def search(request): ...

Counts per client address (behind the platform's proxies, see storefront.request_helpers.client_address), or per
signed-in user with `per="user"`. Over the limit the view is not run: the customer gets a 429 with a
Retry-After header and a page (or, for htmx, a fragment) that says how long to wait.
"""

from __future__ import annotations

import functools
import hashlib
import math
import time
from collections.abc import Callable
from typing import Literal

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from storefront.counters import counter_incr
from storefront.request_helpers import client_address

View = Callable[..., HttpResponse]


def hit(scope: str, who: str, *, limit: int, window: int) -> int:
    """Count one request; the seconds to wait when over the limit, else 0. Fixed windows, atomic increments."""
    bucket = int(time.time() // window)
    digest = hashlib.sha256(who.encode()).hexdigest()[:24]
    key = f"ratelimit:{scope}:{digest}:{bucket}"
    count = counter_incr(key, timeout=window + 1)
    if count <= limit:
        return 0
    return max(1, math.ceil((bucket + 1) * window - time.time()))


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
