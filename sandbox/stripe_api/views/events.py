"""Events: retrieve one, or list them newest first as Stripe does (`type` or `types[]` with `*` wildcards,
`created` or `created[gt|gte|lt|lte]`, `delivery_success`, `limit` 1..100, `starting_after`, `ending_before`), so
the storefront can reconcile what its webhook may have missed. A key sees its own objects' events only."""

from __future__ import annotations

import re

from django.db.models import Q, QuerySet
from django.http import HttpRequest

from sandbox.stripe_api import parameters
from sandbox.stripe_api.models import Event
from sandbox.stripe_api.views.base import ApiError, api, integer

# Stripe's limit on `types[]` in one call.
MAX_TYPES = 20
_BOUNDS = {"gt": "created__gt", "gte": "created__gte", "lt": "created__lt", "lte": "created__lte"}


def _of_types(rows: QuerySet[Event], params: dict) -> QuerySet[Event]:
    if "type" in params and "types" in params:
        raise ApiError(400, "You may only specify one of these parameters: type, types.", param="types")
    if len(params.get("types") or []) > MAX_TYPES:
        raise ApiError(
            400,
            f"Invalid array: types may name at most {MAX_TYPES} event types (it named {len(params['types'])}).",
            code="parameter_invalid",
            param="types",
        )
    wanted = params.get("types") or ([params["type"]] if params.get("type") else [])
    if not wanted:
        return rows
    matches = Q()
    for pattern in wanted:
        matches |= Q(type__regex="^" + ".*".join(re.escape(part) for part in pattern.split("*")) + "$")
    return rows.filter(matches)


def _created(rows: QuerySet[Event], params: dict) -> QuerySet[Event]:
    created = params.get("created")
    if created is None:
        return rows
    if not isinstance(created, dict):
        return rows.filter(created=integer(params, "created"))
    for bound, lookup in _BOUNDS.items():
        if bound in created:
            rows = rows.filter(**{lookup: integer(created, bound, required=True, shown_as=f"created[{bound}]")})
    return rows


def _anchor(key: str, event_id: str, param: str) -> Event:
    found = Event.objects.filter(pk=event_id, api_key=key).first()
    if found is None:
        raise ApiError(404, f"No such event: '{event_id}'", code="resource_missing", param=param)
    return found


@api("GET", schema=parameters.EVENT_LIST)
def events(request: HttpRequest, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    limit = integer(params, "limit") or 10
    if not 1 <= limit <= 100:
        raise ApiError(400, "Invalid limit: must be between 1 and 100.", code="parameter_invalid", param="limit")
    rows = _created(_of_types(Event.objects.filter(api_key=key), params), params)
    if "delivery_success" in params:
        delivered = Q(last_delivery_status__gte=200, last_delivery_status__lt=300)
        rows = rows.filter(delivered) if params["delivery_success"] == "true" else rows.exclude(delivered)
    if params.get("starting_after") and params.get("ending_before"):
        raise ApiError(400, "You may only specify one of these parameters: ending_before, starting_after.")
    if params.get("ending_before"):
        anchor = _anchor(key, params["ending_before"], "ending_before")
        newer = list(rows.filter(created_at__gt=anchor.created_at).order_by("created_at")[: limit + 1])
        page, has_more = list(reversed(newer[:limit])), len(newer) > limit
    else:
        if params.get("starting_after"):
            rows = rows.filter(created_at__lt=_anchor(key, params["starting_after"], "starting_after").created_at)
        older = list(rows.order_by("-created_at")[: limit + 1])
        page, has_more = older[:limit], len(older) > limit
    return 200, {"object": "list", "data": [event.data for event in page], "has_more": has_more, "url": "/v1/events"}


@api("GET")
def event(request: HttpRequest, event_id: str, *, key: str, params: dict, after: list) -> tuple[int, dict]:
    return 200, _anchor(key, event_id, "id").data
