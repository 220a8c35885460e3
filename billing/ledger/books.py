"""The store's books: every money movement of every paid line (billing.models.LedgerEntry), and what they add up to.

Writing (billing's own services, inside the transaction of the state change each records): `ledger_capture_book`,
`ledger_refund_book`, `ledger_refund_reverse`, `ledger_dispute_book`, `ledger_write_off_book`; and, from the worker
once the payment service's balance transaction is read (billing.payment_fees), `ledger_fee_book`. Each is idempotent per
payment-service object: booking the same charge, refund, dispute or balance transaction again returns the rows
already booked.

Kept totals: every booking adds its entries to `LedgerMonthTotal` (per month, currency, rate, TLD and cause) in
its own transaction; `ledger_month_figures` reads them as `ledger_figures` reads the entries, so the revenue report and
the dashboard read a few rows per month whatever the size of the ledger. `ledger_month_totals_differences` compares
the two, `ledger_month_totals_rebuild` writes the totals again from the entries.

Reading (for the revenue report, the tax report and the staff dashboard): `ledger_figures(start=, end=,
group_by=)` sums the entries into `LedgerFigures` (captured, refunded, lost to disputes, written off, cost, the
payment service's fees, and the net, margin and net margin they make) per currency and per any of month, TLD and
cause. Reports read nothing else: the ledger equals what the payment service captured minus what it gave back, to
the cent.

Signs: a capture and a reinstatement are positive, a refund and a dispute withdrawal negative. A movement that
covers several lines (a capture, a refund made in Stripe's dashboard, a dispute) is split over the lines in their
order, each up to what it still holds, so each line's entries add up to what the customer paid for it net.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import zoneinfo
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, F, Q, QuerySet, Sum
from django.db.models.functions import TruncMonth

from accounts.staff.activity import activity_record
from billing.models import LedgerEntry, LedgerMonthTotal, Payment, PaymentLine, SaleCause
from reseller_webhooks.events import PAYMENT_CAPTURED, PAYMENT_REFUNDED, webhook_event_emit

logger = logging.getLogger(__name__)

Kind = LedgerEntry.Kind
ZERO = Decimal("0.00")
DISPUTE_KINDS = (Kind.DISPUTE_WITHDRAWAL, Kind.DISPUTE_REINSTATEMENT)
GROUPINGS = ("month", "tld", "cause")


# --- Booking ------------------------------------------------------------------------------------------------------


def line_balance(line: PaymentLine) -> Decimal:
    """What the line holds now: captured, less what was refunded or withdrawn by a dispute (and reinstated)."""
    return line.ledger_entries.aggregate(total=Sum("amount"))["total"] or ZERO


def _allocate(total: Decimal, caps: Sequence[tuple[PaymentLine, Decimal]]) -> list[tuple[PaymentLine, Decimal]]:
    """Split `total` over the lines in order, each up to its cap. What no cap holds goes on the last line (the books
    follow the payment service to the cent; the caller tells staff)."""
    shares: list[tuple[PaymentLine, Decimal]] = []
    left = total
    for line, cap in caps:
        share = min(cap, left)
        if share > 0:
            shares.append((line, share))
            left -= share
        if left <= 0:
            break
    if left > 0 and caps:
        last, share = shares.pop() if shares else (caps[-1][0], ZERO)
        shares.append((last, share + left))
    return shares


def _tax_part(line: PaymentLine, amount: Decimal) -> Decimal:
    """The tax in a movement of `amount` (signed) on the line: all of its tax for its whole price, else its share."""
    gross = line.gross_amount
    if not line.tax_amount or not gross:
        return ZERO
    if abs(amount) == gross:
        return line.tax_amount if amount > 0 else -line.tax_amount
    return (line.tax_amount * amount / gross).quantize(ZERO)


def _booked(payment: Payment, kind: str, source_id: str) -> list[LedgerEntry]:
    return list(LedgerEntry.objects.filter(payment=payment, kind=kind, source_id=source_id).order_by("pk"))


def _book(
    payment: Payment,
    kind: str,
    source_id: str,
    shares: Iterable[tuple[PaymentLine, Decimal]],
    *,
    occurred_at: dt.datetime,
    cost: bool = False,
    note: str = "",
) -> list[LedgerEntry]:
    """Write the entries of one movement, once: booked already (a replay, a concurrent door), they are returned."""
    entries = [
        LedgerEntry(
            kind=kind,
            cause=line.cause,
            amount=amount if kind != Kind.WRITE_OFF else ZERO,
            written_off=amount if kind == Kind.WRITE_OFF else ZERO,
            currency=payment.currency,
            cost=line.cost if cost else ZERO,
            tax=_tax_part(line, amount),
            tld=line.tld,
            payment=payment,
            line=line,
            source_id=source_id[:255],
            occurred_at=occurred_at,
            note=note[:255],
        )
        for line, amount in shares
    ]
    try:
        with transaction.atomic():
            LedgerEntry.objects.bulk_create(entries)
            ledger_month_totals_add(entries, rate=payment.rate)
            _log(payment, kind, source_id, entries)
    except IntegrityError:
        logger.info("ledger: %s %s of payment %s was booked already", kind, source_id, payment.pk)
        return _booked(payment, kind, source_id)
    return _booked(payment, kind, source_id)


_LOGGED_AS = {
    Kind.CAPTURE: "payment_captured",
    Kind.REFUND: "payment_refunded",
    Kind.DISPUTE_WITHDRAWAL: "dispute_withdrawn",
    Kind.DISPUTE_REINSTATEMENT: "dispute_reinstated",
    Kind.WRITE_OFF: "written_off",
}

# The movements the reseller's other systems hear of (reseller_webhooks): money in, and money given back.
_WEBHOOK_EVENTS = {"payment_captured": PAYMENT_CAPTURED, "payment_refunded": PAYMENT_REFUNDED}


def _log(payment: Payment, kind: str, source_id: str, entries: Sequence[LedgerEntry]) -> None:
    """One row of the activity log per money movement booked, naming its domain when it concerns one."""
    total = sum((entry.written_off if kind == Kind.WRITE_OFF else entry.amount for entry in entries), ZERO)
    action = "refund_failed" if kind == Kind.REFUND and total > 0 else _LOGGED_AS[Kind(kind)]
    references = sorted({entry.line.reference for entry in entries})
    activity_record(
        action=action,
        payment=payment,
        domain_name=references[0] if len(references) == 1 else "",
        detail={"amount": abs(total), "currency": payment.currency, "domains": ", ".join(references)},
    )
    if action in _WEBHOOK_EVENTS:
        webhook_event_emit(
            _WEBHOOK_EVENTS[action],
            key=f"{payment.pk}:{source_id}",
            data={
                "payment": {"id": payment.pk, "customer_id": payment.customer_id, "currency": payment.currency},
                "amount": abs(total).quantize(ZERO),  # as the entries are stored
                "domains": references,
            },
        )


def ledger_capture_book(
    *, payment: Payment, source_id: str, amount: Decimal, occurred_at: dt.datetime
) -> list[LedgerEntry]:
    """The capture of `amount` (what Stripe says it captured) over the payment's registered lines, with each line's
    cost."""
    if amount <= 0:
        return []
    done = _booked(payment, Kind.CAPTURE, source_id)
    if done:
        return done
    lines = list(payment.lines.filter(status=PaymentLine.Status.REGISTERED).order_by("position"))
    if sum((line.gross_amount for line in lines), ZERO) != amount:
        logger.warning("payment %s: captured %s, its registered lines total otherwise", payment.pk, amount)
    caps = [(line, line.gross_amount) for line in lines] or list(_lines(payment))
    return _book(payment, Kind.CAPTURE, source_id, _allocate(amount, caps), occurred_at=occurred_at, cost=True)


def _lines(payment: Payment) -> Iterable[tuple[PaymentLine, Decimal]]:
    for line in payment.lines.order_by("position"):
        yield line, line_balance(line)


def ledger_refund_book(
    *,
    payment: Payment,
    refund_id: str,
    amount: Decimal,
    occurred_at: dt.datetime,
    line: PaymentLine | None = None,
) -> list[LedgerEntry]:
    """A refund of `amount`: on `line` when it names one (ours do), else over the lines still holding money."""
    done = _booked(payment, Kind.REFUND, refund_id)
    if done:
        return done
    held = [(each, balance) for each, balance in _lines(payment) if balance > 0]
    if line is not None:
        held.sort(key=lambda pair: pair[0].pk != line.pk)  # the named line first, then the others in order
    shares = [(each, -share) for each, share in _allocate(amount, held)]
    return _book(payment, Kind.REFUND, refund_id, shares, occurred_at=occurred_at)


def ledger_refund_reverse(*, payment: Payment, refund_id: str, occurred_at: dt.datetime) -> list[LedgerEntry]:
    """A refund that failed or was cancelled after it was booked: the money is back, on the same lines."""
    booked = _booked(payment, Kind.REFUND, refund_id)
    shares = [(entry.line, -entry.amount) for entry in booked]
    return _book(payment, Kind.REFUND, f"{refund_id}:reversed", shares, occurred_at=occurred_at, note="refund failed")


def ledger_dispute_book(
    *,
    payment: Payment,
    dispute_id: str,
    amount: Decimal,
    withdrawn_at: dt.datetime | None,
    reinstated_at: dt.datetime | None,
) -> list[LedgerEntry]:
    """A dispute's funds withdrawn (over the lines holding money) and, once won, reinstated on the same lines. Either
    time None: not (yet) done. Booked once each, whatever the number of calls."""
    withdrawals = _booked(payment, Kind.DISPUTE_WITHDRAWAL, dispute_id)
    if withdrawn_at is not None and not withdrawals:
        held = [(each, balance) for each, balance in _lines(payment) if balance > 0]
        shares = [(each, -share) for each, share in _allocate(amount, held)]
        withdrawals = _book(payment, Kind.DISPUTE_WITHDRAWAL, dispute_id, shares, occurred_at=withdrawn_at)
    if reinstated_at is None or not withdrawals:
        return withdrawals
    back = [(entry.line, -entry.amount) for entry in withdrawals]
    return withdrawals + _book(payment, Kind.DISPUTE_REINSTATEMENT, dispute_id, back, occurred_at=reinstated_at)


def ledger_write_off_book(
    *, payment: Payment, lines: Sequence[PaymentLine], occurred_at: dt.datetime, note: str = ""
) -> list[LedgerEntry]:
    """Registered lines that will not be paid for: no money moved; their price is written off and their cost kept."""
    shares = [(line, line.gross_amount) for line in lines]
    source = f"write-off:{payment.checkout_id}"
    return _book(payment, Kind.WRITE_OFF, source, shares, occurred_at=occurred_at, cost=True, note=note)


def ledger_fee_book(
    *,
    payment: Payment,
    line: PaymentLine,
    balance_transaction_id: str,
    fee: Decimal,
    occurred_at: dt.datetime,
    note: str,
) -> LedgerEntry:
    """What the payment service kept of one balance transaction (a capture's, a refund's), in the payment's currency:
    one fee entry per balance transaction, on the line the movement concerns. It moves none of the customer's money
    (`amount` 0), so lines' balances, refunds and the tax are as before. Booked once, whatever the number of calls."""
    entry = LedgerEntry(
        kind=Kind.FEE,
        cause=line.cause,
        amount=ZERO,
        currency=payment.currency,
        cost=ZERO,
        fee=fee,
        tld=line.tld,
        payment=payment,
        line=line,
        source_id=balance_transaction_id[:255],
        occurred_at=occurred_at,
        note=note[:255],
    )
    try:
        with transaction.atomic():
            entry.save()
            ledger_month_totals_add([entry], rate=payment.rate)
    except IntegrityError:
        logger.info("ledger: the fee of %s (payment %s) was booked already", balance_transaction_id, payment.pk)
    return LedgerEntry.objects.get(kind=Kind.FEE, source_id=balance_transaction_id[:255], line=line)


