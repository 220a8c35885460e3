"""What every sandbox endpoint shares: the bearer key check, faults, JSON bodies and the error shapes.

An endpoint is a function `view(request, ctx) -> HttpResponse` wrapped by `@endpoint(...)`. The wrapper answers
405, 401, 403, the configured faults and unexpected exceptions itself, in the provider's body shapes.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.db.models import F
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from sandbox.models import ApiKey, Fault, Partner, hash_secret
from storefront.gateway import key_environment

logger = logging.getLogger(__name__)

SERVER_ERROR = "Server Error."


@dataclass(frozen=True)
class Context:
    partner: Partner
    environment: str
    key: ApiKey


class BadRequest(Exception):
    """Raised while reading a request; answered 400 with the provider's `Bad Request.`."""


def error(message: str, status: int = 422) -> JsonResponse:
    """The `{status: ERROR, message}` shape."""
    return JsonResponse({"status": "ERROR", "message": message}, status=status)


def plain(message: str, status: int) -> JsonResponse:
    """The `{message}` shape."""
    return JsonResponse({"message": message}, status=status)


def success(message: str, **extra: Any) -> JsonResponse:
    return JsonResponse({"status": "SUCCESS", "message": message, **extra})


def json_body(request: HttpRequest) -> dict[str, Any]:
    if not request.body:
        return {}
    try:
        data = json.loads(request.body)
    except (ValueError, UnicodeDecodeError) as err:
        raise BadRequest from err
    if not isinstance(data, dict):
        raise BadRequest
    return data


def as_int(value: Any) -> int | None:
    """A JSON integer, or a string of digits (the real provider is lenient there too); else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def authenticate(request: HttpRequest, environment: str) -> tuple[ApiKey | None, int, str]:
    """The key of the request, or (None, status, message) in the provider's terms."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or key_environment(token) == "unknown":
        return None, 401, "Unauthorized"
    key = ApiKey.objects.select_related("partner").filter(key_hash=hash_secret(token)).first()
    if key is None:
        return None, 401, "Unauthorized"
    if key.revoked_at is not None:
        return None, 401, "key_revoked"
    if not key.is_active:
        return None, 401, "key_expired"
    if key.environment != environment:
        return None, 403, "environment_mismatch"
    if not key.partner.is_active:
        return None, 403, "Forbidden"
    return key, 200, ""


def endpoint(
    *, methods: tuple[str, ...], groups: tuple[str, ...], metasearch: bool = False, search: bool = False
) -> Callable:
    """Wrap a view: method check, key check, faults, and the provider's answer to unexpected failures.

    `groups` name the endpoint for fault scopes; `search` marks the endpoints that the availability backend
    serves (switched off by the `availability_down` fault); `metasearch` uses MetaSearch's `{error}` shape.
    """

    def failure(message: str, status: int) -> JsonResponse:
        if metasearch:
            return JsonResponse({"error": message}, status=status)
        return plain(message, status)

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @csrf_exempt
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, environment: str, **kwargs: Any) -> HttpResponse:
            if request.method not in methods:
                response = failure("Method Not Allowed", 405)
                response["Allow"] = ", ".join(methods)
                return response
            key, status, message = authenticate(request, environment)
            if key is None:
                if metasearch and status == 401:
                    message = "Invalid partner token"
                return failure(message, status)
            ctx = Context(partner=key.partner, environment=environment, key=key)
            fault = _fault_for(key.partner, groups)
            if fault is not None:
                refusal = _before(fault, metasearch=metasearch, search=search)
                if refusal is not None:
                    return refusal
            try:
                response = view(request, ctx, *args, **kwargs)
            except BadRequest:
                response = failure("Bad Request.", 400)
            except Exception:
                logger.exception("sandbox endpoint %s failed", view.__name__)
                response = failure("Internal server error" if metasearch else SERVER_ERROR, 500)
            if fault is not None:
                response = _after(fault, response)
            return response

        return wrapper

    return decorator


def _fault_for(partner: Partner, groups: tuple[str, ...]) -> Fault | None:
    fault = Fault.objects.filter(partner=partner).first()
    if fault is None or not fault.applies_to(groups):
        return None
    return fault


def _before(fault: Fault, *, metasearch: bool, search: bool) -> HttpResponse | None:
    if fault.latency_ms:
        time.sleep(fault.latency_ms / 1000)
    if fault.hang_seconds and not fault.hang_after_commit:
        time.sleep(fault.hang_seconds)
    if fault.rate_limited:
        body = {"error": "Too Many Requests"} if metasearch else {"message": "Too Many Requests"}
        response = JsonResponse(body, status=429)
        response["Retry-After"] = "2"
        return response
    if fault.error_rate > 0 and _fails_now(fault):
        return JsonResponse({"error": "Internal server error"} if metasearch else {"message": SERVER_ERROR}, status=500)
    if fault.availability_down and (search or metasearch):
        if metasearch:
            return JsonResponse({"error": "Domain availability service unavailable"}, status=503)
        return plain(SERVER_ERROR, 500)
    return None


def _fails_now(fault: Fault) -> bool:
    """Deterministic error rate: request n fails when floor(n * rate) steps up, so 1.0 fails every time."""
    if fault.error_rate >= 1:
        return True
    Fault.objects.filter(pk=fault.pk).update(requests_seen=F("requests_seen") + 1)
    seen = Fault.objects.values_list("requests_seen", flat=True).get(pk=fault.pk)
    return int(seen * fault.error_rate) > int((seen - 1) * fault.error_rate)


def _after(fault: Fault, response: HttpResponse) -> HttpResponse:
    if fault.malformed:
        response = HttpResponse("<html><body>502 Bad Gateway (upstream)</body></html>", content_type="text/html")
    if fault.hang_seconds and fault.hang_after_commit:
        # The work is done and committed (no request-wide transaction); the answer is what goes missing.
        time.sleep(fault.hang_seconds)
    return response
