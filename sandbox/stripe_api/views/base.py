"""What every API endpoint shares: the key, faults, parameters, idempotency, errors, expansion and the call log.

Requests come as Stripe's SDK sends them: a `Bearer sk_test_…` key, form-encoded parameters, an `Idempotency-Key`
on POSTs (a retry with the same key and parameters gets the first answer again; other parameters are refused).
Errors have Stripe's `{"error": {type, code, message, param}}` shape and status codes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from sandbox.stripe_api import currencies, deadlines, objects, parameters
from sandbox.stripe_api.encoding import MalformedParams, decode
from sandbox.stripe_api.models import ApiCall, IdempotentAnswer, Setup, StripeObject
from sandbox.stripe_api.objects import public
from sandbox.stripe_api.outcomes import Unexpected
from sandbox.stripe_api.webhooks import caused_by

# The key stripe-python makes up for a POST sent without one (8-4-4-4-12 hex digits): random, so it protects
# nothing when the caller retries after a lost answer.
SDK_AUTOMATIC_KEY = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        code: str | None = None,
        param: str | None = None,
        extra: dict | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"error": {"type": type, "message": message, "code": code, "param": param, **(extra or {})}}


def _error_body(err: ApiError) -> dict:
    return {"error": {key: value for key, value in err.body["error"].items() if value is not None}}


def unexpected(err: Unexpected) -> ApiError:
    return ApiError(400, err.message, code=err.code)


def _key(request: HttpRequest) -> str:
    scheme, _, key = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not key:
        raise ApiError(
            401, "You did not provide an API key. Provide it in the Authorization header as 'Bearer sk_test_...'."
        )
    if not key.startswith("sk_test_") or len(key) < 12:
        # Like Stripe, only the start of a wrong key is repeated back.
        raise ApiError(
            401,
            f"Invalid API Key provided: {key[:8]}****. The payment sandbox takes test secret keys (sk_test_...) only.",
        )
    return key


def _require_own_key(request: HttpRequest, idempotency_key: str) -> None:
    """The setup's `require_idempotency_keys`: a state-changing request must carry a key of the caller's own."""
    where = f"{request.method} {request.path}"
    if not idempotency_key:
        raise ApiError(
            400,
            f"{where} was sent without an Idempotency-Key header, and the payment sandbox requires one on every "
            "state-changing request (require_idempotency_keys is on).",
            type="idempotency_error",
        )
    if SDK_AUTOMATIC_KEY.match(idempotency_key):
        raise ApiError(
            400,
            f"{where} carried only the Stripe SDK's automatic Idempotency-Key ({idempotency_key}), which is random "
            "per call and so protects nothing on a retry; the payment sandbox requires a key of the caller's own "
            "(require_idempotency_keys is on).",
            type="idempotency_error",
        )


def _require_pinned_version(request: HttpRequest) -> None:
    """The setup's `strict`: a request must be made for the API version the sandbox answers as (the SDK sends its
    pinned version as `Stripe-Version`; Stripe answers every other version with other shapes)."""
    version = request.headers.get("Stripe-Version", "")
    if version != objects.API_VERSION:
        raise ApiError(
            400,
            f"The payment sandbox answers as Stripe's API version {objects.API_VERSION} only (strict is on); this "
            f"request asked for {version or 'the account default'}.",
            code="api_version_invalid",
        )


def _parameters(request: HttpRequest, schema: parameters.Schema) -> dict[str, Any]:
    try:
        raw = request.body.decode() if request.method == "POST" else request.META.get("QUERY_STRING", "")
        found = decode(raw)
    except (MalformedParams, UnicodeDecodeError) as err:
        raise ApiError(400, f"Invalid parameters: {err}") from err
    try:
        parameters.check(found, schema)
    except parameters.ParamError as err:
        raise ApiError(400, err.message, code=err.code, param=err.param) from err
    return found


def api(*methods: str, schema: parameters.Schema = parameters.NONE) -> Callable:
    """The shared handling of every API endpoint: auth, faults, parameters, idempotency, errors, the call log."""

    def decorator(view: Callable[..., tuple[int, dict]]) -> Callable[..., HttpResponse]:
        @csrf_exempt
        @wraps(view)
        def wrapper(request: HttpRequest, **kwargs: Any) -> HttpResponse:
            idempotency_key = request.headers.get("Idempotency-Key", "")
            request_id = objects.new_id("req")
            replayed = False
            after: list[Callable[[], None]] = []
            try:
                if request.method not in methods:
                    raise ApiError(405, f"Unrecognized request URL ({request.method}: {request.path}).")
                key = _key(request)
                deadlines.catch_up()
                setup = Setup.current()
                if setup.api_error:
                    raise ApiError(
                        500, "An unknown error occurred (a fault switched on in the payment sandbox).", type="api_error"
                    )
                if setup.strict:
                    _require_pinned_version(request)
                if request.method == "POST" and setup.require_idempotency_keys:
                    _require_own_key(request, idempotency_key)
                params = _parameters(request, schema)
                with caused_by(request_id, idempotency_key or None), transaction.atomic():
                    stored = None
                    if request.method == "POST" and idempotency_key:
                        stored = IdempotentAnswer.objects.filter(api_key=key, key=idempotency_key).first()
                    if stored is not None:
                        if stored.path != request.path or stored.params != params:
                            raise ApiError(
                                400,
                                "Keys for idempotent requests can only be used with the same "
                                "parameters they were first used with.",
                                type="idempotency_error",
                            )
                        status, body, replayed = stored.status, stored.body, True
                    else:
                        try:
                            status, body = view(request, key=key, params=params, after=after, **kwargs)
                        except Unexpected as err:
                            status, body = 400, _error_body(unexpected(err))
                        except ApiError as err:
                            status, body = err.status, _error_body(err)
                        if request.method == "POST" and idempotency_key and status != 500:
                            IdempotentAnswer.objects.create(
                                api_key=key,
                                key=idempotency_key,
                                path=request.path,
                                params=params,
                                status=status,
                                body=body,
                            )
            except ApiError as err:
                status, body = err.status, _error_body(err)
            ApiCall.objects.create(
                method=request.method or "",
                path=request.path[:255],
                status=status,
                idempotency_key=idempotency_key[:255],
                replayed=replayed,
            )
            for step in after:
                step()
            response = JsonResponse(body, status=status)
            response["Request-Id"] = request_id
            if idempotency_key:
                response["Idempotency-Key"] = idempotency_key
            if replayed:
                response["Idempotent-Replayed"] = "true"
            return response

        return wrapper

    return decorator


def get_object(key: str, object_id: str, kind: str, *, lock: bool = False, param: str = "id") -> StripeObject:
    rows = StripeObject.objects.select_for_update() if lock else StripeObject.objects
    row = rows.filter(pk=object_id, object=kind, api_key=key).first()
    if row is None:
        raise ApiError(404, f"No such {kind}: '{object_id}'", code="resource_missing", param=param)
    return row


def integer(params: dict, name: str, *, required: bool = False, shown_as: str | None = None) -> int | None:
    value = params.get(name)
    param = shown_as or name
    if value in (None, ""):
        if required:
            raise ApiError(400, f"Missing required param: {param}.", code="parameter_missing", param=param)
        return None
    try:
        return int(value)
    except (TypeError, ValueError) as err:
        raise ApiError(400, f"Invalid integer: {value}", code="parameter_invalid_integer", param=param) from err


def check_currency(currency: str, *, param: str = "currency") -> str:
    currency = currency.lower()
    if not currency:
        raise ApiError(400, f"Missing required param: {param}.", code="parameter_missing", param=param)
    if currency not in currencies.SUPPORTED:
        raise ApiError(400, currencies.unsupported_message(currency), code="parameter_invalid", param=param)
    return currency


def check_amount(amount: int, currency: str, *, param: str = "amount") -> None:
    problem = currencies.amount_problem(amount, currency)
    if problem:
        raise ApiError(400, problem, code="invalid_charge_amount", param=param)


def truthy(value: object) -> bool:
    return str(value).lower() in ("true", "1")


def shown(row: StripeObject, params: dict, key: str) -> dict:
    """The object as the API answers with it, with what `expand[]` asks for in place of ids (Stripe's dotted
    paths: `latest_charge`, `payment_intent.latest_charge`, `line_items`, `total_details.breakdown`)."""
    data = public(row.data)
    for path in params.get("expand") or []:
        _expand(data, row.data.get("_expandable", {}), path, path, key)
    return data


def _expand(data: dict, extras: dict, path: str, whole: str, key: str) -> None:
    refused = ApiError(400, f"This property cannot be expanded ({whole}).", param="expand")
    if path in extras:  # lists and details Stripe includes only when asked (a session's line items)
        *parents, last = path.split(".")
        node = data
        for part in parents:
            node = node[part]
        node[last] = extras[path]
        return
    head, _, rest = path.partition(".")
    if head not in data:
        raise refused
    value, nested = data[head], {}
    if value is None:
        return  # nothing there yet (a session's payment intent before any attempt): Stripe answers it null
    if isinstance(value, str):
        row = StripeObject.objects.filter(pk=value, api_key=key).first()
        if row is None:
            raise refused
        value, nested = public(row.data), row.data.get("_expandable", {})
        data[head] = value
    if rest:
        if not isinstance(value, dict):
            raise refused
        _expand(value, nested, rest, whole, key)


def retrieve(kind: str) -> Callable[..., HttpResponse]:
    """`GET /v1/<objects>/<id>`: the object of this kind, if this key's, with what `expand[]` asks for."""

    @api("GET")
    def view(request: HttpRequest, object_id: str, *, key: str, params: dict, after: list) -> tuple[int, dict]:
        return 200, shown(get_object(key, object_id, kind), params, key)

    view.__name__ = view.__qualname__ = f"retrieve_{kind.replace('.', '_')}"
    return view


