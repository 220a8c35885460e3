"""/api/v1/ is served from the API's own URLconf (reseller_api/middleware.py), which the root one leaves out so that a
web worker loads django-ninja only once it is asked for the API (tests/storefront/test_web_worker_imports.py checks
the loading)."""

from __future__ import annotations

import pytest
from django.urls import Resolver404, get_resolver, resolve, reverse

from reseller_api.middleware import API_URLCONF


def test_an_api_request_is_served_with_the_apis_urlconf(api):
    response = api.get("/customers")
    assert response.status_code == 200
    assert response.wsgi_request.urlconf == API_URLCONF
    assert response.resolver_match.view_name == "reseller_api:customers"


@pytest.mark.django_db
def test_a_page_of_the_site_is_served_with_the_root_urlconf(client):
    response = client.get("/")
    assert response.status_code == 200
    assert not hasattr(response.wsgi_request, "urlconf")


def test_the_root_urlconf_leaves_the_api_out():
    with pytest.raises(Resolver404):
        resolve("/api/v1/customers")


def test_the_apis_urlconf_names_the_sites_pages_too():
    """While an API request is served, reverse() looks in its URLconf only: what an operation calls may name a page
    (reseller_webhooks/sending.py links to the admin)."""
    assert reverse("home", urlconf=API_URLCONF) == "/"
    assert reverse("admin:index", urlconf=API_URLCONF) == "/admin/"
    assert reverse("reseller_api:customers", urlconf=API_URLCONF) == "/api/v1/customers"


def test_the_apis_urlconf_has_the_roots_error_page():
    """Django reads handler500 from the top module of the request's URLconf: the same 503 when the database is away."""
    assert get_resolver(API_URLCONF).resolve_error_handler(500) == get_resolver().resolve_error_handler(500)


def test_an_unknown_api_path_is_not_found(api):
    assert api.get("/nothing-here").status_code == 404
