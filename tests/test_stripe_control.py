"""The payment sandbox's control client (tests/stripe_control.py) against the running sandbox: each method does
what its docstring says, so the storefront's tests can rely on it for the money events after a sale."""

from __future__ import annotations

import pytest
import stripe

from tests.stripe_control import TEST_KEY, StripeControl

DAY = 24 * 3600


@pytest.fixture
def client(stripe_sandbox: StripeControl) -> stripe.StripeClient:
    return stripe.StripeClient(TEST_KEY, base_addresses={"api": stripe_sandbox.api_base}, max_network_retries=0)


def _session(client: stripe.StripeClient, key: str) -> stripe.checkout.Session:
    return client.v1.checkout.sessions.create(
        params={
            "mode": "payment",
            "success_url": "https://shop.example/done/",
            "payment_intent_data": {"capture_method": "manual"},
            "line_items": [
                {"price_data": {"currency": "usd", "unit_amount": 2000, "product_data": {"name": "a"}}, "quantity": 1}
            ],
        },
        options={"idempotency_key": key},
    )


def _captured(client: stripe.StripeClient, control: StripeControl, key: str) -> str:
    session = _session(client, key)
    assert control.pay(session.id, "4242424242424242") == "authorised"
    intent = client.v1.checkout.sessions.retrieve(session.id).payment_intent
    assert isinstance(intent, str)
    client.v1.payment_intents.capture(intent, options={"idempotency_key": f"{key}-capture"})
    return intent


def test_the_clock_lapses_a_hold_and_link_pays(stripe_sandbox, client):
    session = _session(client, "control-1")
    assert stripe_sandbox.pay_with_link(session.id) == "authorised"
    intent = client.v1.checkout.sessions.retrieve(session.id).payment_intent
    assert isinstance(intent, str)
    before = stripe_sandbox.clock()
    moved = stripe_sandbox.advance_clock(7 * DAY + 60)
    assert (moved.offset_seconds - before.offset_seconds, moved.due) == (7 * DAY + 60, 1)
    assert client.v1.payment_intents.retrieve(intent).cancellation_reason == "automatic"
    assert stripe_sandbox.move_clock_to(moved.now + 10).now >= moved.now + 10
    assert stripe_sandbox.tick() == 0
    assert [e.type for e in stripe_sandbox.events(type="payment_intent.canceled")] == ["payment_intent.canceled"]


def test_dashboard_refunds_settle_and_disputes_close(stripe_sandbox, client):
    stripe_sandbox.setup(refund_flow="fails")
    intent = _captured(client, stripe_sandbox, "control-2")
    refund = stripe_sandbox.refund_in_dashboard(intent, amount=500)
    assert (refund["status"], refund["metadata"]) == ("pending", {})
    assert stripe_sandbox.settle_refund(refund["id"])["status"] == "failed"
    dispute = stripe_sandbox.open_dispute(intent, reason="fraudulent")
    assert stripe_sandbox.review_dispute(dispute["id"])["status"] == "under_review"
    assert stripe_sandbox.close_dispute(dispute["id"], won=False)["status"] == "lost"
    inquiry_on = _captured(client, stripe_sandbox, "control-3")
    inquiry = stripe_sandbox.open_dispute(inquiry_on, inquiry=True)
    assert stripe_sandbox.close_dispute(inquiry["id"], won=True)["status"] == "warning_closed"


def test_required_idempotency_keys_refuse_a_call_without_one(stripe_sandbox, client):
    stripe_sandbox.require_idempotency_keys()
    with pytest.raises(stripe.IdempotencyError):
        client.v1.customers.create(params={"email": "ada@example.org"})
    assert _session(client, "control-4").status == "open"
    stripe_sandbox.reset()
    assert client.v1.customers.create(params={"email": "ada@example.org"}).email == "ada@example.org"
