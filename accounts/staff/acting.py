"""Staff acting as a customer (django-hijack), to see what the customer sees.

Who may: active staff with the `accounts.act_as_customer` permission and two-factor sign-in set up, acting as an active
customer (never as another staff member). While acting, every page shows a banner with the way back, every change is
logged as "staff as customer" (accounts/staff/activity.py), and what only the customer may do is refused with a sentence
saying so: reading a transfer code or opening the provider's control panel (either could move a domain away), the
password, email address and two-factor sign-in, deleting the account, switching auto-renew (it commits the saved card
to a future charge), and paying (Buy, a renewal, a payment link, the saved card). Each view says which it is with its
own decorator, `@acting_allowed` or `@acting_refused` (tests/test_access.py fails on a view with neither); allauth's
pages are refused but for sign-in and sign-out (storefront/urls.py).
"""

from __future__ import annotations

from typing import Any

from allauth.mfa.utils import is_mfa_enabled
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST
from hijack.views import AcquireUserView, ReleaseUserView

from accounts.models import Customer, customer_for_user
from storefront.errors import StoreError
from storefront.requests.acting_rules import acting_allowed, is_acting

PERMISSION = "accounts.act_as_customer"


class ActingRefused(StoreError):
    """What only the customer may do, asked while staff act as them (the services' own guard, behind the middleware)."""

    http_status = 403


def acting_unavailable_reason(*, hijacker: Any, hijacked: Any) -> str | None:
    """Why `hijacker` may not act as `hijacked` (a sentence for the admin's button), or None when they may."""
    if hijacked is None or hijacked.is_staff or hijacked.is_superuser:
        return gettext("Staff accounts cannot be acted as.")
    if not hijacked.is_active:
        return gettext("This customer's account is switched off.")
    if not (hijacker.is_active and hijacker.is_staff and hijacker.has_perm(PERMISSION)):
        return gettext("Your staff login does not have the permission to act as customers.")
    if hijacker.pk == hijacked.pk:
        return gettext("You cannot act as yourself.")
    if not is_mfa_enabled(hijacker):
        return gettext("Acting as a customer needs two-factor sign-in on your staff login: set it up first.")
    if not Customer.objects.filter(user=hijacked).exists():
        return gettext("This user has no customer record to act as.")
    return None


def may_act_as(*, hijacker: Any, hijacked: Any) -> bool:
    """django-hijack's permission check (HIJACK_PERMISSION_CHECK)."""
    return acting_unavailable_reason(hijacker=hijacker, hijacked=hijacked) is None


_acquire = AcquireUserView.as_view()
_release = ReleaseUserView.as_view()


@acting_allowed
@require_POST
def act_as_start(request: HttpRequest) -> HttpResponse:
    """Begin acting as the customer whose user is posted (`user_pk`, `next`: hijack's own form fields)."""
    # Not the customer signing in from a new browser (accounts/signup/receivers.py sends no notice).
    request.acting_as_customer = True  # type: ignore[attr-defined]
    return _acquire(request)


@acting_allowed
@require_POST
def act_as_stop(request: HttpRequest) -> HttpResponse:
    request.acting_as_customer = True  # type: ignore[attr-defined]
    return _release(request)


def acting_context(request: HttpRequest) -> dict[str, Any]:
    """The banner's facts for every page (a context processor): whom staff act as, and where stopping leads."""
    if not is_acting(request):
        return {"acting_as": None}  # named, so the layout's test of it raises nothing (a cost on every page)
    customer = customer_for_user(request.user)
    return {"acting_as": customer or request.user}