def payment_refunded_total(payment: Payment) -> Decimal:
    """What was refunded of the payment so far (refunds less refunds that failed), as a positive amount."""
    total = payment.ledger_entries.filter(kind=Kind.REFUND).aggregate(total=Sum("amount"))["total"]
    return ZERO - _cents(total)


# --- Reading ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LedgerFigures:
    """The ledger's sums for one currency and one group (a month, a TLD, a cause, or all of them)."""

    currency: str
    month: dt.date | None
    tld: str | None
    cause: str | None
    captured: Decimal  # money received (captures, collections)
    refunded: Decimal  # money given back by refunds (positive)
    disputed: Decimal  # money lost to disputes: withdrawn less reinstated (positive)
    written_off: Decimal  # prices of registered lines never paid for (no money moved)
    cost: Decimal  # what the lines captured or written off cost us
    unknown_cost: int  # captures and write-offs booked without a cost
    entries: int
    # The tax in the money received and given back (collected for the state: never revenue).
    tax_captured: Decimal = ZERO
    tax_refunded: Decimal = ZERO
    tax_disputed: Decimal = ZERO
    # With `per_rate`: the payments' rate (units of `currency` per store unit; None: not known).
    rate: Decimal | None = None
    # What the payment service kept of the money moved (its fees on captures, less any it gave back): not revenue.
    fees: Decimal = ZERO

    @property
    def cause_label(self) -> str:
        return str(SaleCause(self.cause).label) if self.cause in SaleCause.values else (self.cause or "")

    @property
    def net(self) -> Decimal:
        """What the payment service holds for us: captured less refunded less lost to disputes."""
        return self.captured - self.refunded - self.disputed

    @property
    def tax(self) -> Decimal:
        """Tax held for the state: collected less given back."""
        return self.tax_captured - self.tax_refunded - self.tax_disputed

    @property
    def revenue(self) -> Decimal:
        """What the store earned: the money it holds less the tax in it."""
        return self.net - self.tax

    @property
    def margin(self) -> Decimal:
        return self.revenue - self.cost

    @property
    def net_margin(self) -> Decimal:
        """What the store made after the payment service's fees too: margin less fees."""
        return self.margin - self.fees


