"""Check the ledger's kept totals per month against its entries, or write them again from the entries (--rebuild):
after TIME_ZONE changed (the months are cut in it), or to repair totals a hand-made change left behind."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from billing.ledger.books import ledger_month_totals_differences, ledger_month_totals_rebuild


class Command(BaseCommand):
    help = "Compare the ledger's kept month totals with its entries; --rebuild writes them again from the entries."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rebuild", action="store_true", help="write the totals again from the entries")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["rebuild"]:
            rows = ledger_month_totals_rebuild()
            self.stdout.write(f"{rows} month totals written from the entries.")
            return
        differences = ledger_month_totals_differences()
        for kept, counted in differences:
            group = kept or counted
            assert group is not None
            self.stdout.write(
                f"{group.month:%Y-%m} {group.currency} {group.tld} {group.cause}: kept "
                f"{kept.net if kept else 'nothing'}, entries {counted.net if counted else 'nothing'}"
            )
        if differences:
            raise CommandError(f"{len(differences)} month total(s) differ from the entries: run with --rebuild.")
        self.stdout.write("The month totals equal the entries.")
