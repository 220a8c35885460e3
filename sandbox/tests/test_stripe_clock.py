"""The payment sandbox's clock: moved forward by the control endpoint, an uncaptured hold lapses at its deadline
as Stripe's does (cancelled, `automatic`), an open session expires, and the events go out."""

from __future__ import annotations

import json

import pytest
import stripe

from sandbox.stripe_api.models import Event, Setup
from sandbox.tests.stripe_helpers import (
    WEBHOOK_SECRET,
    Api,
    authorised,
    charge_of,
    charge_off_session,
    control,
    receiving,
    saved_card,
    session,
    wait_for,
)

pytestmark = pytest.mark.django_db
DAY = 24 * 3600


@pytest.fixture
def api() -> Api:
    return Api()


def _deadline(api: Api, intent: dict) -> int:
    return charge_of(api, intent)["payment_method_details"]["card"]["capture_before"]


def test_new_objects_are_created_at_the_sandbox_time(api):
    first = session(api)
    moved = control("POST", "clock", {"advance_seconds": 3 * DAY})
    second = session(api)
    assert moved["offset_seconds"] == 3 * DAY
    assert 3 * DAY <= second["created"] - first["created"] <= 3 * DAY + 5
    assert abs(control("GET", "clock")["now"] - second["created"]) <= 5


def test_an_uncaptured_hold_lapses_when_the_clock_passes_its_deadline(api):
    intent = authorised(api)
    deadline = _deadline(api, intent)
    control("POST", "clock", {"to": deadline - 60})
    assert api.get(f"payment_intents/{intent['id']}").json()["status"] == "requires_capture"

    assert control("POST", "clock", {"advance_seconds": 120})["due"] == 1
    lapsed = api.get(f"payment_intents/{intent['id']}").json()
    assert (lapsed["status"], lapsed["cancellation_reason"]) == ("canceled", "automatic")
    assert (lapsed["canceled_at"], lapsed["amount_capturable"]) == (deadline, 0)
    charge = api.get(f"charges/{intent['latest_charge']}").json()
    assert (charge["captured"], charge["refunded"], charge["amount_refunded"]) == (False, True, 3799)
    canceled = Event.objects.get(type="payment_intent.canceled")
    assert canceled.data["data"]["object"]["cancellation_reason"] == "automatic"
    assert canceled.data["request"] == {"id": None, "idempotency_key": None}  # Stripe's own doing
    assert Event.objects.filter(type="charge.expired").count() == 1

    refused = api.post(f"payment_intents/{intent['id']}/capture", {})
    assert (refused.status_code, refused.json()["error"]["code"]) == (400, "payment_intent_unexpected_state")


def test_the_lapse_is_noticed_by_the_next_api_call(api):
    intent = authorised(api)
    # The clock moved without the control endpoint (as real time passes): nothing has lapsed yet...
    Setup.objects.filter(pk=1).update(clock_offset_seconds=8 * DAY)
    assert not Event.objects.filter(type="payment_intent.canceled").exists()
    # ...until the sandbox is next asked anything.
    assert api.get(f"payment_intents/{intent['id']}").json()["status"] == "canceled"


def test_an_off_session_visa_hold_lapses_before_a_customers_would(api):
    customer, method = saved_card(api)
    on_session = authorised(api)
    off_session = charge_off_session(api, customer, method).json()
    control("POST", "clock", {"advance_seconds": 5 * DAY})
    assert api.get(f"payment_intents/{off_session['id']}").json()["status"] == "canceled"
    assert api.get(f"payment_intents/{on_session['id']}").json()["status"] == "requires_capture"


def test_a_captured_payment_does_not_lapse(api):
    intent = authorised(api)
    api.post(f"payment_intents/{intent['id']}/capture", {})
    control("POST", "clock", {"advance_seconds": 30 * DAY})
    assert api.get(f"payment_intents/{intent['id']}").json()["status"] == "succeeded"


def test_an_open_session_expires_after_its_expires_at(api):
    made = session(api)
    control("POST", "clock", {"to": made["expires_at"] + 1})
    assert api.get(f"checkout/sessions/{made['id']}").json()["status"] == "expired"
    assert Event.objects.filter(type="checkout.session.expired").count() == 1


def test_the_clock_never_goes_back(api):
    control("POST", "clock", {"advance_seconds": 60})
    refused = control("POST", "clock", {"advance_seconds": -1}, status=400)
    assert "only moves forward" in refused["error"]
    assert control("GET", "clock")["offset_seconds"] == 60


@pytest.mark.django_db(transaction=True)
def test_the_lapse_event_is_delivered_signed(live_server, settings):
    received = receiving(live_server, settings)
    api = Api()
    intent = authorised(api)
    wait_for(lambda: len(received) == 3)
    received.clear()
    control("POST", "clock", {"advance_seconds": 7 * DAY + 1})
    wait_for(lambda: len(received) == 2)
    payloads = [json.loads(payload) for payload, _ in received]
    assert [payload["type"] for payload in payloads] == ["charge.expired", "payment_intent.canceled"]
    assert payloads[1]["data"]["object"]["id"] == intent["id"]
    for payload, header in received:
        stripe.Webhook.construct_event(payload, header, WEBHOOK_SECRET)  # signed in real time, whatever the clock


def test_staff_advance_the_clock_in_the_admin(api):
    from django.contrib.auth.models import User
    from django.test import Client

    intent = authorised(api)
    setup = Setup.current()
    admin = Client()
    admin.force_login(User.objects.create_superuser("staff", "staff@example.org", "x"))
    asked = admin.post("/admin/stripe_api/setup/", {"action": "advance_clock", "_selected_action": [setup.pk]})
    assert b'name="days"' in asked.content
    done = admin.post(
        "/admin/stripe_api/setup/",
        {
            "action": "advance_clock",
            "_selected_action": [setup.pk],
            "apply": "1",
            "days": "8",
            "hours": "0",
            "minutes": "0",
        },
        follow=True,
    )
    assert b"1 object(s) fell due" in done.content
    assert api.get(f"payment_intents/{intent['id']}").json()["status"] == "canceled"


def test_tick_does_what_fell_due_without_moving_the_clock(api):
    intent = authorised(api)
    Setup.objects.filter(pk=1).update(clock_offset_seconds=8 * DAY)
    assert control("POST", "tick") == {"due": 1}
    assert Event.objects.filter(type="payment_intent.canceled").count() == 1
    assert control("POST", "tick") == {"due": 0}
    assert api.get(f"payment_intents/{intent['id']}").json()["status"] == "canceled"
