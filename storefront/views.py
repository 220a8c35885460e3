"""Site-wide pages: home, the brand stylesheet, liveness, readiness and metrics, and the page of an unexpected error."""

import sys

from django.conf import settings
from django.db import DatabaseError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.utils import translation
from django.utils.crypto import constant_time_compare
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_safe
from prometheus_client import CONTENT_TYPE_LATEST

from storefront.observability.health import cache_state, database_state, provider_states
from storefront.observability.metrics_scrape import metrics_text
from storefront.requests import request_ids
from storefront.requests.acting_rules import acting_allowed
from storefront.site.brand import brand_css


@acting_allowed
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "storefront/home.html")


@acting_allowed
@require_safe
@cache_control(public=True, max_age=365 * 24 * 3600, immutable=True)
def brand_stylesheet(request: HttpRequest) -> HttpResponse:
    """The brand colour as CSS custom properties (CSP allows no inline styles). Its URL carries the colour's
    version (base.html), so a changed colour is a new URL and this one may be cached for good."""
    return HttpResponse(brand_css(), content_type="text/css; charset=utf-8")


@acting_allowed
@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness: the process answers. Nothing else is checked, so a slow provider never restarts us."""
    return JsonResponse({"status": "ok"})


@acting_allowed
@never_cache
def readyz(request: HttpRequest) -> HttpResponse:
    """Readiness: our database answers. The cache is reported "degraded" while Redis is away (pages still answer
    from each process's memory) without failing it, and the provider's state is reported, never fails it: neither
    outage must take every instance out of the load balancer."""
    checks = {"database": database_state(), "cache": cache_state()}
    ready = checks["database"] == "ok" and checks["cache"] in ("ok", "degraded")
    status = "unavailable" if not ready else "ok" if checks["cache"] == "ok" else "degraded"
    body = {"status": status, "checks": checks, "provider": provider_states()}
    return JsonResponse(body, status=200 if ready else 503)


@acting_allowed
@never_cache
@require_safe
def metrics(request: HttpRequest) -> HttpResponse:
    """Prometheus' text format (storefront/observability/metrics.py), only for `Authorization: Bearer <METRICS_TOKEN>`:
    any other request, and every request while no token is set, gets the site's 404, as if there were no such page."""
    token = settings.METRICS_TOKEN
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if not token or scheme.lower() != "bearer" or not constant_time_compare(given.strip(), token):
        raise Http404
    return HttpResponse(metrics_text(), content_type=CONTENT_TYPE_LATEST)


# Seconds a customer is asked to wait when the database is away for a moment (a restart, a failover).
DATABASE_RETRY_AFTER = 30


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500 handler (`handler500`). The database unreachable for a moment is not a bug of the page: it is a
    503 that says so and asks to try again; anything else a 500 page of our own (reported as usual, by Django's
    logging). Both drawn without the request's context, which would need the database, and both name the
    request's id for the customer to quote."""
    error = sys.exc_info()[1]
    context = {
        "store_name": settings.STORE_NAME,
        "language_code": translation.get_language() or "en",
        # The reference the customer quotes to support (storefront/requests/request_ids.py).
        "request_id": request_ids.current(),
    }
    if not isinstance(error, DatabaseError):
        page = loader.get_template("storefront/server_error.html").render(context)
        return HttpResponse(page, status=500)
    page = loader.get_template("storefront/unavailable.html").render(context)
    response = HttpResponse(page, status=503)
    response["Retry-After"] = str(DATABASE_RETRY_AFTER)
    return response
