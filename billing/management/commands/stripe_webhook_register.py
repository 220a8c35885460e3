"""`manage.py stripe_webhook_register`: make sure Stripe sends this store's SITE_URL every event type it handles."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from billing.errors import PaymentError
from billing.payments.webhook_endpoints import store_endpoint_register


class Command(BaseCommand):
    help = "Registers a Stripe webhook endpoint for SITE_URL with every event type the store handles (once)."

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            found = store_endpoint_register()
        except PaymentError as err:
            raise CommandError(f"Stripe could not be asked: {err.detail}") from err
        self.stdout.write(
            f"Stripe webhook endpoint {found.endpoint_id} sends {found.url} every event the store handles."
        )