def ledger_entries(*, start: dt.datetime | None = None, end: dt.datetime | None = None) -> QuerySet[LedgerEntry]:
    """The entries whose movement happened in [start, end)."""
    entries = LedgerEntry.objects.all()
    if start is not None:
        entries = entries.filter(occurred_at__gte=start)
    if end is not None:
        entries = entries.filter(occurred_at__lt=end)
    return entries


def _cents(total: Decimal | None) -> Decimal:
    # SQLite's sums come back with a long tail of zeros; every amount here has two decimals.
    return (total or ZERO).quantize(ZERO)


def _figures_of(
    row: dict[str, Any], *, month: dt.date | None, rate: Decimal | None, unknown_cost: int, entries: int
) -> LedgerFigures:
    """One grouped row of sums (`<name>_sum`, from the entries or from the kept totals) as figures, signed as shown."""
    return LedgerFigures(
        currency=row["currency"],
        month=month,
        tld=row.get("tld"),
        cause=row.get("cause"),
        captured=_cents(row["captured_sum"]),
        refunded=ZERO - _cents(row["refunded_sum"]),
        disputed=ZERO - _cents(row["disputed_sum"]),
        written_off=_cents(row["written_off_sum"]),
        cost=_cents(row["cost_sum"]),
        unknown_cost=unknown_cost,
        entries=entries,
        tax_captured=_cents(row["tax_captured_sum"]),
        tax_refunded=ZERO - _cents(row["tax_refunded_sum"]),
        tax_disputed=ZERO - _cents(row["tax_disputed_sum"]),
        rate=rate,
        fees=_cents(row["fees_sum"]),
    )


