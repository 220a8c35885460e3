"""Staff must use two-factor sign-in: without it, the admin sends them to set it up first. The one exception is
`bin/run`'s demo login (STAFF_TWO_FACTOR_EXEMPT, honoured only with DJANGO_DEBUG on)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from allauth.mfa.utils import is_mfa_enabled
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext

from accounts.staff.activity import acting, acting_for_request


class StaffTwoFactorMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if (
            user is not None
            and user.is_authenticated
            and user.is_staff
            and request.path.startswith("/admin/")
            and not _demo_login(user)
            and not is_mfa_enabled(user)
        ):
            messages.warning(request, gettext("Staff accounts need two-factor sign-in. Set it up to open the admin."))
            return redirect("mfa_activate_totp")
        return self.get_response(request)


def _demo_login(user: Any) -> bool:
    """bin/run's printed staff login on a development machine: a demo opens the admin without setting up an
    authenticator first. Never in production, whatever the setting says."""
    exempt = settings.STAFF_TWO_FACTOR_EXEMPT
    return bool(settings.DEBUG and exempt and user.get_username().lower() == exempt.lower())


KNOWN_BROWSER_COOKIE = "known_browser"
KNOWN_BROWSER_SALT = "accounts.known-browser"
KNOWN_BROWSER_MAX_AGE = 400 * 24 * 3600  # browsers cap cookies at 400 days


def known_browser_users(request: HttpRequest) -> set[str]:
    """The accounts that have signed in from this browser before (a signed cookie of user ids)."""
    value = request.get_signed_cookie(KNOWN_BROWSER_COOKIE, default="", salt=KNOWN_BROWSER_SALT) or ""
    return {part for part in value.split(",") if part}


class KnownBrowserMiddleware:
    """Remembers, in a signed cookie, which accounts signed in from this browser, so a sign-in from a browser
    never seen before sends the owner a notice (accounts/signup/receivers.py marks the request)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user_id = getattr(request, "known_browser_add", None)
        if user_id is not None:
            users = sorted(known_browser_users(request) | {str(user_id)})[-20:]
            response.set_signed_cookie(
                KNOWN_BROWSER_COOKIE,
                ",".join(users),
                salt=KNOWN_BROWSER_SALT,
                max_age=KNOWN_BROWSER_MAX_AGE,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response


class ActivityActorMiddleware:
    """Every row the request's services write to the activity log names who acted (accounts/staff/activity.py): resolved
    from the signed-in user and the acting-as-customer session only when a row is written."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with acting(acting_for_request(request)):
            return self.get_response(request)
