"""The tax report: per period (a month) and per customer country, the sales and the tax collected and refunded, from
the ledger (each entry keeps the tax in its amount). Reverse-charged sales are listed with their 0 tax: a VAT return
declares them too. Shown in the admin (Ledger entries → Tax report) with its CSV."""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Q, Sum

from billing.ledger.books import ZERO, ledger_entries
from billing.ledger.report import month_bounds
from billing.models import LedgerEntry
from pricing.tax import percent

Kind = LedgerEntry.Kind
COLUMNS = (
    "month",
    "country",
    "currency",
    "tax",
    "rate",
    "reverse_charge",
    "sales",
    "tax_collected",
    "tax_refunded",
    "tax_net",
)


@dataclass(frozen=True)
class TaxRow:
    country: str
    currency: str
    label: str
    rate: Decimal
    reverse_charge: bool
    sales: Decimal  # before tax: captured less refunded
    collected: Decimal
    refunded: Decimal  # positive

    @property
    def net(self) -> Decimal:
        return self.collected - self.refunded


@dataclass(frozen=True)
class TaxReport:
    month: dt.date
    rows: list[TaxRow]

    @property
    def label(self) -> str:
        return f"{self.month:%B %Y}"


def _cents(value: Decimal | None) -> Decimal:
    return (value or ZERO).quantize(ZERO)


def tax_report(*, month: dt.date) -> TaxReport:
    start, end = month_bounds(month)
    money = Q(kind__in=(Kind.CAPTURE, Kind.REFUND))
    rows = (
        ledger_entries(start=start, end=end)
        .filter(money)
        .values("payment__tax_country", "currency", "line__tax_label", "line__tax_rate", "line__reverse_charge")
        .annotate(
            amount_sum=Sum("amount"),
            tax_sum=Sum("tax"),
            collected=Sum("tax", filter=Q(kind=Kind.CAPTURE)),
            refunded=Sum("tax", filter=Q(kind=Kind.REFUND)),
        )
        .order_by("payment__tax_country", "currency", "line__tax_label", "line__tax_rate", "line__reverse_charge")
    )
    return TaxReport(
        month=month.replace(day=1),
        rows=[
            TaxRow(
                country=row["payment__tax_country"] or "—",
                currency=row["currency"],
                label=row["line__tax_label"] or "",
                rate=percent(row["line__tax_rate"] or Decimal(0)),
                reverse_charge=row["line__reverse_charge"],
                sales=_cents(row["amount_sum"]) - _cents(row["tax_sum"]),
                collected=_cents(row["collected"]),
                refunded=ZERO - _cents(row["refunded"]),
            )
            for row in rows
        ],
    )


def tax_report_csv(report: TaxReport) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for row in report.rows:
        writer.writerow(
            [
                f"{report.month:%Y-%m}",
                row.country,
                row.currency,
                row.label,
                str(row.rate),
                "yes" if row.reverse_charge else "no",
                str(row.sales),
                str(row.collected),
                str(row.refunded),
                str(row.net),
            ]
        )
    return out.getvalue()
