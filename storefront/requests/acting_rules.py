"""Which views staff may use while acting as a customer (accounts/staff/acting.py): each view carries `@acting_allowed`
or `@acting_refused`, and tests/test_access.py fails on a view with neither. Here, not in accounts, because every app's
views carry one, the storefront's own pages included.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any, TypeVar

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, URLResolver
from django.utils.translation import gettext_lazy as _

V = TypeVar("V", bound=Callable[..., Any])

REFUSED_SENTENCE = _(
    "This is not available while our staff act as a customer: reading a transfer code, opening the control panel, "
    "changing the password, email address or two-factor sign-in, switching auto-renew, and paying stay with the "
    "customer."
)

# The mark each view carries (`acting_allowed` or `acting_refused`): tests/test_access.py fails on a view without one.
ACTING_RULE = "acting_rule"


def is_acting(request: HttpRequest) -> bool:
    session = getattr(request, "session", None)  # a request made by hand in a test may have none
    return bool(session is not None and request.user.is_authenticated and session.get("hijack_history"))


def acting_refused_response(request: HttpRequest) -> HttpResponse:
    return render(request, "storefront/acting_refused.html", {"sentence": REFUSED_SENTENCE}, status=403)


def acting_allowed(view: V) -> V:
    """Marks a view staff may use while acting as the customer (reading, and changes the customer would ask support
    for: contact details, DNS, the cart)."""

    # A wrapper, not a mark on `view` itself: a library's view (allauth's, Django's) is not ours to change.
    @wraps(view)
    def allowed(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return view(request, *args, **kwargs)

    setattr(allowed, ACTING_RULE, "allowed")
    return allowed  # type: ignore[return-value]


def acting_refused(view: Callable[..., HttpResponse] | None = None, *, methods: tuple[str, ...] | None = None) -> Any:
    """Refuses the view while staff act as the customer (403 with the sentence), for every method or for `methods`
    only (reading the page is then harmless). Used bare (`@acting_refused`) or with methods."""

    def decorate(inner: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(inner)
        def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if (methods is None or request.method in methods) and is_acting(request):
                return acting_refused_response(request)
            return inner(request, *args, **kwargs)

        setattr(guarded, ACTING_RULE, "refused")
        return guarded

    return decorate if view is None else decorate(view)


def library_patterns(patterns: Sequence[Any], *, allowed: frozenset[str]) -> list[Any]:
    """A library's URL patterns (allauth's) with each view refused while acting, except the names in `allowed`:
    a page a library adds later is refused until someone decides otherwise."""
    guarded: list[Any] = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = library_patterns(pattern.url_patterns, allowed=allowed)
            guarded.append(
                URLResolver(pattern.pattern, inner, pattern.default_kwargs, pattern.app_name, pattern.namespace)
            )
        elif pattern.name in allowed:
            guarded.append(
                URLPattern(pattern.pattern, acting_allowed(pattern.callback), pattern.default_args, pattern.name)
            )
        else:
            guarded.append(
                URLPattern(pattern.pattern, acting_refused(pattern.callback), pattern.default_args, pattern.name)
            )
    return guarded
