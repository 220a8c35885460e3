"""`manage.py sync_prices`: refresh the cost table from the provider now. Exits non-zero when the sync failed."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from pricing.sync import prices_sync


class Command(BaseCommand):
    help = "Fetch the provider's cost prices into the cost table (a failure keeps the last table)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--accept-drops",
            action="store_true",
            help="Accept an answer that leaves out more than half of the TLDs sold today.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        result = prices_sync(accept_drops=options["accept_drops"])
        if not result.ok:
            raise CommandError(result.message)
        self.stdout.write(self.style.SUCCESS(result.message))
        for warning in result.warnings:
            self.stdout.write(self.style.WARNING(warning))
