"""The store's Stripe requests as Stripe answers them at the SDK's pinned API version (the payment sandbox's strict
mode, on in every billing test): a saved-card charge restricted to cards, the bare off-session request refused, one
Tax Rate per rate however many days it is used, and the reconciler's event lists within Stripe's 20 types."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest
import stripe
import time_machine
from django.utils import timezone

from billing.ledger.lines import LineToPay
from billing.models import SavedCard, WebhookEvent
from billing.payments import reconcile, stripe_client
from billing.payments.services import payment_charge_saved, payment_settle
from pricing.models import TaxRate, TaxRegistration
from pricing.money import Money
from tests.billing.conftest import GOOD_CARD
from tests.billing.test_tax_charged import EUR_LINES

pytestmark = pytest.mark.django_db
RENEWAL = [LineToPay("example.com", "example.com, renew 1 year", Money(Decimal("12.99"), "USD"), {"years": 1})]


@pytest.fixture
def saved_card(start, stripe_sandbox, registrar, customer) -> SavedCard:
    first = start()
    assert stripe_sandbox.pay(first.payment.stripe_session_id, GOOD_CARD) == "authorised"
    payment_settle(session_id=first.payment.stripe_session_id)
    card = SavedCard.objects.get(customer=customer)
    assert card.has_card
    return card


def test_a_saved_card_charge_is_confirmed_as_a_card_only_intent(saved_card, stripe_sandbox, customer):
    renewal = payment_charge_saved(customer=customer, lines=RENEWAL, checkout_id=uuid.uuid4())
    assert renewal.amount_captured == Decimal("12.99")
    intent = stripe_sandbox.stored(renewal.stripe_payment_intent_id)
    assert intent["allowed_payment_method_types"] == ["card"]
    assert intent["automatic_payment_methods"] is None


def test_the_strict_sandbox_refuses_the_old_off_session_request(saved_card, stripe_sandbox):
    """The request the store sent before: no restriction, no return_url. Stripe refuses it at this version."""
    bare = {
        "amount": 1299,
        "currency": "usd",
        "customer": saved_card.stripe_customer_id,
        "payment_method": saved_card.payment_method_id,
        "confirm": True,
        "off_session": True,
        "capture_method": "manual",
    }
    with pytest.raises(stripe.InvalidRequestError) as refused:
        stripe_client.stripe_client().v1.payment_intents.create(
            params=bare,
            options={"idempotency_key": f"old-request-{uuid.uuid4()}"},
        )
    assert "A `return_url` must be specified" in refused.value.error.message


def test_one_tax_rate_serves_every_day_it_is_used(start, stripe_sandbox, customer, registrar):
    TaxRegistration.objects.create(country="DE", tax_id="DE136695976", name="Beispiel Domains GmbH")
    TaxRate.objects.create(country="DE", rate=Decimal(19), label="VAT")
    customer.country = "DE"
    customer.save()
    first = start(lines=EUR_LINES, checkout_id=uuid.uuid4())
    # Two days later Stripe has forgotten the first request's idempotency key: the rate is found, not made again.
    with time_machine.travel(timezone.now() + dt.timedelta(days=2)):
        second = start(checkout_id=uuid.uuid4())
    # One request made the rate; without the look-up the second day sends its create again (Stripe, past the
    # key's 24 hours, would make a second rate).
    creates = [call for call in stripe_sandbox.calls("/v1/tax_rates") if call["method"] == "POST"]
    assert len(creates) == 1
    for started in (first, second):
        assert stripe_sandbox.stored(started.payment.stripe_session_id)["total_details"]["amount_tax"] > 0


def test_the_reconciler_reads_more_than_20_event_types_in_groups(start, stripe_sandbox, registrar, monkeypatch):
    many = tuple(sorted({*reconcile.HANDLED_EVENTS, *(f"customer.example_{n}" for n in range(10))}))
    assert len(many) > reconcile.EVENT_TYPES_PER_CALL
    monkeypatch.setattr(reconcile, "HANDLED_EVENTS", many)
    started = start()
    stripe_sandbox.pay(started.payment.stripe_session_id, GOOD_CARD)
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=4)):
        counts = reconcile.payments_reconcile()
    assert counts["events_new"] >= 1 and WebhookEvent.objects.exists()
    lists = [call for call in stripe_sandbox.calls("/v1/events") if call["method"] == "GET"]
    assert len(lists) >= 2 and all(call["status"] == 200 for call in lists)
    assert max(len(group) for group in reconcile.event_type_groups(many)) == 20
