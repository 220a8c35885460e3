"""Site-wide pages: home, the brand stylesheet, liveness and readiness."""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_safe

from storefront.brand import brand_css
from storefront.health import cache_state, database_state, provider_states


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "storefront/home.html")


@require_safe
@cache_control(public=True, max_age=365 * 24 * 3600, immutable=True)
def brand_stylesheet(request: HttpRequest) -> HttpResponse:
    """The brand colour as CSS custom properties (CSP allows no inline styles). Its URL carries the colour's
    version (base.html), so a changed colour is a new URL and this one may be cached for good."""
    return HttpResponse(brand_css(), content_type="text/css; charset=utf-8")


@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness: the process answers. Nothing else is checked, so a slow provider never restarts us."""
    return JsonResponse({"status": "ok"})


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
