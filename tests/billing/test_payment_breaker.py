"""The payment service's own circuit breaker: while Stripe keeps failing, payment calls fail fast and send nothing;
provider calls never notice; the first answer after the cooldown closes it."""

from __future__ import annotations

import pytest
from django.test import override_settings

from billing.errors import PaymentUnavailable
from billing.models import Payment
from billing.payments import stripe_client
from billing.payments.services import payment_settle
from storefront.gateway import gateway
from tests.billing.conftest import GOOD_CARD

pytestmark = pytest.mark.django_db


@override_settings(STRIPE_BREAKER_FAILURES=2, STRIPE_BREAKER_SECONDS=30)
def test_stripe_failing_opens_the_payment_breaker_alone_and_its_cooldown_closes_it(
    start, stripe_sandbox, registrar, fake_gateway
):
    clock = [1000.0]
    stripe_client.breaker()._clock = lambda: clock[0]
    started = start()
    session_id = started.payment.stripe_session_id
    stripe_sandbox.pay(session_id, GOOD_CARD)
    stripe_sandbox.setup(api_error=True)
    for _ in range(2):
        with pytest.raises(PaymentUnavailable):
            payment_settle(session_id=session_id)
    asked = len(stripe_sandbox.calls())
    with pytest.raises(PaymentUnavailable):
        payment_settle(session_id=session_id)
    assert len(stripe_sandbox.calls()) == asked  # open: nothing was sent
    # The provider is another service: its calls go on.
    assert gateway().hello().message
    stripe_sandbox.setup(api_error=False)
    clock[0] += 31
    assert payment_settle(session_id=session_id).status == Payment.Status.CAPTURED
    assert not stripe_client.breaker().is_open
