"""Disputes (chargebacks and inquiries), recorded from what Stripe says each dispute is now, whichever event brought
it and in whatever order: the Dispute row, its money movements in the ledger, the payment and its domains flagged
while it is open, staff told once per state, and a lost dispute treated as money given back (the domains are
marked refunded). While any dispute of a customer is open, their auto-renewals wait (`customer_disputes_open`).

Money: a chargeback's amount is withdrawn when it opens (an inquiry moves nothing) and reinstated if it is won; a
lost inquiry is withdrawn when it closes. Stripe's dispute fee is one of its fees, which the ledger does not book.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse

from accounts.models import Customer
from billing.ledger.books import ledger_dispute_book, line_balance
from billing.ledger.lines import line_disputed, line_refunded
from billing.models import Dispute, LedgerEntry, Payment, PaymentLine
from billing.payments import stripe_client
from reseller_webhooks.events import webhook_dispute_emit
from storefront.background.outbox import email_queue_admins

logger = logging.getLogger(__name__)

# A chargeback (not an inquiry, whose statuses start "warning_"): its money leaves at once.
CHARGEBACK_STATUSES = ("needs_response", "under_review", "won", "lost")


def payment_for_dispute(dispute: Any) -> Payment | None:
    """The payment a dispute is about: by its payment intent, else by the charge its capture was booked under."""
    intent = getattr(dispute, "payment_intent", None)
    payment = Payment.objects.for_intent(intent if isinstance(intent, str) else getattr(intent, "id", None))
    if payment is not None:
        return payment
    charge = dispute.charge if isinstance(dispute.charge, str) else getattr(dispute.charge, "id", "")
    entry = LedgerEntry.objects.filter(kind=LedgerEntry.Kind.CAPTURE, source_id=charge).select_related("payment")
    found = entry.first()
    return found.payment if found is not None else None


def dispute_record(*, payment: Payment, dispute: Any) -> Dispute:
    """Take over what Stripe says the dispute is now (once per state: a replay changes nothing)."""
    status = str(dispute.status)
    with transaction.atomic():
        payment = Payment.objects.select_for_update().get(pk=payment.pk)
        row = Dispute.objects.filter(stripe_dispute_id=dispute.id).first()
        before = row.status if row is not None else ""
        amount = stripe_client.from_minor(dispute.amount, dispute.currency)
        evidence = getattr(getattr(dispute, "evidence_details", None), "due_by", None)
        fields = {
            "payment": payment,
            "amount": amount,
            "currency": payment.currency,
            "reason": str(getattr(dispute, "reason", "") or "")[:64],
            "status": status[:32],
            "evidence_due_by": stripe_client.when(evidence) if evidence else None,
        }
        if row is None:
            row = Dispute.objects.create(
                stripe_dispute_id=dispute.id, opened_at=stripe_client.when(dispute.created), **fields
            )
        else:
            for name, value in fields.items():
                setattr(row, name, value)
        if not row.is_open and row.closed_at is None:
            row.closed_at = stripe_client.when(None)
        row.save()
        withdrawn_at, reinstated_at = _money_moved(dispute, row)
        entries = ledger_dispute_book(
            payment=payment,
            dispute_id=dispute.id,
            amount=amount,
            withdrawn_at=withdrawn_at,
            reinstated_at=reinstated_at,
        )
        lines = list({entry.line_id: entry.line for entry in entries}.values()) or list(_charged_lines(payment))
        for line in lines:
            line_disputed(line, open=row.is_open)
            # The money went back to the cardholder: as good as a refund of the lines it took in full (a dispute of
            # part of a payment leaves its other lines, and a line it took only part of, as they were).
            if status == "lost" and line_balance(line) <= 0:
                line_refunded(line)
        if status != before:
            _tell(payment, row, before=before)
            webhook_dispute_emit(
                dispute_id=row.stripe_dispute_id,
                before=before,
                is_open=row.is_open,
                data={
                    "dispute": {
                        "id": row.stripe_dispute_id,
                        "status": row.status,
                        "reason": row.reason,
                        "amount": row.amount,
                        "currency": row.currency,
                        "evidence_due_by": row.evidence_due_by,
                    },
                    "payment": {"id": payment.pk, "customer_id": payment.customer_id},
                },
            )
    return row


def _money_moved(dispute: Any, row: Dispute) -> tuple[dt.datetime | None, dt.datetime | None]:
    """When the dispute's money was withdrawn and reinstated: from its balance transactions when Stripe lists them
    (a negative one withdraws, a positive one gives back), else from its status: a chargeback's money leaves when it
    opens and comes back if it is won; an inquiry's leaves only if it is lost."""
    listed = [bt for bt in (getattr(dispute, "balance_transactions", None) or []) if not isinstance(bt, str)]
    if listed:
        out = [stripe_client.when(bt.created) for bt in listed if bt.amount < 0]
        back = [stripe_client.when(bt.created) for bt in listed if bt.amount > 0]
        return (min(out) if out else None), (min(back) if back else None)
    status = row.status
    if status in CHARGEBACK_STATUSES:
        return row.opened_at, (row.closed_at if status == "won" else None)
    return None, None


def _charged_lines(payment: Payment):
    return payment.lines.filter(status__in=(PaymentLine.Status.REGISTERED, PaymentLine.Status.REFUNDED))


def _tell(payment: Payment, dispute: Dispute, *, before: str) -> None:
    """Flag the payment while the dispute is open (or lost) and mail staff once per state."""
    lost_or_open = dispute.is_open or dispute.status == "lost"
    reason = f"Dispute {dispute.stripe_dispute_id} ({dispute.reason or 'no reason given'}): {dispute.status}" + (
        f", evidence due {dispute.evidence_due_by:%Y-%m-%d}" if dispute.is_open and dispute.evidence_due_by else ""
    )
    Payment.objects.filter(pk=payment.pk).update(
        needs_attention=lost_or_open, attention_reason=reason if lost_or_open else ""
    )
    logger.warning("payment %s: %s (was %s)", payment.pk, reason, before or "new")
    admin = settings.SITE_URL + reverse("admin:billing_payment_change", args=[payment.pk])
    email_queue_admins(
        f"Dispute {dispute.status}: {dispute.amount} {dispute.currency} from {payment.customer.email}",
        f"{reason}.\n\nPayment {payment.pk}: {admin}\n"
        "While a dispute is open, the domains it paid for are flagged and the customer's auto-renewals wait. "
        "Answer it in Stripe's Dashboard before the evidence is due. A lost dispute counts as money given back: "
        "its domains are marked refunded.\n",
        key=f"dispute:{dispute.stripe_dispute_id}:{dispute.status}",
    )


def customer_disputes_open(customer: Customer) -> bool:
    """Whether a dispute of one of the customer's payments is open (their auto-renewals wait meanwhile)."""
    return Dispute.objects.filter(payment__customer=customer, status__in=Dispute.OPEN_STATUSES).exists()
