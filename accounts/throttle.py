"""Throttling of failed sign-ins, per account and per client address, in Django's cache.

A fixed window per key: the first failure opens a window of `WINDOW` seconds; once a key has `limit` failures
in it, sign-in for that key is refused without checking the password until the window closes.
"""

from __future__ import annotations

import hashlib
import math
import time

from django.core.cache import cache

from storefront.counters import counter_get, counter_incr

WINDOW = 15 * 60
PER_ACCOUNT = 5
PER_ADDRESS = 20


def _now() -> float:
    return time.time()


def _key(kind: str, value: str) -> str:
    # Hashed: a cache key must not carry an email address, and must be short and safe for memcached.
    digest = hashlib.sha256(value.strip().lower().encode()).hexdigest()[:32]
    return f"login-failures:{kind}:{digest}"


def _limits(email: str, address: str) -> list[tuple[str, int]]:
    limits = []
    if email:
        limits.append((_key("account", email), PER_ACCOUNT))
    if address:
        limits.append((_key("address", address), PER_ADDRESS))
    return limits


def _window(key: str, *, open_now: float | None = None) -> tuple[float, str] | None:
    """The key's open window: when it opened, and the name of its counter. `open_now` opens one if none is."""
    opened = cache.get(f"{key}:opened")
    if opened is None and open_now is not None:
        cache.add(f"{key}:opened", open_now, timeout=WINDOW)  # of concurrent openers, only the first wins
        opened = cache.get(f"{key}:opened", open_now)
    if opened is None:
        return None
    # One counter per window, named after its opening: a new window never inherits an old count.
    return float(opened), f"{key}:count:{round(float(opened) * 1000)}"


def locked_for(*, email: str, address: str) -> int:
    """Seconds until sign-in may be tried again for this account or address; 0 when not locked."""
    now = _now()
    wait = 0.0
    for key, limit in _limits(email, address):
        window = _window(key)
        if window is not None and counter_get(window[1]) >= limit:
            wait = max(wait, window[0] + WINDOW - now)
    return max(0, math.ceil(wait))


def record_failure(*, email: str, address: str) -> None:
    """Count one failure atomically: concurrent failures from many threads or processes are all counted.

    `cache.add` opens the window (only the first of concurrent callers succeeds) and its counter counts
    atomically whatever the cache backend (storefront.counters), so no read-modify-write can lose a count.
    """
    now = _now()
    for key, _limit in _limits(email, address):
        window = _window(key, open_now=now)
        assert window is not None
        opened, counter = window
        timeout = max(1, math.ceil(opened + WINDOW - now)) + 60
        counter_incr(counter, timeout=timeout)


def clear_account(*, email: str) -> None:
    """A successful sign-in forgives the account's failures (not the address's: others may share it)."""
    cache.delete(f"{_key('account', email)}:opened")


def minutes(seconds: int) -> int:
    return max(1, math.ceil(seconds / 60))
