"""The webhook endpoint and the receipt page."""

from __future__ import annotations

import json
import logging

import stripe
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from billing.models import Receipt
from billing.webhooks import webhook_event_process, webhook_event_record
from storefront.request_helpers import AuthenticatedHttpRequest

logger = logging.getLogger(__name__)


@csrf_exempt
@require_POST
def stripe_webhook(request: HttpRequest) -> HttpResponse:
    """Verify `Stripe-Signature` with STRIPE_WEBHOOK_SECRET; a bad one is a 400 and changes nothing."""
    if not settings.STRIPE_WEBHOOK_SECRET:
        logger.error("a Stripe webhook arrived but STRIPE_WEBHOOK_SECRET is not set")
        return HttpResponse("webhook secret not configured", status=503, content_type="text/plain")
    try:
        payload = request.body.decode("utf-8")
        stripe.Webhook.construct_event(
            payload, request.headers.get("Stripe-Signature", ""), settings.STRIPE_WEBHOOK_SECRET
        )
        event = json.loads(payload)
    except (ValueError, stripe.SignatureVerificationError) as err:
        logger.warning("stripe webhook refused: %s", type(err).__name__)
        return HttpResponse("invalid payload or signature", status=400, content_type="text/plain")
    record = webhook_event_record(event=event)
    if not webhook_event_process(record=record):
        # Stripe retries a non-2xx delivery later; the event is stored and will be processed then.
        return HttpResponse("payment service unavailable; retry", status=503, content_type="text/plain")
    return HttpResponse("ok", content_type="text/plain")


@login_required
@require_GET
def receipt(request: AuthenticatedHttpRequest, number: int) -> HttpResponse:
    found = (
        Receipt.objects.select_related("payment__customer")
        .filter(store=settings.STORE_NAME, number=number, payment__customer__user=request.user)
        .first()
    )
    if found is None:
        raise Http404("No such receipt")
    lines = found.payment.lines.filter(status__in=["registered", "refunded"])
    return render(request, "billing/receipt.html", {"receipt": found, "payment": found.payment, "lines": lines})
