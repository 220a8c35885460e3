"""The provider's control panel, reduced to what the storefront hands off to: `{panel_url}/auto-login?token=`."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from sandbox.models import AutoLoginToken, hash_secret


@never_cache
@require_GET
def auto_login(request: HttpRequest, environment: str) -> HttpResponse:
    token = request.GET.get("token", "")
    now = timezone.now()
    found = (
        AutoLoginToken.objects.select_related("customer")
        .filter(token_hash=hash_secret(token), customer__environment=environment)
        .first()
        if token
        else None
    )
    # Consumed by one conditional UPDATE, so the same link opened twice at once still signs in only once.
    accepted = (
        found is not None
        and AutoLoginToken.objects.filter(pk=found.pk, used_at__isnull=True, expires_at__gt=now).update(used_at=now)
        == 1
    )
    if accepted:
        context = {"signed_in": True, "email": found.customer.email, "name": found.customer.name}
        status = 200
    else:
        if found is None:
            reason = "This sign-in link is not valid."
        elif found.used_at is not None:
            reason = "This sign-in link has already been used. Sign-in links work once."
        else:
            reason = "This sign-in link has expired. Sign-in links last five minutes."
        context = {"signed_in": False, "reason": reason}
        status = 403
    response = render(request, "sandbox/panel.html", context, status=status)
    response["Referrer-Policy"] = "no-referrer"  # the token is in the URL
    return response