def not_found(request: HttpRequest, rest: str) -> HttpResponse:
    body = {
        "error": {
            "type": "invalid_request_error",
            "message": f"Unrecognized request URL ({request.method}: {request.path}).",
        }
    }
    return HttpResponse(json.dumps(body), status=404, content_type="application/json")


def by_method(**views: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """One URL, one view per HTTP method (`GET /v1/tax_rates` lists, `POST` creates), each with its own schema."""

    @csrf_exempt
    def view(request: HttpRequest, **kwargs: Any) -> HttpResponse:
        chosen = views.get(request.method or "")
        if chosen is None:
            return not_found(request, request.path)
        return chosen(request, **kwargs)

    return view


def object_list(key: str, kind: str, params: dict, *, url: str, **filters: Any) -> dict:
    """A page of this key's objects of one kind, newest first, as Stripe's list endpoints answer (`limit` 1..100,
    `starting_after`)."""
    limit = integer(params, "limit") or 10
    if not 1 <= limit <= 100:
        raise ApiError(400, "Invalid limit: must be between 1 and 100.", code="parameter_invalid", param="limit")
    rows = StripeObject.objects.filter(object=kind, api_key=key, **filters).order_by("-created_at", "-pk")
    if params.get("starting_after"):
        anchor = get_object(key, params["starting_after"], kind, param="starting_after")
        rows = rows.filter(created_at__lt=anchor.created_at)
    page = list(rows[: limit + 1])
    return {
        "object": "list",
        "data": [public(row.data) for row in page[:limit]],
        "has_more": len(page) > limit,
        "url": url,
    }
