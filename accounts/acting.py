"""Staff acting as a customer (django-hijack), to see what the customer sees.

Who may: active staff with the `accounts.act_as_customer` permission and two-factor sign-in set up, acting as an active
customer (never as another staff member). While acting, every page shows a banner with the way back, every change is
logged as "staff as customer" (accounts/activity.py), and what only the customer may do is refused with a sentence
saying so (`ActingGuardMiddleware`): reading a transfer code or opening the provider's control panel (either could
move a domain away), the password, email address and two-factor sign-in, deleting the account, and paying (Buy, a
renewal, a payment link, the saved card).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from allauth.mfa.utils import is_mfa_enabled
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST
from hijack.views import AcquireUserView, ReleaseUserView

from accounts.models import Customer, customer_for_user
from storefront.errors import StoreError

PERMISSION = "accounts.act_as_customer"

# URL names refused while acting, whatever the method; and those refused when posted (reading them is harmless).
REFUSED = frozenset(
    {
        "order_transfer_code",
        "panel",
        "password_change",
        "password_reset",
        "account_change_password",
        "account_set_password",
        "account_reset_password",
        "account_email",
        "account_reauthenticate",
        "account_delete",
        "card_remove",
        "card_add",
        "pay_due",
    }
)
REFUSED_POSTS = frozenset({"checkout", "order_renew", "orders_renew", "order_privacy_buy"})
REFUSED_PREFIXES = ("mfa_", "account_reset_password")

REFUSED_SENTENCE = _(
    "This is not available while our staff act as a customer: reading a transfer code, opening the control panel, "
    "changing the password, email address or two-factor sign-in, and paying stay with the customer."
)


class ActingRefused(StoreError):
    """What only the customer may do, asked while staff act as them (the services' own guard, behind the middleware)."""

    http_status = 403


def may_act_as(*, hijacker: Any, hijacked: Any) -> bool:
    """django-hijack's permission check (HIJACK_PERMISSION_CHECK)."""
    if hijacked is None or not hijacked.is_active or hijacked.is_staff or hijacked.is_superuser:
        return False
    if not (hijacker.is_active and hijacker.is_staff and hijacker.has_perm(PERMISSION)):
        return False
    if hijacker.pk == hijacked.pk or not is_mfa_enabled(hijacker):
        return False
    return Customer.objects.filter(user=hijacked).exists()


def is_acting(request: HttpRequest) -> bool:
    session = getattr(request, "session", None)  # a request made by hand in a test may have none
    return bool(session is not None and request.user.is_authenticated and session.get("hijack_history"))


def _refused(request: HttpRequest) -> bool:
    match = request.resolver_match
    name = (match.url_name or "") if match is not None else ""
    if name in REFUSED or name.startswith(REFUSED_PREFIXES):
        return True
    return request.method == "POST" and name in REFUSED_POSTS


class ActingGuardMiddleware:
    """Refuses, while staff act as a customer, what only the customer may do (403 with the sentence)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view: Any, args: Any, kwargs: Any) -> HttpResponse | None:
        # The URL first: most requests never read the session or the user for this.
        if _refused(request) and is_acting(request):
            return render(request, "accounts/acting_refused.html", {"sentence": REFUSED_SENTENCE}, status=403)
        return None


_acquire = AcquireUserView.as_view()
_release = ReleaseUserView.as_view()


@require_POST
def act_as_start(request: HttpRequest) -> HttpResponse:
    """Begin acting as the customer whose user is posted (`user_pk`, `next`: hijack's own form fields)."""
    # Not the customer signing in from a new browser (accounts/receivers.py sends no notice).
    request.acting_as_customer = True  # type: ignore[attr-defined]
    return _acquire(request)


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
