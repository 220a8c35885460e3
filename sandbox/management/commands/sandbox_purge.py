"""Purge old sandbox data, as the provider purges its own sandbox every 24 hours (environments.mdx).

Optional and never run by default: schedule it (cron, a PaaS scheduler) to imitate the provider.
"""

from __future__ import annotations

import datetime as dt

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from sandbox.models import LIVE, TEST, Customer, DnsRecord, DomainOrder

ENVIRONMENTS = {"test": [TEST], "live": [LIVE], "all": [TEST, LIVE]}


def purge(*, older_than: dt.timedelta, environments: list[str], dry_run: bool = False) -> dict[str, int]:
    """Delete customers and orders (with their DNS records) created before now - older_than; return the counts.

    A customer goes with all of its orders, and an old order goes even when its customer is kept."""
    cutoff = timezone.now() - older_than
    customers = Customer.objects.filter(environment__in=environments, created_at__lt=cutoff)
    orders = DomainOrder.objects.filter(environment__in=environments).filter(
        Q(created_at__lt=cutoff) | Q(customer__in=customers)
    )
    with transaction.atomic():
        counts = {
            "customers": customers.count(),
            "orders": orders.count(),
            "dns_records": DnsRecord.objects.filter(order__in=orders).count(),
        }
        if not dry_run:
            orders.delete()
            customers.delete()
    return counts


class Command(BaseCommand):
    help = "Delete sandbox customers, orders and DNS records older than a day (like the provider's sandbox)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--hours", type=float, default=24.0, help="Age of what is deleted (default 24).")
        parser.add_argument(
            "--environment", choices=sorted(ENVIRONMENTS), default="test", help="Which data (default: test only)."
        )
        parser.add_argument("--dry-run", action="store_true", help="Count, delete nothing.")

    def handle(self, *args, hours: float, environment: str, dry_run: bool, **options) -> None:
        if hours < 0:
            raise CommandError("--hours cannot be negative.")
        counts = purge(older_than=dt.timedelta(hours=hours), environments=ENVIRONMENTS[environment], dry_run=dry_run)
        verb = "Would purge" if dry_run else "Purged"
        self.stdout.write(
            f"{verb} {counts['customers']} customers, {counts['orders']} orders and {counts['dns_records']} DNS "
            f"records older than {hours:g} hours ({environment})."
        )
