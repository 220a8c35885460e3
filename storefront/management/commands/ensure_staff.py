"""`manage.py ensure_staff`: a staff login for the admin, for demos and first deployments.

The password is printed once, when the login is created (or on `--reset`): printing it on every run (bin/run
calls this each time) would leave a working admin password in every terminal scroll-back and log.
"""

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Creates a staff superuser and prints its password once; --reset gives an existing one a new password."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--email", default="staff@example.com")
        parser.add_argument("--reset", action="store_true", help="Set and print a new password for an existing login.")

    def handle(self, *args: Any, email: str, reset: bool, **options: Any) -> None:
        user, created = get_user_model().objects.get_or_create(username=email, defaults={"email": email})
        if not created and not reset:
            self.stdout.write(
                f"Staff login for /admin/: {email} (its password was printed when it was created; "
                "`manage.py ensure_staff --reset` sets a new one)"
            )
            return
        # A fresh random password: nothing guessable is ever left behind on a machine.
        password = secrets.token_urlsafe(12)
        user.email = email
        user.is_staff = True
        user.is_superuser = True
        user.set_password(password)
        user.save()
        self.stdout.write(self.style.SUCCESS(f"Staff login for /admin/: {email} / {password}"))
