"""System checks for configuration that would otherwise fail quietly in production."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Warning, register

from storefront.gateway import key_environment


@register("storefront", deploy=True)
def live_key_without_countries_file(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """A live key signs customers up at the real provider, which checks states against its own list."""
    if key_environment(settings.RESELLER_API_KEY) != "live" or settings.COUNTRIES_FILE:
        return []
    return [
        Warning(
            "A live provider key is configured but COUNTRIES_FILE is not set.",
            hint=(
                "Point COUNTRIES_FILE at the provider's countries-and-states JSON, so signup offers exactly the "
                "states the provider accepts; the built-in list may differ and signups would then be refused."
            ),
            id="storefront.W001",
        )
    ]
