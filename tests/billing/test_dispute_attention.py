"""A disputed payment stays in front of staff with the dispute as its reason, also when the dispute's event is
recorded before the capture's own answer (a lost one, reconciled later): settling the capture no longer clears it."""

from __future__ import annotations

import pytest

from billing.models import Payment
from billing.payments import stripe_client
from billing.payments.services import record_intent
from tests.billing.conftest import deliver

pytestmark = pytest.mark.django_db


def test_a_dispute_recorded_before_the_capture_is_reconciled_keeps_its_reason(paid, stripe_sandbox):
    payment = paid()
    # As a capture whose answer was lost leaves it: captured at Stripe, still authorised here.
    Payment.objects.filter(pk=payment.pk).update(status=Payment.Status.AUTHORISED, settled_at=None)
    stripe_sandbox.open_dispute(payment.stripe_payment_intent_id, reason="fraudulent")
    deliver(stripe_sandbox, "charge.dispute.created")
    payment.refresh_from_db()
    assert payment.needs_attention and "fraudulent" in payment.attention_reason

    intent_id = payment.stripe_payment_intent_id
    intent = stripe_client.call("intent", lambda client: client.v1.payment_intents.retrieve(intent_id))
    record_intent(payment=payment, intent=intent)  # the reconciler reads the capture back

    payment.refresh_from_db()
    assert payment.status == Payment.Status.CAPTURED
    assert payment.needs_attention and "fraudulent" in payment.attention_reason
