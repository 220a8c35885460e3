"""The customer's language: the one they chose (at signup, or with the language form) is kept on their record
until they choose another. It is the language of their pages once signed in and of everything the worker sends
them later; the browser's Accept-Language of one visit never changes it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from accounts.models import Customer
from pricing.currencies import currency_override
from storefront.requests.acting_rules import acting_allowed

SESSION_KEY = "accounts:language"


def _supported(code: str) -> str:
    """`code` when the site speaks it (settings.LANGUAGES), else ""."""
    return code if code in dict(settings.LANGUAGES) else ""


def _stored_language(user_id: Any) -> str:
    return _supported(Customer.objects.filter(user_id=user_id).values_list("language", flat=True).first() or "")


class CustomerLanguageMiddleware:
    """Activates the signed-in customer's chosen language for the request (after LocaleMiddleware guessed one from
    the cookie or the browser). The session remembers the choice, so a page costs no query for it.

    A customer without a stored language (an account from before languages were kept) gets the one of their first
    signed-in request stored once; staff without a customer record keep the browser's."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            language = request.session.get(SESSION_KEY)
            if language is None:  # a session from before this middleware: read once
                language = _stored_language(user.pk)
                if not language and _supported(getattr(request, "LANGUAGE_CODE", "")):
                    language = request.LANGUAGE_CODE
                    Customer.objects.filter(user_id=user.pk, language="").update(language=language)
                request.session[SESSION_KEY] = language
            if language:
                translation.activate(language)
                request.LANGUAGE_CODE = language
        return self.get_response(request)


@receiver(user_logged_in, dispatch_uid="accounts.language.on_login")
def _remember_language(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    # Also when staff start or stop acting as a customer (django-hijack signs in as them).
    if request is None or not hasattr(request, "session"):
        return
    request.session[SESSION_KEY] = _stored_language(user.pk)


@acting_allowed
@require_POST
def language_choose(request: HttpRequest) -> HttpResponse:
    """Django's set_language (the cookie, then back to `next`), and for a signed-in customer the choice is stored
    on their record: their later pages and emails are in it."""
    response = set_language(request)
    language = _supported(request.POST.get("language") or "")
    user = getattr(request, "user", None)
    if language and user is not None and user.is_authenticated:
        # Staff acting as the customer read the pages in the language they pick; the customer's choice stays theirs.
        if not getattr(user, "is_hijacked", False):
            Customer.objects.filter(user_id=user.pk).exclude(language=language).update(language=language)
        request.session[SESSION_KEY] = language
    return response


@contextmanager
def customer_language(customer: Customer | None) -> Iterator[None]:
    """Renders and prices what is inside in the customer's language and currency (the site's default language and
    the store's currency when none is known)."""
    language = (customer.language if customer is not None else "") or settings.LANGUAGE_CODE
    with translation.override(language), currency_override(customer.currency if customer is not None else None):
        yield
