"""The revenue report (tax is kept apart: `net` is what the payment service holds, `revenue` that less its tax):
revenue, refunds, disputes, write-offs, cost and margin for a month, and the payment service's fees and the net margin
left after them (billing.payment_fees books each fee as Stripe took it), per TLD and cause (kind of sale), and month
by month, computed from the ledger only (billing.ledger.books, its totals kept per month). Shown in the admin (Payments
→ Revenue report) and printed by `manage.py revenue_report --month YYYY-MM [--csv]`."""

from __future__ import annotations

import csv
import datetime as dt
import io
import zoneinfo
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings

from billing.ledger.books import LedgerFigures, ledger_month_figures
from billing.models import SaleCause
from pricing.currencies import to_store_currency
from pricing.money import Money

COLUMNS = (
    "currency",
    "tld",
    "cause",
    "captured",
    "refunded",
    "disputed",
    "net",
    "tax",
    "revenue",
    "written_off",
    "cost",
    "margin",
    "unknown_cost",
    # Added after the others, so a sheet that reads the columns by position keeps working.
    "fees",
    "net_margin",
)
CAUSES = dict(SaleCause.choices)


@dataclass(frozen=True)
class RevenueReport:
    month: dt.date  # the first day of the month reported
    totals: list[LedgerFigures]  # one per currency
    rows: list[LedgerFigures]  # per currency, TLD and cause
    months: list[LedgerFigures]  # every month, newest first, per currency
    # The month's total in the store's currency, each payment converted at its own rate (None: nothing moved), and
    # the currencies of payments with no known rate (left out of it).
    converted: LedgerFigures | None = None
    unconverted: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.month:%B %Y}"


def month_of(text: str) -> dt.date:
    """`YYYY-MM` as the first day of that month. Raises ValueError for anything else."""
    return dt.datetime.strptime(text, "%Y-%m").date().replace(day=1)


