"""What every page's layout needs: the brand, the support contact, whether the provider is a sandbox."""

from typing import Any

from django.conf import settings
from django.http import HttpRequest

from storefront.brand import brand_context
from storefront.gateway import key_environment
from storefront.mailbox import mailbox_open_to


def storefront(request: HttpRequest) -> dict[str, Any]:
    return {
        # A test storefront must never be mistaken for a live one.
        "provider_is_sandbox": settings.RESELLER_SANDBOX or key_environment(settings.RESELLER_API_KEY) == "test",
        "provider_is_builtin_sandbox": settings.RESELLER_SANDBOX,
        "mailbox_enabled": mailbox_open_to(request),
        **brand_context(),
    }
