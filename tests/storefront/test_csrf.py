"""CSRF is enforced on every POST the site answers, for anonymous and signed-in visitors alike.

The URL list is read from the URL configuration (the root one and the staff API's, which serves /api/v1/:
reseller_api/middleware.py), so a view added later (or one marked csrf_exempt) is covered without editing this file.
Django's test client skips CSRF checks unless told otherwise: here it is told.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from reseller_api.middleware import API_URLCONF

pytestmark = pytest.mark.django_db

# Views that must accept POSTs from elsewhere; each verifies its caller another way (a signature).
EXEMPT: set[str] = {"/payments/stripe/webhook/"}
# The staff API's operations take a bearer key only, never the session: no cookie opens them, so a forged cross-site
# request has nothing to ride on (a signed-in session gets a 401 there: tests/reseller_api/test_keys.py). Its
# description and root are plain Django views and keep CSRF.
API_PREFIX, API_PLAIN = "/api/v1/", {"/api/v1/", "/api/v1/openapi.json"}
FORM = urlencode({"domain_name": "csrf.com", "password": "x"})
_SAMPLE = {"int": "1", "str": "x", "slug": "x", "path": "x", "uuid": "5b0c7a52-8f4e-4d4b-9c1e-2f6a1d3e4b5c"}


def _routes(resolver: URLResolver, prefix: str = "") -> Iterator[str]:
    for entry in resolver.url_patterns:
        pattern = str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _routes(entry, prefix + pattern)
        elif isinstance(entry, URLPattern):
            yield prefix + pattern


def _sample_path(route: str) -> str | None:
    if "^" in route or "(?" in route:
        # Regex routes (the admin's; allauth's reset-from-key): their forms are the libraries' own, and no sample
        # path can be made for them; the admin's login stands for them below.
        return None
    path = re.sub(r"<(?:(\w+):)?\w+>", lambda m: _SAMPLE.get(m.group(1) or "str", "x"), route)
    return "/" + path


def _post_paths() -> list[str]:
    routes = {*_routes(get_resolver()), *_routes(get_resolver(API_URLCONF))}
    paths = {p for p in (_sample_path(r) for r in routes) if p is not None}
    return sorted(paths | {"/admin/login/"})


@pytest.fixture
def signed_in_csrf_client() -> Client:
    user = get_user_model().objects.create_user("csrf@example.org", "csrf@example.org", "Csrf#Pass9x")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


@pytest.mark.parametrize("path", _post_paths())
def test_a_post_without_the_token_is_refused(path, signed_in_csrf_client):
    anonymous = Client(enforce_csrf_checks=True)
    for client in (anonymous, signed_in_csrf_client):
        # Form-encoded as the site's forms post (a multipart body is refused before CSRF is even checked).
        response = client.post(path, FORM, content_type="application/x-www-form-urlencoded")
        if path in EXEMPT or (path.startswith(API_PREFIX) and path not in API_PLAIN):
            assert response.status_code != 403
        else:
            assert response.status_code == 403, f"{path} accepted a POST without a CSRF token"


def test_every_form_page_carries_the_token(client):
    for path in ("/accounts/signup/", "/accounts/login/", "/accounts/password/reset/"):
        assert 'name="csrfmiddlewaretoken"' in client.get(path).content.decode(), path