def ledger_figures(
    *,
    start: dt.datetime | None = None,
    end: dt.datetime | None = None,
    group_by: Sequence[str] = ("month",),
    per_rate: bool = False,
) -> list[LedgerFigures]:
    """The ledger's figures in [start, end), per currency and per `group_by` (any of "month", "tld", "cause";
    empty: one row per currency). Months are calendar months in the site's time zone (TIME_ZONE), newest first."""
    unknown = set(group_by) - set(GROUPINGS)
    if unknown:
        raise ValueError(f"cannot group the ledger by {sorted(unknown)}")
    entries = ledger_entries(start=start, end=end)
    if "month" in group_by:
        entries = entries.annotate(month=TruncMonth("occurred_at"))
    keys = ["currency", *(["payment__rate"] if per_rate else []), *group_by]
    rows = (
        entries.values(*keys)
        .annotate(
            captured_sum=Sum("amount", filter=Q(kind=Kind.CAPTURE)),
            refunded_sum=Sum("amount", filter=Q(kind=Kind.REFUND)),
            disputed_sum=Sum("amount", filter=Q(kind__in=DISPUTE_KINDS)),
            written_off_sum=Sum("written_off"),
            cost_sum=Sum("cost"),
            unknown_cost_count=Count("pk", filter=Q(kind__in=(Kind.CAPTURE, Kind.WRITE_OFF), cost__isnull=True)),
            entry_count=Count("pk"),
            tax_captured_sum=Sum("tax", filter=Q(kind=Kind.CAPTURE)),
            tax_refunded_sum=Sum("tax", filter=Q(kind=Kind.REFUND)),
            tax_disputed_sum=Sum("tax", filter=Q(kind__in=DISPUTE_KINDS)),
            fees_sum=Sum("fee", filter=Q(kind=Kind.FEE)),
        )
        .order_by(*[f"-{key}" if key == "month" else key for key in keys])
    )
    return [
        _figures_of(
            row,
            month=row["month"].date() if "month" in row else None,
            rate=row.get("payment__rate"),
            unknown_cost=row["unknown_cost_count"],
            entries=row["entry_count"],
        )
        for row in rows
    ]


