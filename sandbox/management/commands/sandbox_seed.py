"""Create the demo partner of the built-in sandbox. Safe to run again: it only adds what is missing."""

import secrets
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from sandbox.models import TEST, ApiKey, CatalogueTld, Partner, ReservedName, hash_secret

DEMO_PARTNER = "Demo Reseller"

# tld: (register, renew, privacy, slashed, free first year, minimum term)
CATALOGUE = {
    "com": ("12.99", "14.99", "4.99", "17.99", False, 1),
    "net": ("13.99", "15.99", "4.99", None, False, 1),
    "org": ("11.99", "13.99", "4.99", None, False, 1),
    "io": ("39.99", "49.99", "0.00", "54.99", False, 1),
    "co": ("24.99", "29.99", "4.99", None, False, 1),
    "dev": ("15.99", "15.99", "0.00", None, False, 1),
    "shop": ("29.99", "29.99", "4.99", "34.99", True, 1),
    "ai": ("79.99", "79.99", "0.00", None, False, 2),
    "app": ("17.99", "17.99", "0.00", None, False, 1),
    "xyz": ("2.99", "12.99", "4.99", "9.99", False, 1),
}
TAKEN = ["example.com", "google.com", "shop.com", "amazon.com", "openai.ai"]
PREMIUM = {"cars.com": "25000.00", "ai.ai": "9999.00", "hotels.com": "15000.00", "best.shop": "1200.00"}


def seed() -> Partner:
    with transaction.atomic():
        partner, _ = Partner.objects.get_or_create(
            name=DEMO_PARTNER, defaults={"test_balance": Decimal("100000.00"), "live_balance": Decimal("0.00")}
        )
        if not ApiKey.objects.filter(key_hash=hash_secret(settings.SANDBOX_DEMO_KEY)).exists():
            ApiKey.issue(partner=partner, environment=TEST, label="demo", plaintext=settings.SANDBOX_DEMO_KEY)
        for position, (tld, row) in enumerate(CATALOGUE.items()):
            register, renew, privacy, slashed, free, min_term = row
            CatalogueTld.objects.get_or_create(
                partner=partner,
                tld=tld,
                defaults={
                    "position": position,
                    "register_price": Decimal(register),
                    "renew_price": Decimal(renew),
                    "privacy_price": Decimal(privacy),
                    "slashed_price": Decimal(slashed) if slashed else None,
                    "free_first_year": free,
                    "min_term": min_term,
                },
            )
        for name in TAKEN:
            ReservedName.objects.get_or_create(partner=partner, domain_name=name, defaults={"kind": "taken"})
        for name, price in PREMIUM.items():
            ReservedName.objects.get_or_create(
                partner=partner, domain_name=name, defaults={"kind": "premium", "premium_price": Decimal(price)}
            )
    return partner


class Command(BaseCommand):
    help = "Create the sandbox's demo partner, its test key, catalogue and reserved names (idempotent)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--admin",
            metavar="USERNAME",
            default="",
            help="Also create (or reset) this superuser for the sandbox's /admin/ and print its login.",
        )

    def handle(self, *args: Any, admin: str, **options: Any) -> None:
        partner = seed()
        self.stdout.write(
            self.style.SUCCESS(
                f"Sandbox partner '{partner.name}' ready: {partner.catalogue.count()} TLDs, "
                f"test key {settings.SANDBOX_DEMO_KEY}."
            )
        )
        if admin:
            # A fresh random password each time: nothing guessable is left behind on the machine.
            password = secrets.token_urlsafe(12)
            user, _ = get_user_model().objects.get_or_create(username=admin)
            user.is_staff = True
            user.is_superuser = True
            user.set_password(password)
            user.save()
            self.stdout.write(self.style.SUCCESS(f"Sandbox admin login for /admin/: {admin} / {password}"))
