"""The sandbox's root URLs: its admin, a liveness probe, and the provider's routes served twice.

`/...` is the test environment, `/live/...` production. A key only opens its own environment (`test_` keys the
first, `live_` keys the second); the other answers 403 environment_mismatch, as the real provider does.
The test-only control endpoint (`/_control/...`) is mounted only when SANDBOX_CONTROL is on.
"""

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver, include, path

from sandbox.models import LIVE, TEST
from sandbox.views import contacts, core, customers, dns, domain_settings, domains, metasearch, panel, pricing, search

# The record types the provider lets a partner add, change and delete (NS and SOA are its own, read-only).
EDITABLE_RECORD_TYPES = ("A", "AAAA", "CNAME", "MX", "TXT")


def healthz(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")


def _routes(environment: str, prefix: str = "") -> list[URLPattern]:
    def route(url: str, view) -> URLPattern:
        return path(prefix + url, view, {"environment": environment})

    return [
        route("api/v1/hello", core.hello),
        route("api/v1/pricing", pricing.pricing),
        route("api/v1/customers/signup", customers.signup),
        route("api/v1/customers/auto-login", customers.auto_login),
        route("api/v1/customers/details", customers.details),
        route("api/v1/contacts", contacts.contacts),
        route("api/v1/customers", core.placeholder("DELETE", "customers")),
        route("api/v1/domains/availability", search.availability),
        route("metasearch/v1/search", metasearch.search),
        route("panel/auto-login", panel.auto_login),
        route("api/v1/domains/register", domains.register),
        route("api/v1/domains/orders", domains.orders),
        route("api/v1/domains/renew", domains.renew),
        route("api/v1/transfers/auth-code", domains.auth_code),
        route("api/v1/transfers/lock", domain_settings.transfer_lock),
        route("api/v1/domains/details", domain_settings.details),
        route("api/v1/domains/delete", domain_settings.delete),
        route("api/v1/privacy-protection", domain_settings.privacy),
        route("api/v1/dns/activate", dns.activate),
        route("api/v1/dns/dns-records", dns.records),
        *[route(f"api/v1/dns/{kind.lower()}-record", dns.record_endpoint(kind)) for kind in EDITABLE_RECORD_TYPES],
        route("api/v1/domains/auto-renew", core.placeholder("PUT", "renew", "domains")),
        route("api/v1/transfers", core.placeholder("GET", "transfers")),
        route("api/v1/transfers/status", core.placeholder("GET", "transfers")),
    ]


urlpatterns: list[URLPattern | URLResolver] = [
    path("admin/", admin.site.urls),
    path("healthz", healthz),
    # The payment sandbox: Stripe's API (the part the storefront uses) and its hosted payment page.
    path("stripe/", include("sandbox.stripe_api.urls")),
    *_routes(TEST),
    *_routes(LIVE, prefix="live/"),
]

if settings.SANDBOX_CONTROL:
    urlpatterns.append(path("_control/stripe/", include("sandbox.stripe_api.control")))
    urlpatterns.append(path("_control/", include("sandbox.control")))
