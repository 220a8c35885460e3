"""What every page's layout needs: the brand, the support contact, whether the provider is a sandbox."""

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.urls import get_script_prefix
from django.utils.translation import get_language

from storefront.background.mailbox import mailbox_open_to
from storefront.gateway import key_environment
from storefront.site.brand import brand_context


def storefront(request: HttpRequest) -> dict[str, Any]:
    context = {
        # A test storefront must never be mistaken for a live one.
        "provider_is_sandbox": settings.RESELLER_SANDBOX or key_environment(settings.RESELLER_API_KEY) == "test",
        "provider_is_builtin_sandbox": settings.RESELLER_SANDBOX,
        **brand_context(),
    }
    # Everything the layout's cached parts ({% cache %} in base.html) are drawn from besides what each names
    # itself: the language, the address prefix their links start with, the brand and the banner.
    context["layout_key"] = repr((get_language(), get_script_prefix(), sorted(context.items())))
    context["mailbox_enabled"] = mailbox_open_to(request)
    # The footer's key: a visitor's address ("" when not signed in, where user.email would raise inside the engine).
    user = getattr(request, "user", None)
    context["user_email"] = user.email if user is not None and user.is_authenticated else ""
    return context