# --- Kept totals per month ----------------------------------------------------------------------------------------

_TOTALS = (
    "captured",
    "refunded",
    "disputed",
    "written_off",
    "cost",
    "unknown_cost",
    "entries",
    "tax_captured",
    "tax_refunded",
    "tax_disputed",
    "fees",
)
_TotalKey = tuple[dt.date, str, Decimal, str, str]


def ledger_month_of(moment: dt.datetime) -> dt.date:
    """The first day of the calendar month `moment` is in, in the site's time zone (as the report cuts months)."""
    return moment.astimezone(zoneinfo.ZoneInfo(settings.TIME_ZONE)).date().replace(day=1)


def _month_sums(entries: Iterable[LedgerEntry], rate: Decimal | None) -> dict[_TotalKey, dict[str, Decimal | int]]:
    sums: dict[_TotalKey, dict[str, Decimal | int]] = {}
    for entry in entries:
        key = (ledger_month_of(entry.occurred_at), entry.currency, rate or ZERO, entry.tld, entry.cause)
        total = sums.setdefault(key, dict.fromkeys(_TOTALS, ZERO) | {"unknown_cost": 0, "entries": 0})
        kind = Kind(entry.kind)
        column = {Kind.CAPTURE: "captured", Kind.REFUND: "refunded"}.get(kind, "disputed")
        if kind == Kind.FEE:
            total["fees"] += entry.fee
        elif kind != Kind.WRITE_OFF:
            total[column] += entry.amount
            total[f"tax_{column}"] += entry.tax
        total["written_off"] += entry.written_off
        total["cost"] += entry.cost or ZERO
        total["unknown_cost"] += int(kind in (Kind.CAPTURE, Kind.WRITE_OFF) and entry.cost is None)
        total["entries"] += 1
    return sums


