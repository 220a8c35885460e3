"""Ask Stripe about every payment still waiting and every event not processed, and settle them as the return page and
the webhook do (billing/payments/reconcile.py). The scheduler runs the same every few minutes; safe to run at any
time."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from billing.payments.reconcile import payments_reconcile


class Command(BaseCommand):
    help = "Settle payments still waiting (lost webhooks, closed tabs, dead workers, lapsed holds, unpaid ones)."

    def handle(self, *args: Any, **options: Any) -> None:
        counts = payments_reconcile()
        for name, count in sorted(counts.items()):
            self.stdout.write(f"{name}: {count}")
