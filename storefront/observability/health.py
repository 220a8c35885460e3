"""What readiness reports: our database (it decides it), the cache (ok, or degraded while a process serves from its
own memory: pages still answer), and the provider's two services (reported only)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.db import connection

from storefront.gateway import GatewayError, RateLimited, gateway
from storefront.observability.provider_state import Observed, provider_last_seen, provider_observed
from storefront.resilience.cache import cache_degraded


def provider_states() -> dict[str, str]:
    """The main interface and MetaSearch, each "ok" or what went wrong, as this process last saw them: from its last
    real call when one was made within READYZ_PROVIDER_PROBE_SECONDS, else from a probe of its own (one per service
    per that many seconds per process, however often readiness is asked: a router probing every few seconds must not
    spend the provider's rate limit)."""
    states = {}
    for name, service, probe in (("main", "main", _probe_main), ("metasearch", "search", _probe_metasearch)):
        seen = provider_last_seen().get(service)
        if seen is None or time.monotonic() - seen.at >= settings.READYZ_PROVIDER_PROBE_SECONDS:
            seen = _probed(service, probe)
        states[name] = "ok" if seen.up else seen.outcome
    return states


_probe_lock = threading.Lock()


def _probed(service: str, probe: Callable[[], None]) -> Observed:
    """Probe once, even when many threads ask at the same moment; the gateway records what the call found."""
    with _probe_lock:
        seen = provider_last_seen().get(service)
        if seen is not None and time.monotonic() - seen.at < settings.READYZ_PROVIDER_PROBE_SECONDS:
            return seen  # another thread probed meanwhile
        try:
            probe()
        except GatewayError as err:
            seen = provider_last_seen().get(service)
            if seen is None or time.monotonic() - seen.at >= settings.READYZ_PROVIDER_PROBE_SECONDS:
                # Refused before anything was sent (its breaker open, no call slot): that is its state now.
                provider_observed(service=service, outcome=_outcome(err))
        else:
            provider_observed(service=service, outcome="ok")  # a fake gateway (tests) records nothing itself
        return provider_last_seen()[service]


def _outcome(err: GatewayError) -> str:
    return "rate_limited" if isinstance(err, RateLimited) else "unavailable"


def _probe_main() -> None:
    gateway().hello()


def _probe_metasearch() -> None:
    gateway().metasearch(search_term="example", autosuggest=False, aisuggest=False)


def database_state() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception:  # noqa: BLE001 - any database failure means not ready
        return "unavailable"
    return "ok"


def cache_state() -> str:
    """ "ok"; "degraded" while Redis cannot be reached and this process serves from its own memory (pages still
    answer, rate limits count per process); "unavailable" when the cache fails outright."""
    try:
        cache.set("readyz-probe", "1", timeout=5)
        ok = cache.get("readyz-probe") == "1"
    except Exception:  # noqa: BLE001 - a cache with no fallback (the database cache: the database is down)
        return "unavailable"
    if cache_degraded():
        return "degraded"
    return "ok" if ok else "unavailable"
