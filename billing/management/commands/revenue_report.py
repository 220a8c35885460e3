"""Print one month's revenue report from the ledger: per TLD and kind of sale, and the month's totals per currency."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from billing.ledger.report import month_of, revenue_report, revenue_report_csv, revenue_report_text


class Command(BaseCommand):
    help = "Revenue, refunds, disputes, cost and margin of a month, per TLD and kind, from the ledger."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--month", help="YYYY-MM (default: the current month)")
        parser.add_argument("--csv", action="store_true", help="CSV with a header row, the totals last")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            month = month_of(options["month"]) if options["month"] else timezone.localdate().replace(day=1)
        except ValueError as err:
            raise CommandError(f"--month takes YYYY-MM, not {options['month']!r}") from err
        report = revenue_report(month=month)
        self.stdout.write(revenue_report_csv(report) if options["csv"] else revenue_report_text(report), ending="")
