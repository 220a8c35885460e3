"""The test-only control endpoint of the payment sandbox (mounted with SANDBOX_CONTROL, under /_control/stripe/).

The storefront's tests (through tests/stripe_control.py) do here what a customer does on the hosted page, what
staff do in Stripe's Dashboard, and what time does. Bodies and answers are JSON; an action the object's state does
not allow is 409 {"error"}, an unknown object 404, bad input 400.

POST /_control/stripe/reset                       forget every object, answer, call and event; the setup back to
                                                  its defaults (faults off, require_idempotency_keys off, refunds
                                                  instant, the clock at real time)
PUT  /_control/stripe/setup                       {<any Setup field>: value}: webhook endpoint, faults,
                                                  require_idempotency_keys, refund_flow, refund_settle_seconds,
                                                  extended_authorization → every field
POST /_control/stripe/sessions/<id>/pay           {card} or {method: "link"}: what the hosted page does with it
                                                  → {outcome: authorised|declined|authenticate|invalid, message}
POST /_control/stripe/sessions/<id>/authenticate  {passed}: the confirm step → {outcome, message}
GET  /_control/stripe/clock                       → {now, offset_seconds}
POST /_control/stripe/clock                       {advance_seconds} or {to: unix time}: move the clock forward
                                                  (never back), then do what fell due → {now, offset_seconds, due}
POST /_control/stripe/tick                        do what is due now (holds lapse, sessions expire, pending
                                                  refunds settle) → {due}
POST /_control/stripe/charges/<id>/refund         {amount?, reason?}: a refund made in the Dashboard (no metadata
                                                  of the storefront's); <id> a charge or a payment intent → refund
POST /_control/stripe/refunds/<id>/settle         {outcome?: succeeded|failed}: a pending refund's outcome (default:
                                                  what the setup's refund_flow decided) → refund
POST /_control/stripe/charges/<id>/dispute        {reason?, amount?, inquiry?}: the cardholder's bank opens a
                                                  dispute (a chargeback, or an inquiry) → dispute
POST /_control/stripe/disputes/<id>/review        evidence sent: needs_response → under_review → dispute
POST /_control/stripe/disputes/<id>/close         {outcome: won|lost} → dispute
GET  /_control/stripe/events?type=&session=       the events, each with its payload and a fresh signature
POST /_control/stripe/events/<id>/deliver         POST that event to the webhook endpoint now
GET  /_control/stripe/calls?path_contains=        the API calls answered
GET  /_control/stripe/objects/<id>                one stored object (for assertions)

The same Dashboard actions are in the sandbox's admin (sandbox/stripe_api/admin.py): on Charges and Payment
intents "Open a dispute (chargeback)", "Open an inquiry", "Refund in full", "Refund part…"; on Disputes "Move to
under review", "Close: won", "Close: lost"; on Refunds "Settle pending refunds"; on Setup and faults "Advance the
clock…" (and its switches, require_idempotency_keys among them, on its change page).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from sandbox.stripe_api import clock, deadlines, disputes, objects, payments, refunds, webhooks
from sandbox.stripe_api.models import ApiCall, Event, IdempotentAnswer, Setup, StripeObject
from sandbox.stripe_api.outcomes import Unexpected

_SETUP_FIELDS = {f.name for f in Setup._meta.concrete_fields} - {"id", "clock_offset_seconds"}


class _Missing(Exception):
    pass


def _body(request: HttpRequest) -> dict[str, Any]:
    return json.loads(request.body) if request.body else {}


def _control(view: Callable[..., Any]) -> Callable[..., JsonResponse]:
    """Errors as JSON; the change made as by the Dashboard (a request id of its own, no idempotency key)."""

    @csrf_exempt
    @wraps(view)
    def wrapper(request: HttpRequest, **kwargs: Any) -> JsonResponse:
        try:
            with webhooks.caused_by(objects.new_id("req")):
                answer = view(request, **kwargs)
        except Unexpected as err:
            return JsonResponse({"error": err.message, "code": err.code}, status=409)
        except _Missing as err:
            return JsonResponse({"error": str(err)}, status=404)
        except (ValueError, KeyError, TypeError, ValidationError, clock.ClockRefused) as err:
            return JsonResponse({"error": str(err)}, status=400)
        return JsonResponse(answer)

    return wrapper


def _row(object_id: str, kind: str) -> StripeObject:
    row = StripeObject.objects.select_for_update().filter(pk=object_id, object=kind).first()
    if row is None:
        raise _Missing(f"no such {kind}: {object_id}")
    return row


def charge_of(object_id: str) -> StripeObject:
    """A charge named by its id or by its payment intent's."""
    if object_id.startswith("pi_"):
        charge_id = _row(object_id, "payment_intent").data.get("latest_charge")
        if not charge_id:
            raise Unexpected(f"Payment intent {object_id} has no charge yet.")
        object_id = charge_id
    return _row(object_id, "charge")


