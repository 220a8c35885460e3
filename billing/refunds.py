"""Refunds: staff refunding a paid line (through Stripe's API, with our metadata), and every refund Stripe reports,
ours or one made in Stripe's dashboard, recorded once per refund in one transaction: its ledger entries, the
payment's amounts, the lines refunded in full (and what they sold, through their kind: the domain marked refunded,
auto-renew off) and its credit note. A refund that fails later is booked back and put in front of staff."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from billing import stripe_client
from billing.documents import credit_note_issue
from billing.errors import PaymentError
from billing.ledger import ledger_refund_book, ledger_refund_reverse, payment_refunded_total
from billing.lines import line_refunded
from billing.models import LedgerEntry, Payment, PaymentLine

logger = logging.getLogger(__name__)

# Stripe's refund states in which the money is on its way back (booked) or is not going back (booked back).
GIVEN_BACK = ("pending", "requires_action", "succeeded")
NOT_GIVEN_BACK = ("failed", "canceled")
REFUNDABLE = (Payment.Status.CAPTURED, Payment.Status.PARTIALLY_CAPTURED, Payment.Status.REFUNDED)


def refund_line(*, line: PaymentLine) -> PaymentLine:
    """Refund one charged line in full (idempotent: a second call finds it refunded, and Stripe's answer to the same
    key is the first refund)."""
    payment = line.payment
    if line.status == PaymentLine.Status.REFUNDED:
        return line
    if line.status != PaymentLine.Status.REGISTERED or payment.status not in REFUNDABLE:
        raise PaymentError(f"line {line.pk} was not charged", code="not_charged")
    minor = stripe_client.to_minor(line.gross_amount, payment.currency)  # its tax returned with it
    refund = stripe_client.call(
        "refund create",
        lambda client: client.v1.refunds.create(
            params={
                "payment_intent": payment.charged_intent_id,
                "amount": minor,
                "metadata": {"payment_id": str(payment.pk), "line": line.reference},
            },
            options={"idempotency_key": f"checkout-{payment.checkout_id}-refund-{line.reference}"},
        ),
        changes_state=True,
    )
    refund_record(payment=payment, refund=refund)
    line.refresh_from_db()
    return line


def refund_record(*, payment: Payment, refund: Any) -> bool:
    """Record one Stripe refund of this payment as Stripe has it now, once. True when it changed anything."""
    with transaction.atomic():
        payment = Payment.objects.select_for_update().get(pk=payment.pk)
        booked = LedgerEntry.objects.filter(payment=payment, kind=LedgerEntry.Kind.REFUND, source_id=refund.id)
        if refund.status in GIVEN_BACK and not booked.exists():
            amount = stripe_client.from_minor(refund.amount, refund.currency)
            ledger_refund_book(
                payment=payment,
                refund_id=refund.id,
                amount=amount,
                occurred_at=stripe_client.when(refund.created),
                line=_named_line(payment, refund),
            )
            _payment_after_refunds(payment, refund_id=refund.id)
            credit_note_issue(payment=payment, refund_id=refund.id, amount=amount)
            return True
        reversed_id = f"{refund.id}:reversed"
        if refund.status in NOT_GIVEN_BACK and booked.exists():
            if LedgerEntry.objects.filter(
                payment=payment, kind=LedgerEntry.Kind.REFUND, source_id=reversed_id
            ).exists():
                return False
            ledger_refund_reverse(payment=payment, refund_id=refund.id, occurred_at=timezone.now())
            _payment_after_refunds(payment, refund_id=refund.id)
            reason = getattr(refund, "failure_reason", "") or refund.status
            _attention(payment, f"refund {refund.id} {refund.status} ({reason}): the money did not go back")
            return True
    return False


def refunds_of_charge(*, payment: Payment, charge: Any) -> int:
    """Record each refund a charge lists (as the payment sandbox and older API versions include them). Refunds
    recorded; without the list, the refund's own events bring each one."""
    listed = getattr(charge, "refunds", None)
    data = getattr(listed, "data", None) or []
    return sum(refund_record(payment=payment, refund=refund) for refund in data)


def _named_line(payment: Payment, refund: Any) -> PaymentLine | None:
    """The line our own refund names in its metadata; None for a refund made elsewhere."""
    reference = stripe_client.metadata_value(refund, "line")
    return payment.lines.filter(reference=reference).first() if reference else None


def _payment_after_refunds(payment: Payment, *, refund_id: str) -> None:
    """The payment's refunded amount from its ledger, and each line refunded in full marked so (once)."""
    payment.amount_refunded = payment_refunded_total(payment)
    if payment.amount_captured > 0 and payment.amount_refunded >= payment.amount_captured:
        payment.status = Payment.Status.REFUNDED
    payment.save(update_fields=["amount_refunded", "status", "updated_at"])
    for line in payment.lines.filter(status=PaymentLine.Status.REGISTERED):
        sums = line.ledger_entries.values("kind").annotate(total=Sum("amount"))
        by_kind = {row["kind"]: row["total"] for row in sums}
        captured = by_kind.get(LedgerEntry.Kind.CAPTURE) or 0
        refunded = -(by_kind.get(LedgerEntry.Kind.REFUND) or 0)
        if captured > 0 and refunded >= captured:
            PaymentLine.objects.filter(pk=line.pk).update(
                status=PaymentLine.Status.REFUNDED, stripe_refund_id=refund_id[:255], refunded_at=timezone.now()
            )
            line_refunded(line)


def _attention(payment: Payment, reason: str) -> None:
    Payment.objects.filter(pk=payment.pk).update(needs_attention=True, attention_reason=reason)
    logger.warning("payment %s needs attention: %s", payment.pk, reason)
