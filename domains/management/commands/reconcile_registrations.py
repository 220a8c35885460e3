"""Settle registrations whose provider answer was lost, from each customer's order listing.

Safe to run at any time (from a scheduler, say every few minutes): it only touches lines marked "could not
confirm" and pending lines abandoned mid-call, and a line absent from the listing is declared not registered
only after a grace period.
"""

from django.core.management.base import BaseCommand

from domains.checkout.registrations import registration_reconcile, registrations_to_reconcile
from domains.models import Registration


class Command(BaseCommand):
    help = "Re-check unconfirmed registrations against the provider's order listing."

    def handle(self, *args, **options) -> None:
        counts = {Registration.Status.REGISTERED: 0, Registration.Status.FAILED: 0, "unsettled": 0}
        for registration in registrations_to_reconcile():
            result = registration_reconcile(registration=registration)
            key = result.status if result.status in counts else "unsettled"
            counts[key] += 1
            self.stdout.write(f"{result.domain_name}: {result.get_status_display()}")
        self.stdout.write(
            self.style.SUCCESS(
                f"{counts[Registration.Status.REGISTERED]} registered, "
                f"{counts[Registration.Status.FAILED]} not registered, {counts['unsettled']} still unconfirmed."
            )
        )
