"""The signed-in customer's currency, activated for each request (pricing.currencies prices in it).

The session remembers it (set at sign-in and when the customer changes it), so a page costs no query for it: a
cached search page must stay at its query count. Visitors who are not signed in see the store's currency.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse

from accounts.models import Customer
from pricing.currencies import currency_activate, currency_deactivate

SESSION_KEY = "accounts:currency"


def session_currency_set(request: HttpRequest, code: str) -> None:
    request.session[SESSION_KEY] = code


class CustomerCurrencyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        code = None
        if user is not None and user.is_authenticated:
            code = request.session.get(SESSION_KEY)
            if code is None:  # a session from before currencies (or staff without a customer): read once
                code = Customer.objects.filter(user_id=user.pk).values_list("currency", flat=True).first() or ""
                session_currency_set(request, code)
        token = currency_activate(code or None)
        try:
            return self.get_response(request)
        finally:
            currency_deactivate(token)


@receiver(user_logged_in, dispatch_uid="accounts.currency.on_login")
def _remember_currency(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    # Also when staff start or stop acting as a customer (django-hijack signs in as them): their currency shows.
    if request is None or not hasattr(request, "session"):
        return
    code = Customer.objects.filter(user_id=user.pk).values_list("currency", flat=True).first() or ""
    session_currency_set(request, code)
