"""`manage.py sendtesterror`: one test error through every configured channel (mail to ADMINS, the error tracker),
as `sendtestemail` does for email, so an operator sees it arrive after a deploy (docs/operations.md "Errors")."""

from typing import Any

import sentry_sdk
from django.conf import settings
from django.core.mail import mail_admins
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from storefront.requests import request_ids


class SendTestError(Exception):
    """The test error: its name says it is one, wherever it shows up."""


class Command(BaseCommand):
    help = "Sends one test error to ADMINS and to the error tracker (SENTRY_DSN), to see that errors reach a person."

    def handle(self, *args: Any, **options: Any) -> None:
        reference = request_ids.generate()
        with request_ids.bound(reference):
            try:
                raise SendTestError(f"Test error from manage.py sendtesterror at {timezone.now():%Y-%m-%d %H:%M:%S %Z}")
            except SendTestError as err:
                error = err
            sent = self._mail(error, reference) + self._track(error)
        if not sent:
            raise CommandError("No channel is configured: set ADMINS and/or SENTRY_DSN (docs/operations.md).")
        self.stdout.write(self.style.SUCCESS(f"Test error sent to {sent} channel(s), reference {reference}."))

    def _mail(self, error: SendTestError, reference: str) -> int:
        if not settings.ADMINS:
            self.stdout.write(self.style.WARNING("ADMINS is empty: no error mail is sent (set ADMINS)."))
            return 0
        mail_admins(
            "Test error (manage.py sendtesterror)",
            f"{error}\n\nRequest id: {reference}\n\nErrors of the store's pages and tasks are mailed like this one "
            "(at most 5 in 10 minutes).",
        )
        self.stdout.write(f"Mailed to ADMINS: {', '.join(address for _name, address in settings.ADMINS)}")
        return 1

    def _track(self, error: SendTestError) -> int:
        if not settings.SENTRY_DSN:
            self.stdout.write(self.style.WARNING("SENTRY_DSN is not set: nothing is sent to an error tracker."))
            return 0
        event_id = sentry_sdk.capture_exception(error)
        # Events leave from a thread of the SDK's own: wait for it before the command exits.
        sentry_sdk.flush(timeout=10)
        if event_id is None:
            raise CommandError("The error tracker did not take the event (is SENTRY_DSN valid?).")
        self.stdout.write(f"Sent to the error tracker: event {event_id}")
        return 1