@_control
def reset(request: HttpRequest) -> dict:
    with transaction.atomic():
        for model in (StripeObject, IdempotentAnswer, ApiCall, Event, Setup):
            model.objects.all().delete()
        Setup.current()
    return {"reset": True}


@_control
def setup(request: HttpRequest) -> dict:
    fields = _body(request)
    unknown = set(fields) - _SETUP_FIELDS
    if unknown:
        raise ValueError(f"unknown setup fields: {', '.join(sorted(unknown))}")
    row = Setup.current()
    for name, value in fields.items():
        setattr(row, name, value)
    row.full_clean()
    row.save()
    return {name: getattr(row, name) for name in _SETUP_FIELDS}


@_control
def pay(request: HttpRequest, session_id: str) -> dict:
    body = _body(request)
    with transaction.atomic():
        session = _row(session_id, "checkout.session")
        result = payments.pay(session=session, card=body.get("card", ""), link=body.get("method") == "link")
    return {"outcome": result.outcome, "message": result.message}


@_control
def authenticate(request: HttpRequest, session_id: str) -> dict:
    with transaction.atomic():
        session = _row(session_id, "checkout.session")
        result = payments.authenticate(session=session, passed=bool(_body(request).get("passed")))
    return {"outcome": result.outcome, "message": result.message}


@_control
def clock_view(request: HttpRequest) -> dict:
    due = 0
    if request.method == "POST":
        body = _body(request)
        if "to" in body:
            clock.move_to(int(body["to"]))
        else:
            clock.advance(int(body["advance_seconds"]))
        due = deadlines.catch_up()
    return {"now": clock.now(), "offset_seconds": Setup.current().clock_offset_seconds, "due": due}


@_control
def tick(request: HttpRequest) -> dict:
    return {"due": deadlines.catch_up()}


@_control
def refund(request: HttpRequest, object_id: str) -> dict:
    body = _body(request)
    amount = body.get("amount")
    with transaction.atomic():
        made = refunds.create(
            charge=charge_of(object_id),
            amount=None if amount is None else int(amount),
            metadata={},
            reason=body.get("reason"),
        )
    return objects.public(made.data)


@_control
def settle(request: HttpRequest, refund_id: str) -> dict:
    with transaction.atomic():
        row = _row(refund_id, "refund")
        refunds.settle(refund=row, outcome=_body(request).get("outcome"))
    return objects.public(row.data)


@_control
def dispute(request: HttpRequest, object_id: str) -> dict:
    body = _body(request)
    amount = body.get("amount")
    with transaction.atomic():
        made = disputes.open_dispute(
            charge=charge_of(object_id),
            reason=body.get("reason", "general"),
            amount=None if amount is None else int(amount),
            inquiry=bool(body.get("inquiry")),
        )
    return made.data


@_control
def review(request: HttpRequest, dispute_id: str) -> dict:
    with transaction.atomic():
        return disputes.review(dispute=_row(dispute_id, "dispute")).data


@_control
def close(request: HttpRequest, dispute_id: str) -> dict:
    outcome = _body(request).get("outcome")
    if outcome not in ("won", "lost"):
        raise ValueError("outcome must be won or lost")
    with transaction.atomic():
        return disputes.close(dispute=_row(dispute_id, "dispute"), won=outcome == "won").data


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
    return JsonResponse(objects.public(row.data))


urlpatterns = [
    path("reset", reset),
    path("setup", setup),
    path("sessions/<str:session_id>/pay", pay),
    path("sessions/<str:session_id>/authenticate", authenticate),
    path("clock", clock_view),
    path("tick", tick),
    path("charges/<str:object_id>/refund", refund),
    path("refunds/<str:refund_id>/settle", settle),
    path("charges/<str:object_id>/dispute", dispute),
    path("disputes/<str:dispute_id>/review", review),
    path("disputes/<str:dispute_id>/close", close),
    path("events", events),
    path("events/<str:event_id>/deliver", deliver),
    path("calls", calls),
    path("objects/<str:object_id>", stored),
]
