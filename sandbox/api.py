"""What every sandbox endpoint shares: the bearer key check, faults, JSON bodies and the error shapes.

An endpoint is a function `view(request, ctx) -> HttpResponse` wrapped by `@endpoint(...)`. The wrapper answers
405, 401, 403, the configured faults and unexpected exceptions itself, in the provider's body shapes.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from sandbox import faults, ratelimit
from sandbox.keys import key_environment
from sandbox.models import ApiKey, Partner, hash_secret

logger = logging.getLogger(__name__)

SERVER_ERROR = "Server Error."
TOO_MANY_REQUESTS = "Too Many Requests"
REQUEST_ID_HEADER = "X-Request-Id"


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


def as_bool(value: Any) -> bool | None:
    """A boolean as Laravel's `boolean` rule reads one (true, false, 1, 0, "1", "0"); else None."""
    if value in (True, 1, "1"):
        return True
    if value in (False, 0, "0"):
        return False
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
    """Wrap a view: method check, key check, rate limit, faults, and the provider's answer to unexpected failures.

    `groups` name the endpoint for fault scopes; `search` marks the endpoints that the availability backend
    serves (switched off by the `availability_down` fault); `metasearch` uses MetaSearch's `{error}` shape.
    Search endpoints (and MetaSearch) share the search rate limit; the others the general one.
    """
    rate_group = ratelimit.SEARCH if search or metasearch else ratelimit.OTHER

    def failure(message: str, status: int) -> JsonResponse:
        if metasearch:
            return JsonResponse({"error": message}, status=status)
        return plain(message, status)

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        def serve(
            request: HttpRequest, args: tuple, kwargs: dict, environment: str, request_id: str
        ) -> tuple[HttpResponse, ratelimit.Verdict | None]:
            if request.method not in methods:
                response = failure("Method Not Allowed", 405)
                response["Allow"] = ", ".join(methods)
                return response, None
            key, status, message = authenticate(request, environment)
            if key is None:
                if metasearch and status == 401:
                    message = "Invalid partner token"
                return failure(message, status), None
            verdict = ratelimit.consume(key=key, group=rate_group)
            if not verdict.allowed:
                response = failure(TOO_MANY_REQUESTS, 429)
                response["Retry-After"] = str(verdict.retry_after)
                return response, verdict
            ctx = Context(partner=key.partner, environment=environment, key=key)
            fault = faults.active_for(key.partner, groups)
            if fault is not None:
                refusal = faults.before(fault, metasearch=metasearch, search=search)
                if refusal is not None:
                    return refusal, verdict
            try:
                response = view(request, ctx, *args, **kwargs)
            except BadRequest:
                response = failure("Bad Request.", 400)
            except Exception:
                logger.exception("sandbox endpoint %s failed (request %s)", view.__name__, request_id)
                response = failure("Internal server error" if metasearch else SERVER_ERROR, 500)
            if fault is not None:
                response = faults.after(fault, response)
            return response, verdict

        @csrf_exempt
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, environment: str, **kwargs: Any) -> HttpResponse:
            request_id = new_request_id()
            response, verdict = serve(request, args, kwargs, environment, request_id)
            return stamp(response, request_id=request_id, verdict=verdict)

        return wrapper

    return decorator


def new_request_id() -> str:
    return f"req_{uuid.uuid4().hex}"


def stamp(response: HttpResponse, *, request_id: str, verdict: ratelimit.Verdict | None) -> HttpResponse:
    """Mark an answer with its request id (header, and body of an error) and the rate-limit headers.

    The provider's go-live checklist asks integrators to log the `request_id` of every response; its docs do not
    show where it travels, so the sandbox sends both a header and, in JSON error bodies, a field.
    """
    response[REQUEST_ID_HEADER] = request_id
    if verdict is not None:
        response["X-RateLimit-Limit"] = str(verdict.limit)
        response["X-RateLimit-Remaining"] = str(verdict.remaining)
        response["X-RateLimit-Reset"] = str(verdict.reset)
    if not response.get("Content-Type", "").startswith("application/json"):
        return response
    try:
        body = json.loads(response.content)
    except ValueError:
        return response
    if not isinstance(body, dict):
        return response
    if response.status_code >= 400 or body.get("status") == "ERROR" or "error" in body:
        response.content = json.dumps({**body, "request_id": request_id})
    return response
