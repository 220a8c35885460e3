"""The payment service's fee in the books: after each capture and refund is booked, the worker reads its balance
transaction from Stripe (the fee Stripe actually took, which differs per card and country) and writes it to the
ledger as a fee entry (billing.ledger.books.ledger_fee_book), once per balance transaction.

`payment_fee_later` is called inside the transaction that books the capture or refund, so the task is queued exactly
when that is committed (the database task queue); a duplicated webhook or a retried task reads the same balance
transaction again and books nothing new. A fee the task could not read (Stripe away for longer than its retries) is
asked again by the daily `payment-fees` job (`payment_fees_missing_book`). Until the fee is read, the promotions'
cost guard uses the expected fee (pricing.fees, PAYMENT_FEE_PERCENT and PAYMENT_FEE_FIXED)."""

from __future__ import annotations

import datetime as dt
import logging
from decimal import Decimal
from typing import Any

from django.db.models import Count, F, Q
from django.utils import timezone
from django_tasks import task

from billing.errors import PaymentUnavailable
from billing.ledger.books import ledger_fee_book
from billing.models import LedgerEntry, Payment, PaymentLine
from billing.payments import stripe_client
from storefront.background.retries import retry_later
from storefront.queues import DEFAULT

logger = logging.getLogger(__name__)


def payment_fee_later(*, payment: Payment, source_id: str) -> None:
    """Ask the worker to book the fee of the charge or refund `source_id` (a payment intent's id when its charge is
    not known)."""
    book_payment_fee.enqueue(payment_id=payment.pk, source_id=source_id)


@task(queue_name=DEFAULT)
def book_payment_fee(*, payment_id: int, source_id: str, attempt: int = 1) -> int:
    """Read the balance transactions of one charge or refund and book their fees. How many fee entries it holds."""
    try:
        return len(payment_fee_book(payment=Payment.objects.get(pk=payment_id), source_id=source_id))
    except PaymentUnavailable:
        retry_later(book_payment_fee, attempt=attempt, kwargs={"payment_id": payment_id, "source_id": source_id})
        raise


# How far back the daily job looks for movements without their fee: well past any outage the retries outlast.
MISSING_FEE_DAYS = 35


@task(queue_name=DEFAULT)
def book_missing_payment_fees() -> int:
    """Ask again for the fees of recent captures and refunds that have none booked. How many were asked for."""
    return payment_fees_missing_book()


def payment_fees_missing_book(*, now: dt.datetime | None = None) -> int:
    """Enqueue the fee of each capture and refund of the last MISSING_FEE_DAYS whose payment has fewer fee entries
    than charges and refunds (each has a balance transaction; booking again is a no-op). How many were enqueued."""
    since = (now or timezone.now()) - dt.timedelta(days=MISSING_FEE_DAYS)
    movements = (LedgerEntry.Kind.CAPTURE, LedgerEntry.Kind.REFUND)
    short = (
        # Recent ones as a subquery: a filter on the entries themselves would narrow the counts below to them.
        Payment.objects.filter(
            pk__in=LedgerEntry.objects.filter(kind__in=movements, occurred_at__gte=since).values("payment_id")
        )
        .annotate(
            sources=Count(
                "ledger_entries__source_id",
                filter=Q(ledger_entries__kind__in=movements) & ~Q(ledger_entries__source_id__endswith=":reversed"),
                distinct=True,
            ),
            fees=Count("ledger_entries", filter=Q(ledger_entries__kind=LedgerEntry.Kind.FEE), distinct=True),
        )
        .filter(fees__lt=F("sources"))
    )
    asked = 0
    for payment in short:
        sources = payment.ledger_entries.filter(kind__in=movements).exclude(source_id__endswith=":reversed")
        for source_id in sources.values_list("source_id", flat=True).distinct():
            payment_fee_later(payment=payment, source_id=source_id)
            asked += 1
    return asked


def payment_fee_book(*, payment: Payment, source_id: str) -> list[LedgerEntry]:
    """The fee entries of the charge or refund `source_id`, booked from its balance transactions as Stripe has them
    (a refund's failure brings one more). Raises PaymentUnavailable when Stripe cannot be asked."""
    line = _line_of(payment, source_id)
    if line is None:
        logger.warning("payment %s: no ledger entry for %s, no fee booked", payment.pk, source_id)
        return []
    entries = []
    for txn in _balance_transactions(source_id):
        note = str(txn.type)
        if txn.currency.upper() != payment.currency.upper():
            note += f": {txn.fee} minor units of {txn.currency.upper()} at {txn.exchange_rate}"
        entries.append(
            ledger_fee_book(
                payment=payment,
                line=line,
                balance_transaction_id=txn.id,
                fee=_fee_in(payment, txn),
                occurred_at=stripe_client.when(txn.created),
                note=note,
            )
        )
    return entries


def _line_of(payment: Payment, source_id: str) -> PaymentLine | None:
    """The line the movement concerns: a refund's named (or first) line, a capture's first line."""
    kinds = (LedgerEntry.Kind.CAPTURE, LedgerEntry.Kind.REFUND)
    entry = payment.ledger_entries.filter(kind__in=kinds, source_id=source_id).order_by("pk").first()
    return entry.line if entry is not None else None


def _balance_transactions(source_id: str) -> list[Any]:
    """The balance transactions of a charge (by its id or its payment intent's) or a refund, expanded."""
    if source_id.startswith(("re_", "pyr_")):
        refund = stripe_client.call(
            "refund retrieve",
            lambda client: client.v1.refunds.retrieve(
                source_id, params={"expand": ["balance_transaction", "failure_balance_transaction"]}
            ),
        )
        found = [refund.balance_transaction, getattr(refund, "failure_balance_transaction", None)]
    elif source_id.startswith("pi_"):
        intent = stripe_client.call(
            "payment intent retrieve",
            lambda client: client.v1.payment_intents.retrieve(
                source_id, params={"expand": ["latest_charge.balance_transaction"]}
            ),
        )
        charge = intent.latest_charge
        found = [charge.balance_transaction if charge is not None and not isinstance(charge, str) else None]
    else:
        charge = stripe_client.call(
            "charge retrieve",
            lambda client: client.v1.charges.retrieve(source_id, params={"expand": ["balance_transaction"]}),
        )
        found = [charge.balance_transaction]
    return [_expanded(txn) for txn in found if txn]


def _expanded(txn: Any) -> Any:
    if not isinstance(txn, str):
        return txn
    return stripe_client.call(
        "balance transaction retrieve", lambda client: client.v1.balance_transactions.retrieve(txn)
    )


def _fee_in(payment: Payment, txn: Any) -> Decimal:
    """The transaction's fee in the payment's currency: Stripe gives it in the account's settlement currency, and
    its `exchange_rate` turns the payment's currency into that one."""
    fee = stripe_client.from_minor(txn.fee, txn.currency)
    rate = getattr(txn, "exchange_rate", None)
    if txn.currency.upper() == payment.currency.upper() or not rate:
        return fee
    return (fee / Decimal(str(rate))).quantize(Decimal("0.01"))
