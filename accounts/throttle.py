"""Throttling of failed sign-ins, per account and per client address, in Django's cache.

A fixed window per key: the first failure opens a window of `WINDOW` seconds; once a key has `limit` failures
in it, sign-in for that key is refused without checking the password until the window closes.
"""

from __future__ import annotations

import hashlib
import math
import time

from django.core.cache import cache

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


def locked_for(*, email: str, address: str) -> int:
    """Seconds until sign-in may be tried again for this account or address; 0 when not locked."""
    now = _now()
    wait = 0.0
    for key, limit in _limits(email, address):
        entry = cache.get(key)
        if entry and entry["count"] >= limit:
            wait = max(wait, entry["opened"] + WINDOW - now)
    return max(0, math.ceil(wait))


def record_failure(*, email: str, address: str) -> None:
    now = _now()
    for key, _limit in _limits(email, address):
        entry = cache.get(key)
        if not entry or entry["opened"] + WINDOW <= now:
            entry = {"opened": now, "count": 0}
        entry["count"] += 1
        cache.set(key, entry, timeout=max(1, math.ceil(entry["opened"] + WINDOW - now)))


def clear_account(*, email: str) -> None:
    """A successful sign-in forgives the account's failures (not the address's: others may share it)."""
    cache.delete(_key("account", email))


def minutes(seconds: int) -> int:
    return max(1, math.ceil(seconds / 60))
