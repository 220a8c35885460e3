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

from billing.documents.issuing import credit_note_issue
from billing.errors import PaymentError
from billing.ledger.books import ledger_refund_book, ledger_refund_reverse, payment_refunded_total
from billing.ledger.lines import line_refunded
from billing.models import LedgerEntry, Payment, PaymentLine
from billing.payment_fees import payment_fee_later
from billing.payments import stripe_client
from storefront.background.claims import claim_give_back, claim_once

logger = logging.getLogger(__name__)

# Stripe's refund states in which the money is on its way back (booked) or is not going back (booked back).
GIVEN_BACK = ("pending", "requires_action", "succeeded")
NOT_GIVEN_BACK = ("failed", "canceled")
REFUNDABLE = (Payment.Status.CAPTURED, Payment.Status.PARTIALLY_CAPTURED, Payment.Status.REFUNDED)
# A refund's claim left by a process that died mid-call is taken over after this (the same key: never twice).
REFUND_CLAIM_SECONDS = 300


def refund_line(*, line: PaymentLine) -> PaymentLine:
    """Refund one charged line in full, once (stripe_client.change_state): a second call, or a staff member's double
    click, finds it refunded or being refunded, and Stripe's answer to the same key is the first refund. A lost
    answer is read back from the charge's refunds (ours name the line); when that cannot be read either, the payment
    is put in front of staff and refunding again asks Stripe with the same key."""
    payment = line.payment
    if line.status == PaymentLine.Status.REFUNDED:
        return line
    if line.status != PaymentLine.Status.REGISTERED or payment.status not in REFUNDABLE:
        raise PaymentError(f"line {line.pk} was not charged", code="not_charged")
    minor = stripe_client.to_minor(line.gross_amount, payment.currency)  # its tax returned with it
    claim_key = f"stripe-refund:{payment.checkout_id}:{line.reference}"
    refund = stripe_client.change_state(
        "refund create",
        claim=stripe_client.Claim(
            take=lambda: claim_once(key=claim_key, seconds=REFUND_CLAIM_SECONDS),
            give_back=lambda: claim_give_back(key=claim_key),
        ),
        idempotency_key=f"checkout-{payment.checkout_id}-refund-{line.reference}",
        change=lambda client, options: client.v1.refunds.create(
            params={
                "payment_intent": payment.charged_intent_id,
                "amount": minor,
                "metadata": {"payment_id": str(payment.pk), "line": line.reference},
            },
            options=options,
        ),
        read_back=lambda client: _refund_of_line(client, payment, line),
        unknown=lambda: _attention(
            payment, f"the refund of {line.reference}: its outcome is unknown; refunding again retries it safely"
        ),
    )
    if refund is not None:
        refund_record(payment=payment, refund=refund)
        claim_give_back(key=claim_key)  # recorded: the line's own status answers the next call
    line.refresh_from_db()
    return line


def _refund_of_line(client: Any, payment: Payment, line: PaymentLine) -> Any:
    """Our refund of this line as Stripe has it now (the charge's refunds, ours naming the line), or None."""
    intent = client.v1.payment_intents.retrieve(payment.charged_intent_id, params={"expand": ["latest_charge.refunds"]})
    refunds = getattr(getattr(intent.latest_charge, "refunds", None), "data", None) or []
    return next((r for r in refunds if stripe_client.metadata_value(r, "line") == line.reference), None)


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
            payment_fee_later(payment=payment, source_id=refund.id)
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
            payment_fee_later(payment=payment, source_id=refund.id)  # its failure's balance transaction
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
