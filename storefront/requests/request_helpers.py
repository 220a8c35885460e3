"""Small facts about a request that views across the apps need: who is asking, and how.

They live here, in the app every other app may import, so that no app reaches into another's views.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.http import HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """The request every view gets: django-htmx's middleware (settings.MIDDLEWARE) sets `htmx` on each one.

    Only for the type checker, in views' signatures: at run time the request is Django's own."""

    htmx: HtmxDetails


class AuthenticatedHttpRequest(HtmxHttpRequest):
    """The request of a view behind `login_required`: its user is signed in (for the type checker, as above)."""

    user: User


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR, or the address our trusted proxies saw, from X-Forwarded-For.

    With `TRUSTED_PROXY_COUNT` = N > 0 the last N entries of X-Forwarded-For were added by our own proxies; the
    entry they appended for the client is the N-th from the right. Anything left of it is client-supplied and
    could be forged, so it is never used.
    """
    proxies = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0) or 0)
    remote = request.META.get("REMOTE_ADDR", "") or ""
    if proxies <= 0:
        return remote
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
    if len(forwarded) < proxies:
        return remote
    return forwarded[-proxies]


def is_fragment(request: HttpRequest) -> bool:
    """An htmx request that swaps part of a page (a history restore or a boosted link needs the whole page)."""
    htmx: HtmxDetails | None = getattr(request, "htmx", None)
    if not htmx:
        return False
    return not (htmx.history_restore_request or htmx.boosted)


def safe_next(request: HttpRequest, candidate: str | None) -> str:
    """`candidate` if it is a URL on this site (fit for a redirect after sign-in), else ""."""
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return ""
