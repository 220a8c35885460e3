"""Deployment checks of our own (`manage.py check --deploy`), beside Django's."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Tags, register

# Caches that live inside one process: with several gunicorn workers each would count limits and hold one-time
# claims on its own.
_PER_PROCESS_CACHES = (
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
)


@register(Tags.caches, deploy=True)
def shared_cache(app_configs: Any, **kwargs: Any) -> list[Error]:
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
def real_email(app_configs: Any, **kwargs: Any) -> list[Error]:
    if settings.DEBUG or settings.EMAIL_BACKEND != "django.core.mail.backends.dummy.EmailBackend":
        return []
    return [
        Error(
            "EMAIL_URL discards every email: customers would get no password resets or confirmations.",
            hint="Set EMAIL_URL to your mail service, e.g. smtp+tls://user:pass@smtp.example.com:587.",
            id="storefront.E002",
        )
    ]
