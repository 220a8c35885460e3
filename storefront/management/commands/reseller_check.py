"""`manage.py reseller_check`: does the configured key work, which environment is it, how fast is the provider."""

import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from storefront.gateway import GatewayError, gateway, key_environment


class Command(BaseCommand):
    help = "Calls the provider's hello endpoint and MetaSearch: does the key work, its environment, the round trips."

    def handle(self, *args: Any, **options: Any) -> None:
        environment = key_environment(settings.RESELLER_API_KEY)
        if settings.RESELLER_SANDBOX:
            where = f"built-in sandbox at {settings.RESELLER_BASE_URL}"
        else:
            where = settings.RESELLER_BASE_URL
        label = {"test": "sandbox (test) key", "live": "live key"}.get(environment, "key of unknown environment")
        self.stdout.write(f"Provider: {where}")
        self.stdout.write(f"Key: {label}")
        started = time.perf_counter()
        try:
            hello = gateway().hello()
        except GatewayError as err:
            elapsed_ms = (time.perf_counter() - started) * 1000
            said = err.provider_message or err.message
            raise CommandError(f"Not working: {type(err).__name__}: {said} ({elapsed_ms:.0f} ms)") from err
        elapsed_ms = (time.perf_counter() - started) * 1000
        self.stdout.write(
            self.style.SUCCESS(
                f"Key works: provider answered {hello.message!r} at {hello.server_time} in {elapsed_ms:.0f} ms"
            )
        )
        self.stdout.write(f"MetaSearch: {settings.RESELLER_METASEARCH_URL}")
        started = time.perf_counter()
        try:
            gateway().metasearch(search_term="example", autosuggest=False, aisuggest=False)
        except GatewayError as err:
            elapsed_ms = (time.perf_counter() - started) * 1000
            said = err.provider_message or err.message
            raise CommandError(f"MetaSearch not working: {type(err).__name__}: {said} ({elapsed_ms:.0f} ms)") from err
        elapsed_ms = (time.perf_counter() - started) * 1000
        self.stdout.write(self.style.SUCCESS(f"MetaSearch works: answered in {elapsed_ms:.0f} ms"))