def month_bounds(month: dt.date) -> tuple[dt.datetime, dt.datetime]:
    """The month as [start, end) in the site's time zone (TIME_ZONE), the zone the ledger's months are cut in."""
    zone = zoneinfo.ZoneInfo(settings.TIME_ZONE)
    start = dt.datetime(month.year, month.month, 1, tzinfo=zone)
    following = dt.datetime(month.year + month.month // 12, month.month % 12 + 1, 1, tzinfo=zone)
    return start, following


def revenue_report(*, month: dt.date) -> RevenueReport:
    """Read from the ledger's kept totals per month (billing.ledger.books.ledger_month_figures): the month's few rows
    and one row per month and currency, however many entries the ledger holds."""
    first = month.replace(day=1)
    end = month_bounds(first)[1].date()
    converted, unconverted = in_store_currency(ledger_month_figures(start=first, end=end, group_by=(), per_rate=True))
    return RevenueReport(
        month=first,
        totals=ledger_month_figures(start=first, end=end, group_by=()),
        rows=ledger_month_figures(start=first, end=end, group_by=("tld", "cause")),
        months=ledger_month_figures(group_by=("month",)),
        converted=converted,
        unconverted=unconverted,
    )


def in_store_currency(figures: list[LedgerFigures]) -> tuple[LedgerFigures | None, tuple[str, ...]]:
    """Figures per currency and rate (`ledger_month_figures(per_rate=True)`) summed in the store's currency, each group
    converted at its payments' own rate (not today's); and the currencies left out for want of a rate."""
    store = settings.STORE_CURRENCY
    parts = [figure for figure in figures if figure.currency == store or figure.rate]
    unconverted = tuple(sorted({figure.currency for figure in figures if figure not in parts}))
    if not parts:
        return None, unconverted

    def total(field: str) -> Decimal:
        return sum(
            (
                to_store_currency(Money(getattr(part, field), part.currency), rate=part.rate or Decimal(1)).amount
                for part in parts
            ),
            Decimal(0),
        )

    converted = LedgerFigures(
        currency=store,
        month=None,
        tld=None,
        cause=None,
        captured=total("captured"),
        refunded=total("refunded"),
        disputed=total("disputed"),
        written_off=total("written_off"),
        cost=total("cost"),
        unknown_cost=sum(part.unknown_cost for part in parts),
        entries=sum(part.entries for part in parts),
        # The tax in that money, converted the same way: collected for the state, so never revenue or margin.
        tax_captured=total("tax_captured"),
        tax_refunded=total("tax_refunded"),
        tax_disputed=total("tax_disputed"),
        fees=total("fees"),
    )
    return converted, unconverted


def revenue_report_csv(report: RevenueReport) -> str:
    """The month's rows and, per currency, a total row (TLD "TOTAL"), as CSV with a header."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["month", *COLUMNS])
    for row in [*report.rows, *report.totals]:
        writer.writerow([f"{report.month:%Y-%m}", *_values(row)])
    if report.converted is not None:
        # The store's currency, every payment converted at its own rate: TLD "CONVERTED".
        writer.writerow([f"{report.month:%Y-%m}", *_values(report.converted, tld="CONVERTED")])
    return out.getvalue()


def revenue_report_text(report: RevenueReport) -> str:
    """The month as a plain table for a terminal."""
    header = [
        "TLD",
        "kind",
        "captured",
        "refunded",
        "disputed",
        "net",
        "tax",
        "revenue",
        "written off",
        "cost",
        "margin",
        "fees",
        "net margin",
    ]
    lines = [f"Revenue report, {report.label} (from the ledger; amounts in each currency)"]
    if not report.totals:
        return lines[0] + "\nNo money moved this month.\n"
    for total in report.totals:
        rows = [row for row in report.rows if row.currency == total.currency]
        table = [header] + [_cells(row) for row in rows] + [_cells(total, tld="TOTAL", cause="")]
        widths = [max(len(r[i]) for r in table) for i in range(len(header))]
        lines.append("")
        lines.append(total.currency)
        for cells in table:
            lines.append(
                "  ".join(
                    cell.ljust(w) if i < 2 else cell.rjust(w)
                    for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
                )
            )
        if total.unknown_cost:
            lines.append(f"({total.unknown_cost} entr{'y' if total.unknown_cost == 1 else 'ies'} without a known cost)")
    if report.unconverted or any(total.currency != settings.STORE_CURRENCY for total in report.totals):
        lines.append("")
        lines.append(_converted_line(report))
    return "\n".join(lines) + "\n"


def _converted_line(report: RevenueReport) -> str:
    """The month in the store's currency, each payment at its own rate."""
    text = f"In {settings.STORE_CURRENCY} (each payment at its own rate): "
    figures = report.converted
    if figures is not None:
        text += (
            f"captured {figures.captured}, refunded {figures.refunded}, net {figures.net}, margin {figures.margin}, "
            f"fees {figures.fees}, net margin {figures.net_margin}"
        )
    if report.unconverted:
        text += f" (not converted, no rate kept: {', '.join(report.unconverted)})"
    return text


def _values(row: LedgerFigures, *, tld: str = "TOTAL") -> list[str]:
    return [
        row.currency,
        row.tld if row.tld is not None else tld,
        row.cause or "",
        str(row.captured),
        str(row.refunded),
        str(row.disputed),
        str(row.net),
        str(row.tax),
        str(row.revenue),
        str(row.written_off),
        str(row.cost),
        str(row.margin),
        str(row.unknown_cost),
        str(row.fees),
        str(row.net_margin),
    ]


def _cells(row: LedgerFigures, *, tld: str | None = None, cause: str | None = None) -> list[str]:
    shown_tld = tld if tld is not None else f".{row.tld}" if row.tld else "(none)"
    shown_cause = cause if cause is not None else str(CAUSES.get(row.cause or "", row.cause or ""))
    amounts = (
        row.captured,
        row.refunded,
        row.disputed,
        row.net,
        row.tax,
        row.revenue,
        row.written_off,
        row.cost,
        row.margin,
        row.fees,
        row.net_margin,
    )
    return [shown_tld, shown_cause, *(str(amount) for amount in amounts)]
