"""A staff refund goes through the one Stripe state-change helper (billing/stripe_client.change_state): a lost answer
is read back from Stripe instead of being taken for a failure, Stripe unavailable gives the claim back at once, and
however the calls go, the customer gets the line's money back once."""

from __future__ import annotations

from decimal import Decimal

import pytest

from billing.errors import PaymentOutcomeUnknown, PaymentUnavailable
from billing.models import LedgerEntry, Payment, PaymentLine
from billing.payments import stripe_client
from billing.payments.refunds import refund_line

pytestmark = pytest.mark.django_db


def _refunds_booked(payment: Payment) -> list[Decimal]:
    return list(
        LedgerEntry.objects.filter(payment=payment, kind=LedgerEntry.Kind.REFUND).values_list("amount", flat=True)
    )


@pytest.fixture
def stripe_calls(monkeypatch):
    """Stripe's answers as the test decides: per call name, "lost" (done, its answer lost) or "down" (not sent)."""
    real = stripe_client.call
    plan: dict[str, list[str]] = {}

    def call(what, operation, *, changes_state=False):
        fate = plan.get(what, []).pop(0) if plan.get(what) else "answered"
        if fate == "down":
            raise PaymentUnavailable(f"{what}: down (test)")
        answer = real(what, operation, changes_state=changes_state)
        if fate == "lost":
            raise PaymentOutcomeUnknown(f"{what}: answer lost (test)")
        return answer

    monkeypatch.setattr(stripe_client, "call", call)
    return plan


def test_a_refund_whose_answer_was_lost_is_read_back_and_booked_once(paid, stripe_calls):
    payment = paid()
    line = payment.lines.get(reference="example.net")
    stripe_calls["refund create"] = ["lost"]
    refunded = refund_line(line=line)
    assert refunded.status == PaymentLine.Status.REFUNDED
    assert _refunds_booked(payment) == [Decimal("-25.00")]
    assert refund_line(line=refunded).status == PaymentLine.Status.REFUNDED  # again: nothing more moves
    assert _refunds_booked(payment) == [Decimal("-25.00")]


def test_stripe_unavailable_gives_the_claim_back_so_staff_can_refund_again_at_once(paid, stripe_calls):
    payment = paid()
    line = payment.lines.get(reference="example.net")
    stripe_calls["refund create"] = ["down"]
    with pytest.raises(PaymentUnavailable):
        refund_line(line=line)
    assert _refunds_booked(payment) == []
    assert refund_line(line=line).status == PaymentLine.Status.REFUNDED  # not held by the first try's claim
    assert _refunds_booked(payment) == [Decimal("-25.00")]


def test_a_lost_answer_that_cannot_be_read_back_is_put_before_staff_and_a_retry_refunds_once(paid, stripe_calls):
    payment = paid()
    line = payment.lines.get(reference="example.net")
    stripe_calls["refund create"] = ["lost"]
    stripe_calls["refund create read back"] = ["down"]
    assert refund_line(line=line).status == PaymentLine.Status.REGISTERED  # not known to be refunded
    payment.refresh_from_db()
    assert payment.needs_attention and "outcome is unknown" in payment.attention_reason
    # Refunding again asks Stripe with the same key: the refund that did happen is answered, not made twice.
    assert refund_line(line=line).status == PaymentLine.Status.REFUNDED
    assert _refunds_booked(payment) == [Decimal("-25.00")]
