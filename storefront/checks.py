"""System checks of our own: configuration that would otherwise fail quietly in production (`check --deploy`)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, Warning, register

from storefront.gateway import key_environment

# Caches that live inside one process: with several gunicorn workers each would count limits and hold one-time
# claims on its own.
_PER_PROCESS_CACHES = (
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
)


@register(Tags.caches, deploy=True)
def shared_cache(app_configs: Any, **kwargs: Any) -> list[CheckMessage]:
    backend = settings.CACHES["default"]["BACKEND"]
    if settings.DEBUG or backend not in _PER_PROCESS_CACHES:
        return []
    return [
        Error(
            "The default cache lives inside one process, so rate limits and lockouts count per worker.",
            hint="Leave CACHE_URL unset (database cache) or point it at Redis (rediscache://host:6379/0).",
            id="storefront.E001",
        )
    ]


@register(deploy=True)
def real_email(app_configs: Any, **kwargs: Any) -> list[CheckMessage]:
    if settings.DEBUG or settings.EMAIL_BACKEND != "django.core.mail.backends.dummy.EmailBackend":
        return []
    return [
        Error(
            "EMAIL_URL discards every email: customers would get no password resets or confirmations.",
            hint="Set EMAIL_URL to your mail service, e.g. smtp+tls://user:pass@smtp.example.com:587.",
            id="storefront.E002",
        )
    ]


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


@register("storefront")
def brand_color(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """STORE_PRIMARY_COLOR is link text on white and the background of white button text: it must read."""
    from storefront.site.brand import HEX_COLOR, MIN_CONTRAST, contrast_with_white

    color = settings.STORE_PRIMARY_COLOR.strip()
    if not color:
        return []
    if not HEX_COLOR.match(color):
        return [
            Error(
                f"STORE_PRIMARY_COLOR must be a colour written #rrggbb, not {color!r}.",
                hint="For example STORE_PRIMARY_COLOR=#2446c7 (leave it empty for the default blue).",
                id="storefront.E003",
            )
        ]
    ratio = contrast_with_white(color)
    if ratio < MIN_CONTRAST:
        return [
            Error(
                f"STORE_PRIMARY_COLOR {color} has a contrast of {ratio:.2f}:1 against white; links and button "
                f"labels need at least {MIN_CONTRAST}:1 to be readable (WCAG AA).",
                hint="Choose a darker shade of the colour.",
                id="storefront.E004",
            )
        ]
    return []


@register("storefront", deploy=True)
def alerts_reach_someone(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """The worker mails staff alerts (payments needing attention, failed auto-renewals, refused emails) to ADMINS: with
    nobody there they reach only whoever opens the admin's dashboard."""
    if settings.DEBUG or settings.ADMINS:
        return []
    return [
        Warning(
            "ADMINS is empty: the worker's alert emails (payments, registrations and auto-renewals needing "
            "attention) go to nobody.",
            hint="Set ADMINS to the staff who act on them, e.g. ADMINS='Ops <ops@example.com>,noc@example.com'.",
            id="storefront.W002",
        )
    ]
