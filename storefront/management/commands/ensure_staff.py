"""`manage.py ensure_staff`: a staff login for the admin, printed once, for demos and first deployments."""

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Creates (or resets) a staff superuser and prints its login."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--email", default="staff@example.com")

    def handle(self, *args: Any, email: str, **options: Any) -> None:
        # A fresh random password each time: nothing guessable is ever left behind on a machine.
        password = secrets.token_urlsafe(12)
        user, _ = get_user_model().objects.get_or_create(username=email, defaults={"email": email})
        user.email = email
        user.is_staff = True
        user.is_superuser = True
        user.set_password(password)
        user.save()
        self.stdout.write(self.style.SUCCESS(f"Staff login for /admin/: {email} / {password}"))
