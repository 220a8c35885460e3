"""What readiness reports: our database (it decides it), the cache (ok, or degraded while a process serves from its
own memory: pages still answer), and the provider's two services (reported only)."""

from __future__ import annotations

from django.core.cache import cache
from django.db import connection

from storefront.cache import cache_degraded
from storefront.gateway import GatewayError, gateway


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
