"""Faults: misbehaviour switched on per partner (admin or `inject`), applied around every endpoint.

In order: latency, a hang (unless it comes after the work), 429 rate limiting, the error rate, the availability
backend being down (search endpoints only), a refusal answered 200; then the endpoint runs; then a malformed body
replaces its answer, and a hang after the work keeps the answer back (the state change is already committed).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db.models import F
from django.http import HttpResponse, JsonResponse

from sandbox.models import ApiKey, Fault, Partner, hash_secret

SERVER_ERROR = "Server Error."
MALFORMED_BODY = "<html><body>502 Bad Gateway (upstream)</body></html>"
_FIELDS = {f.name for f in Fault._meta.get_fields() if f.concrete and f.name not in ("id", "partner")} - {
    "requests_seen"
}


def active_for(partner: Partner, groups: tuple[str, ...]) -> Fault | None:
    fault = Fault.objects.filter(partner=partner).first()
    if fault is None or not fault.applies_to(groups):
        return None
    return fault


def before(fault: Fault, *, metasearch: bool, search: bool) -> HttpResponse | None:
    """Misbehave before the endpoint runs; a response here is the whole answer."""
    if fault.latency_ms:
        time.sleep(fault.latency_ms / 1000)
    if fault.hang_seconds and not fault.hang_after_commit:
        time.sleep(fault.hang_seconds)
    if fault.rate_limited:
        body = {"error": "Too Many Requests"} if metasearch else {"message": "Too Many Requests"}
        response = JsonResponse(body, status=429)
        response["Retry-After"] = "2"
        return response
    if fault.error_rate > 0 and _fails_now(fault):
        return JsonResponse({"error": "Internal server error"} if metasearch else {"message": SERVER_ERROR}, status=500)
    if fault.availability_down and metasearch:
        return JsonResponse({"error": "Domain availability service unavailable"}, status=503)
    if fault.availability_down and search:
        return JsonResponse({"message": SERVER_ERROR}, status=500)
    if fault.error_200_message:
        # Undocumented whether the provider ever does this; a careful client must read it as a refusal anyway.
        if metasearch:
            return JsonResponse({"error": fault.error_200_message})
        return JsonResponse({"status": "ERROR", "message": fault.error_200_message})
    return None


def after(fault: Fault, response: HttpResponse) -> HttpResponse:
    if fault.malformed:
        response = HttpResponse(MALFORMED_BODY, content_type="text/html", status=200)
    if fault.hang_seconds and fault.hang_after_commit:
        # No request-wide transaction: the work is committed; only the answer goes missing.
        time.sleep(fault.hang_seconds)
    return response


def _fails_now(fault: Fault) -> bool:
    """A deterministic error rate: request n fails when floor(n * rate) steps up (0.5: every second one)."""
    if fault.error_rate >= 1:
        return True
    Fault.objects.filter(pk=fault.pk).update(requests_seen=F("requests_seen") + 1)
    seen = Fault.objects.values_list("requests_seen", flat=True).get(pk=fault.pk)
    return int(seen * fault.error_rate) > int((seen - 1) * fault.error_rate)


def demo_partner() -> Partner:
    from django.conf import settings

    key = ApiKey.objects.select_related("partner").filter(key_hash=hash_secret(settings.SANDBOX_DEMO_KEY)).first()
    if key is not None:
        return key.partner
    from sandbox.management.commands.sandbox_seed import DEMO_PARTNER

    return Partner.objects.get(name=DEMO_PARTNER)


@contextmanager
def inject(partner: Partner | None = None, **fields: Any) -> Iterator[Fault]:
    """Switch faults on for a partner (default: the demo partner) and off again on exit.

        with inject(error_rate=1.0, scope="register"):
            ...

    The faults live in the database, so a live server in another thread sees them too.
    """
    unknown = set(fields) - _FIELDS
    if unknown:
        raise TypeError(f"Unknown fault fields: {', '.join(sorted(unknown))}")
    partner = partner or demo_partner()
    fault = Fault.objects.filter(partner=partner).first() or Fault(partner=partner)
    for name, value in {**fields, "requests_seen": 0}.items():
        setattr(fault, name, value)
    fault.full_clean()
    fault.save()
    try:
        yield fault
    finally:
        Fault.objects.filter(partner=partner).delete()
