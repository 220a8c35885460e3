"""Domain search: MetaSearch answers, cached and single-flight, with an availability fallback.

`metasearch_cached(term)` is also how the cart and checkout look up a domain's price and availability.

Why single-flight: a customer typing, several tabs, or a link shared in a chat make identical searches arrive
together. The first one asks the provider; the others wait for its answer instead of asking again. Within a
process the waiters share the leader's outcome (answer or error); across processes sharing a cache (gunicorn
workers on Redis) a short `cache.add` lock makes the others poll the cache briefly before asking themselves.
Errors are shared with whoever was waiting for that same call, but never cached for later searches.
"""

from __future__ import annotations

import copy
import hashlib
import logging
import re
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache

from storefront.gateway import DomainResult, MetaSearch, ValidationRejected, gateway

T = TypeVar("T")

logger = logging.getLogger(__name__)

# The fallback asks for these; the provider silently ignores TLDs the partner does not sell.
FALLBACK_TLDS = ("com", "net", "org", "io", "co", "dev", "shop", "ai", "app", "xyz")

# How long the cross-process lock lives if its holder dies, and how long others poll before asking themselves.
_LOCK_SECONDS = 10
_WAIT_SECONDS = 5.0
# An in-process follower waits at most this long for its leader, whose call is bounded by the gateway's timeouts.
_FOLLOW_SECONDS = 60.0

_LABEL_JUNK = re.compile(r"[^a-z0-9-]")


def normalise_term(term: str) -> str:
    return term.strip().lower()


def metasearch_cached(term: str) -> MetaSearch:
    """MetaSearch's answer for `term` (autosuggest and AI suggestions on), from the cache when fresh.

    Raises the gateway's errors (never cached): ValidationRejected for a term that sanitises to nothing,
    Unauthorized, RateLimited, Unavailable (down, timed out, unreadable).
    """
    term = normalise_term(term)
    return _single_flight(
        _cache_key("metasearch", term),
        lambda: gateway().metasearch(search_term=term, autosuggest=True, aisuggest=True),
    )


def fallback_availability(term: str) -> list[DomainResult]:
    """Availability (no prices) of the typed name across the common TLDs, for when MetaSearch is down.

    A typed TLD is asked first, so its row leads. Raises ValidationRejected when nothing searchable is left.
    """
    label, _, typed_tld = normalise_term(term).partition(".")
    label = _LABEL_JUNK.sub("", label).strip("-")[:63]
    if not label:
        raise ValidationRejected(
            message="Type a name using letters, numbers and hyphens, for example mybrand or mybrand.com."
        )
    tlds = [typed_tld] if typed_tld else []
    tlds += [tld for tld in FALLBACK_TLDS if tld != typed_tld]
    results = _single_flight(
        _cache_key("availability", f"{label}|{','.join(tlds)}"),
        lambda: gateway().domain_availability(search_terms=label, tlds=tlds),
    )
    # The provider answers in its own order; keep the typed TLD first, the rest in our order.
    rank = {tld: i for i, tld in enumerate(tlds)}
    return sorted(results, key=lambda row: rank.get(row.tld, len(rank)))


def cache_seconds() -> int:
    return int(getattr(settings, "SEARCH_CACHE_SECONDS", 60))


def _cache_key(kind: str, term: str) -> str:
    # Hashed: any text is safe as a key on every backend (memcached refuses spaces and long keys). The upstream
    # address is part of it so that pointing the storefront elsewhere never serves the other provider's answers.
    digest = hashlib.blake2b(f"{settings.RESELLER_METASEARCH_URL}|{term}".encode(), digest_size=16).hexdigest()
    return f"search:v1:{kind}:{digest}"


# --- Single flight ------------------------------------------------------------------------------------------


class _Flight:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: object = None
        self.error: BaseException | None = None


_flights: dict[str, _Flight] = {}
_flights_lock = threading.Lock()


def _single_flight(key: str, compute: Callable[[], T]) -> T:
    hit = _cache_get(key)
    if hit is not None:
        return hit
    with _flights_lock:
        flight = _flights.get(key)
        leading = flight is None
        if flight is None:
            flight = _flights[key] = _Flight()
    if not leading:
        if flight.done.wait(_FOLLOW_SECONDS):
            if flight.error is not None:
                # A copy: one exception object raised in several threads would share one growing traceback.
                raise copy.copy(flight.error)
            if flight.value is not None:
                return flight.value  # type: ignore[return-value]
        # The leader is stuck past every timeout, or was interrupted: ask ourselves.
        return _across_processes(key, compute)
    try:
        flight.value = _across_processes(key, compute)
        return flight.value  # type: ignore[return-value]
    except Exception as err:
        flight.error = err
        raise
    finally:
        with _flights_lock:
            if _flights.get(key) is flight:
                del _flights[key]
        flight.done.set()


def _across_processes(key: str, compute: Callable[[], T]) -> T:
    lock_key = f"{key}:lock"
    token = uuid.uuid4().hex
    if _cache_add(lock_key, token):
        try:
            return _compute_and_store(key, compute)
        finally:
            if _cache_get(lock_key) == token:
                _cache_quietly(cache.delete, lock_key)
    # Another process is asking: poll for its answer, briefly.
    deadline = time.monotonic() + _WAIT_SECONDS
    delay = 0.005
    while time.monotonic() < deadline:
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
        hit = _cache_get(key)
        if hit is not None:
            return hit
        if _cache_get(lock_key) is None:
            # Released without an answer (it failed), or answered between our two reads.
            hit = _cache_get(key)
            if hit is not None:
                return hit
            break
    return _compute_and_store(key, compute)


def _compute_and_store(key: str, compute: Callable[[], T]) -> T:
    value = compute()
    seconds = cache_seconds()
    if seconds > 0:
        _cache_quietly(cache.set, key, value, seconds)
    return value


# A cache that is down (Redis restarting) must not take search down with it: it only costs provider calls.


def _cache_get(key: str) -> Any:
    return _cache_quietly(cache.get, key)


def _cache_add(key: str, value: str) -> bool:
    added = _cache_quietly(cache.add, key, value, _LOCK_SECONDS, failed=True)
    return bool(added)


def _cache_quietly(operation: Callable[..., Any], *args: Any, failed: Any = None) -> Any:
    try:
        return operation(*args)
    except Exception as err:  # noqa: BLE001 - any cache failure is a miss, never an error page
        logger.warning("search cache %s failed: %s", operation.__name__, type(err).__name__)
        return failed
