"""The test-only control endpoint of the payment sandbox (mounted with SANDBOX_CONTROL, under /_control/stripe/).

POST /_control/stripe/reset                     forget every object, answer, call and event; faults off
PUT  /_control/stripe/setup                     {<any Setup field>: value}: webhook endpoint, faults
POST /_control/stripe/sessions/<id>/pay         {card}: what the hosted page does with that card
POST /_control/stripe/sessions/<id>/authenticate {passed}: the confirm step
GET  /_control/stripe/events?type=&session=     the events, each with its payload and a fresh signature
POST /_control/stripe/events/<id>/deliver       POST that event to the webhook endpoint now
GET  /_control/stripe/calls?path_contains=      the API calls answered
GET  /_control/stripe/objects/<id>              one stored object (for assertions)
"""

from __future__ import annotations

import json
from typing import Any

from django.db import transaction
from django.http import HttpRequest, JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from sandbox.stripe_api import payments, webhooks
from sandbox.stripe_api.models import ApiCall, Event, IdempotentAnswer, Setup, StripeObject

_SETUP_FIELDS = {f.name for f in Setup._meta.concrete_fields} - {"id"}


def _body(request: HttpRequest) -> dict[str, Any]:
    return json.loads(request.body) if request.body else {}


@csrf_exempt
def reset(request: HttpRequest) -> JsonResponse:
    with transaction.atomic():
        for model in (StripeObject, IdempotentAnswer, ApiCall, Event, Setup):
            model.objects.all().delete()
        Setup.current()
    return JsonResponse({"reset": True})


@csrf_exempt
def setup(request: HttpRequest) -> JsonResponse:
    fields = _body(request)
    unknown = set(fields) - _SETUP_FIELDS
    if unknown:
        return JsonResponse({"error": f"unknown setup fields: {', '.join(sorted(unknown))}"}, status=400)
    row = Setup.current()
    for name, value in fields.items():
        setattr(row, name, value)
    row.save()
    return JsonResponse({name: getattr(row, name) for name in _SETUP_FIELDS})


@csrf_exempt
def pay(request: HttpRequest, session_id: str) -> JsonResponse:
    with transaction.atomic():
        session = StripeObject.objects.select_for_update().get(pk=session_id, object="checkout.session")
        try:
            result = payments.pay(session=session, card=_body(request)["card"])
        except payments.Unexpected as err:
            return JsonResponse({"error": err.message}, status=409)
    return JsonResponse({"outcome": result.outcome, "message": result.message})


@csrf_exempt
def authenticate(request: HttpRequest, session_id: str) -> JsonResponse:
    with transaction.atomic():
        session = StripeObject.objects.select_for_update().get(pk=session_id, object="checkout.session")
        try:
            result = payments.authenticate(session=session, passed=bool(_body(request).get("passed")))
        except payments.Unexpected as err:
            return JsonResponse({"error": err.message}, status=409)
    return JsonResponse({"outcome": result.outcome, "message": result.message})


def events(request: HttpRequest) -> JsonResponse:
    secret = Setup.current().webhook_secret
    rows = Event.objects.all()
    if request.GET.get("type"):
        rows = rows.filter(type=request.GET["type"])
    found = []
    for event in rows:
        if request.GET.get("session") and event.data["data"]["object"].get("id") != request.GET["session"]:
            continue
        payload = webhooks.payload_of(event)
        found.append(
            {
                "id": event.id,
                "type": event.type,
                "payload": payload,
                "deliveries": event.deliveries,
                "signature": webhooks.signature_header(payload=payload, secret=secret),
            }
        )
    return JsonResponse({"events": found})


@csrf_exempt
def deliver(request: HttpRequest, event_id: str) -> JsonResponse:
    return JsonResponse({"status": webhooks.deliver(event_id=event_id)})


def calls(request: HttpRequest) -> JsonResponse:
    rows = ApiCall.objects.all()
    if request.GET.get("path_contains"):
        rows = rows.filter(path__contains=request.GET["path_contains"])
    return JsonResponse({"calls": list(rows.values("method", "path", "status", "idempotency_key", "replayed"))})


def stored(request: HttpRequest, object_id: str) -> JsonResponse:
    row = StripeObject.objects.filter(pk=object_id).first()
    if row is None:
        return JsonResponse({"error": "no such object"}, status=404)
    return JsonResponse(payments.public(row.data))


urlpatterns = [
    path("reset", reset),
    path("setup", setup),
    path("sessions/<str:session_id>/pay", pay),
    path("sessions/<str:session_id>/authenticate", authenticate),
    path("events", events),
    path("events/<str:event_id>/deliver", deliver),
    path("calls", calls),
    path("objects/<str:object_id>", stored),
]
