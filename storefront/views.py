from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from storefront.gateway import GatewayError, gateway


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "storefront/home.html")


@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness: the process answers. Nothing else is checked, so a slow provider never restarts us."""
    return JsonResponse({"status": "ok"})


@never_cache
def readyz(request: HttpRequest) -> HttpResponse:
    """Readiness: the database answers and the provider accepts our key."""
    checks: dict[str, str] = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        checks["database"] = "ok"
    except Exception:  # noqa: BLE001 - any database failure means not ready
        checks["database"] = "unavailable"
    try:
        gateway().hello()
        checks["provider"] = "ok"
    except GatewayError as err:
        checks["provider"] = type(err).__name__
    ready = all(value == "ok" for value in checks.values())
    return JsonResponse({"status": "ok" if ready else "unavailable", "checks": checks}, status=200 if ready else 503)
