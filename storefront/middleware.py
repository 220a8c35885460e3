"""One structured log line per request: what was asked, how it ended, how long it and its provider calls took."""

import json
import logging
import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from storefront import request_stats

logger = logging.getLogger("storefront.requests")


class RequestLogMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        calls = request_stats.start()
        started = time.perf_counter()
        response = self.get_response(request)
        match = request.resolver_match
        line = {
            "method": request.method,
            # The route pattern, not the raw path: paths can carry one-time secrets (password reset links).
            "route": f"/{match.route}" if match else "(unresolved)",
            "status": response.status_code,
            "duration_ms": round((time.perf_counter() - started) * 1000, 1),
            "provider_calls": calls.count,
            "provider_ms": round(calls.seconds * 1000, 1),
            "htmx": request.headers.get("HX-Request") == "true",
        }
        logger.info(json.dumps(line))
        return response
