"""A control endpoint for the storefront's test session: arrange and read the sandbox's state over HTTP.

Mounted at `/_control/` only when SANDBOX_CONTROL is on, which only the test session sets (never bin/run).
It lets tests in another process do what they would otherwise do to these tables directly:

    POST   /_control/reset                    wipe everything, then seed the demo partner
    PUT    /_control/faults                   {partner?, <any Fault field>...}: switch faults on (counters reset)
    DELETE /_control/faults?partner=NAME      switch them off (every partner's without ?partner)
    POST   /_control/keys                     {partner?, environment?, label?, plaintext?, expires_at?}: a new key
    GET    /_control/rows/<model>?<lookups>   rows as JSON ({"rows": [...]}); `partner=NAME` means the partner by name
    POST   /_control/rows/<model>             {field: value}: create one row (validated), answered with it
    PATCH  /_control/rows/<model>?<lookups>   {field: value}: update the matching rows, answered {"updated": n}
    DELETE /_control/rows/<model>?<lookups>   delete the matching rows, answered {"deleted": n}

A lookup ending in `__in` takes comma-separated values. `partner` (in a body or a lookup) is the partner's name;
missing from a body, it is the demo partner. Errors are 400 {"error": ...}.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.exceptions import FieldDoesNotExist, FieldError, ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, models, transaction
from django.http import HttpRequest, JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from sandbox.faults import demo_partner
from sandbox.management.commands.sandbox_seed import seed
from sandbox.models import TEST, ApiKey, Fault, Partner

_FAULT_FIELDS = {f.name for f in Fault._meta.concrete_fields} - {"id", "partner"}


class Refused(Exception):
    """Bad input from a test: answered 400 with the reason."""


class _Encoder(DjangoJSONEncoder):
    """Datetimes to the microsecond (Django's encoder keeps milliseconds): tests compare expiries exactly."""

    def default(self, o: Any) -> Any:
        if isinstance(o, dt.datetime):
            return o.isoformat()
        return super().default(o)


def _answer(data: Any, status: int = 200) -> JsonResponse:
    return JsonResponse(data, status=status, encoder=_Encoder, safe=False)


def _control(*methods: str) -> Callable:
    def decorator(view: Callable[..., JsonResponse]) -> Callable[..., JsonResponse]:
        @csrf_exempt
        def wrapper(request: HttpRequest, **kwargs: Any) -> JsonResponse:
            if request.method not in methods:
                return _answer({"error": f"{request.method} not allowed here"}, status=405)
            try:
                is_json = request.content_type == "application/json"
                body = json.loads(request.body) if request.body and is_json else {}
                if not isinstance(body, dict):
                    raise Refused("the body must be a JSON object")
                return view(request, body, **kwargs)
            except (Refused, ValueError, ValidationError, FieldError, FieldDoesNotExist, IntegrityError) as err:
                return _answer({"error": f"{type(err).__name__}: {err}"}, status=400)

        return wrapper

    return decorator


def _partner(name: str | None) -> Partner:
    if not name:
        return demo_partner()
    found = Partner.objects.filter(name=name).first()
    if found is None:
        raise Refused(f"no partner named {name!r}")
    return found


def _model(name: str) -> type[models.Model]:
    try:
        return apps.get_model("sandbox", name)
    except LookupError as err:
        raise Refused(f"no sandbox model {name!r}") from err


def _row(obj: models.Model) -> dict[str, Any]:
    row = {field.attname: getattr(obj, field.attname) for field in obj._meta.concrete_fields}
    if isinstance(getattr(obj, "partner", None), Partner):
        row["partner"] = obj.partner.name
    return row


def _lookups(request: HttpRequest) -> dict[str, Any]:
    lookups: dict[str, Any] = {}
    for key, value in request.GET.items():
        if key == "partner":
            key = "partner__name"
        lookups[key] = value.split(",") if key.endswith("__in") else value
    return lookups


def _values(model: type[models.Model], body: dict[str, Any]) -> dict[str, Any]:
    """The body's fields, with a partner named by its name."""
    values = dict(body)
    field_names = {field.name for field in model._meta.concrete_fields}
    if "partner" in field_names and "partner" in values:
        values["partner"] = _partner(values["partner"])
    return values


@_control("POST")
def reset(request: HttpRequest, body: dict[str, Any]) -> JsonResponse:
    with transaction.atomic():
        # Every sandbox row hangs off a partner (customers, orders, DNS, keys, faults all cascade).
        Partner.objects.all().delete()
        partner = seed()
    return _answer({"partner": partner.name, "key": settings.SANDBOX_DEMO_KEY})


@_control("PUT", "DELETE")
def faults(request: HttpRequest, body: dict[str, Any]) -> JsonResponse:
    if request.method == "DELETE":
        rows = Fault.objects.all()
        if request.GET.get("partner"):
            rows = rows.filter(partner__name=request.GET["partner"])
        deleted, _ = rows.delete()
        return _answer({"deleted": deleted})
    fields = {name: value for name, value in body.items() if name != "partner"}
    unknown = set(fields) - _FAULT_FIELDS
    if unknown:
        raise Refused(f"unknown fault fields: {', '.join(sorted(unknown))}")
    partner = _partner(body.get("partner"))
    with transaction.atomic():
        fault = Fault.objects.filter(partner=partner).first() or Fault(partner=partner)
        for name, value in {**fields, "requests_seen": 0}.items():
            setattr(fault, name, value)
        fault.full_clean()
        fault.save()
    return _answer(_row(fault))


@_control("POST")
def keys(request: HttpRequest, body: dict[str, Any]) -> JsonResponse:
    partner = _partner(body.get("partner"))
    key, plaintext = ApiKey.issue(
        partner=partner,
        environment=body.get("environment", TEST),
        label=body.get("label", "control"),
        plaintext=body.get("plaintext", ""),
    )
    if body.get("expires_at"):
        ApiKey.objects.filter(pk=key.pk).update(expires_at=body["expires_at"])
    return _answer({"key": plaintext, "prefix": key.prefix, "id": key.pk})


@_control("GET", "POST", "PATCH", "DELETE")
def rows(request: HttpRequest, body: dict[str, Any], model: str) -> JsonResponse:
    kind = _model(model)
    if request.method == "POST":
        obj = kind(**_values(kind, body))
        obj.full_clean()
        obj.save()
        return _answer(_row(obj), status=201)
    matching = kind._default_manager.filter(**_lookups(request))
    if request.method == "GET":
        return _answer({"rows": [_row(obj) for obj in matching.order_by("pk")]})
    if request.method == "PATCH":
        return _answer({"updated": matching.update(**_values(kind, body))})
    deleted, _ = matching.delete()
    return _answer({"deleted": deleted})


urlpatterns = [
    path("reset", reset),
    path("faults", faults),
    path("keys", keys),
    path("rows/<str:model>", rows),
]
