"""What readiness reports: our database and cache (they decide it), and the provider's two services (reported only)."""

from __future__ import annotations

from django.core.cache import cache
from django.db import connection

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
    try:
        cache.set("readyz-probe", "1", timeout=5)
        ok = cache.get("readyz-probe") == "1"
    except Exception:  # noqa: BLE001 - any cache failure means not ready (throttles and rate limits live there)
        return "unavailable"
    return "ok" if ok else "unavailable"