def ledger_month_totals_add(entries: Sequence[LedgerEntry], *, rate: Decimal | None) -> None:
    """Add entries just booked (of one payment, whose `rate` they convert at) to the kept totals. Called inside the
    transaction that writes them: a row is created once (a concurrent first booking of the month waits on the unique
    key) and added to with one UPDATE of its own values, so concurrent bookings never lose a sum."""
    for (month, currency, kept_rate, tld, cause), sums in _month_sums(entries, rate).items():
        row, _ = LedgerMonthTotal.objects.get_or_create(
            month=month, currency=currency, rate=kept_rate, tld=tld, cause=cause
        )
        LedgerMonthTotal.objects.filter(pk=row.pk).update(**{name: F(name) + value for name, value in sums.items()})


@transaction.atomic
def ledger_month_totals_rebuild() -> int:
    """Write the kept totals again from the entries (after TIME_ZONE changed, or to repair them); the rows written."""
    LedgerMonthTotal.objects.all().delete()
    sums: dict[_TotalKey, dict[str, Decimal | int]] = {}
    entries = LedgerEntry.objects.select_related("payment").order_by("payment_id", "pk")
    for entry in entries.iterator(chunk_size=2000):
        for key, part in _month_sums([entry], entry.payment.rate).items():
            total = sums.setdefault(key, dict.fromkeys(_TOTALS, ZERO) | {"unknown_cost": 0, "entries": 0})
            for name, value in part.items():
                total[name] += value
    rows = [
        LedgerMonthTotal(month=month, currency=currency, rate=rate, tld=tld, cause=cause, **values)
        for (month, currency, rate, tld, cause), values in sums.items()
    ]
    LedgerMonthTotal.objects.bulk_create(rows, batch_size=1000)
    return len(rows)


def ledger_month_figures(
    *, start: dt.date | None = None, end: dt.date | None = None, group_by: Sequence[str] = ("month",), per_rate=False
) -> list[LedgerFigures]:
    """What `ledger_figures` returns for the months [start, end) (first days; None: unbounded), read from the kept
    totals: a few rows per month whatever the number of entries."""
    unknown = set(group_by) - set(GROUPINGS)
    if unknown:
        raise ValueError(f"cannot group the ledger by {sorted(unknown)}")
    totals = LedgerMonthTotal.objects.all()
    if start is not None:
        totals = totals.filter(month__gte=start)
    if end is not None:
        totals = totals.filter(month__lt=end)
    keys = ["currency", *(["rate"] if per_rate else []), *group_by]
    rows = (
        totals.values(*keys)
        .annotate(**{f"{name}_sum": Sum(name) for name in _TOTALS})
        .filter(entries_sum__gt=0)
        .order_by(*[f"-{key}" if key == "month" else key for key in keys])
    )
    return [
        _figures_of(
            row,
            month=row.get("month"),
            rate=(row["rate"] or None) if per_rate else None,
            unknown_cost=row["unknown_cost_sum"],
            entries=row["entries_sum"],
        )
        for row in rows
    ]


def ledger_month_totals_differences() -> list[tuple[LedgerFigures | None, LedgerFigures | None]]:
    """The (kept, from the entries) pairs that disagree, per month, currency, rate, TLD and cause: empty when the
    kept totals equal the rows."""
    group = ("month", "tld", "cause")

    def key(figure: LedgerFigures) -> tuple[object, ...]:
        return (figure.month, figure.currency, figure.rate or ZERO, figure.tld, figure.cause)

    kept = {key(f): f for f in ledger_month_figures(group_by=group, per_rate=True)}
    counted = {
        key(f): dataclasses.replace(f, rate=f.rate or None) for f in ledger_figures(group_by=group, per_rate=True)
    }
    return [
        (kept.get(k), counted.get(k))
        for k in sorted(set(kept) | set(counted), key=str)
        if kept.get(k) != counted.get(k)
    ]
