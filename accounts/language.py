"""The customer's language, remembered for what is sent outside a request (the worker's emails)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation

from accounts.models import Customer
from pricing.currencies import currency_override

_SESSION_KEY = "accounts:language-saved"


class CustomerLanguageMiddleware:
    """Stores the request's language on the signed-in customer when it changes (after LocaleMiddleware chose it).

    The session remembers what was stored, so a request in the same language costs no query.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        language = getattr(request, "LANGUAGE_CODE", "")
        user = getattr(request, "user", None)
        if language and user is not None and user.is_authenticated and request.session.get(_SESSION_KEY) != language:
            Customer.objects.filter(user_id=user.pk).exclude(language=language).update(language=language)
            request.session[_SESSION_KEY] = language
        return response


@contextmanager
def customer_language(customer: Customer | None) -> Iterator[None]:
    """Renders and prices what is inside in the customer's language and currency (the site's default language and
    the store's currency when none is known)."""
    language = (customer.language if customer is not None else "") or settings.LANGUAGE_CODE
    with translation.override(language), currency_override(customer.currency if customer is not None else None):
        yield
