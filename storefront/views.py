from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_safe

from storefront.brand import brand_css
from storefront.gateway import GatewayError, gateway


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
    """Readiness: our database and cache answer. The provider's state is reported, never fails it: a provider
    outage must not take every instance out of the load balancer (pages that need no provider still work)."""
    checks = {"database": _database_state(), "cache": _cache_state()}
    ready = all(value == "ok" for value in checks.values())
    body = {"status": "ok" if ready else "unavailable", "checks": checks, "provider": provider_states()}
    return JsonResponse(body, status=200 if ready else 503)


def provider_states() -> dict[str, str]:
    """The main interface and MetaSearch, each "ok" or the error's class name."""
    states = {}
    for name, probe in (("main", _probe_main), ("metasearch", _probe_metasearch)):
        try:
            probe()
            states[name] = "ok"
        except GatewayError as err:
            states[name] = type(err).__name__
    return states


def _probe_main() -> None:
    gateway().hello()


def _probe_metasearch() -> None:
    gateway().metasearch(search_term="example", autosuggest=False, aisuggest=False)


def _database_state() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception:  # noqa: BLE001 - any database failure means not ready
        return "unavailable"
    return "ok"


def _cache_state() -> str:
    try:
        cache.set("readyz-probe", "1", timeout=5)
        ok = cache.get("readyz-probe") == "1"
    except Exception:  # noqa: BLE001 - any cache failure means not ready (throttles and rate limits live there)
        return "unavailable"
    return "ok" if ok else "unavailable"
