"""A correctly signed webhook whose body is not a Stripe event (a JSON list, an object without an `id`) is refused
with a 400 and logged, and stores nothing: it is never a 500."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time

import pytest
from django.conf import settings
from django.test import Client

from billing.models import WebhookEvent

pytestmark = pytest.mark.django_db


def _signed_post(client: Client, body: str):
    timestamp = int(time.time())
    mac = hmac.new(settings.STRIPE_WEBHOOK_SECRET.encode(), f"{timestamp}.{body}".encode(), hashlib.sha256)
    return client.post(
        "/payments/stripe/webhook/",
        body,
        content_type="application/json",
        headers={"Stripe-Signature": f"t={timestamp},v1={mac.hexdigest()}"},
    )


@pytest.mark.parametrize(
    "body",
    [
        json.dumps([{"id": "evt_1", "type": "charge.refunded"}]),
        json.dumps({"type": "charge.refunded", "data": {"object": {}}}),
        json.dumps({"id": "", "type": "charge.refunded", "data": {"object": {}}}),
        json.dumps({"id": ["evt_1"], "type": "charge.refunded", "data": {"object": {}}}),
        json.dumps("evt_1"),
    ],
    ids=["list", "no-id", "empty-id", "id-not-text", "string"],
)
def test_a_signed_body_that_is_not_an_event_is_a_400_and_logged(body, caplog):
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.WARNING, logger="billing.views"):
        response = _signed_post(client, body)
    assert response.status_code == 400
    assert "not a Stripe event" in caplog.text
    assert not WebhookEvent.objects.exists()
