"""Stripe refusing an idempotency key (most often: another request with it is still in flight, a double click) is
an unknown outcome for a state-changing call, never a refusal that would cancel a payment Stripe may be holding."""

from __future__ import annotations

import pytest
import stripe

from billing.errors import PaymentOutcomeUnknown, PaymentRefused
from billing.payments import stripe_client


def _in_flight(client):
    raise stripe.IdempotencyError("There is currently another in-progress request using this Idempotent Key.")


def test_a_key_in_use_is_an_unknown_outcome_for_a_change_and_a_refusal_for_a_read():
    stripe_client.forget_breaker()
    with pytest.raises(PaymentOutcomeUnknown):
        stripe_client.call("payment intent create", _in_flight, changes_state=True)
    with pytest.raises(PaymentRefused) as refused:
        stripe_client.call("payment intent retrieve", _in_flight)
    assert refused.value.code == "idempotency_error"
    assert stripe_client.breaker().allows_call()  # it answered: the service is up
