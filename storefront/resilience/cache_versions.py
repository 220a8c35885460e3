"""Versioned cache keys: a group of cached entries (a customer's order listing pages, a domain's zone reads) is
forgotten at once by moving its version, instead of deleting keys one by one (which a cache cannot list)."""

from __future__ import annotations

import time

from django.core.cache import cache


def cache_version(key: str) -> int:
    """The group's current version, to put in each entry's key."""
    # A nanosecond clock as the first version: if the version key is evicted, old entries are never revived.
    return int(cache.get_or_set(key, time.time_ns, timeout=None) or time.time_ns())


def cache_version_bump(key: str) -> None:
    """Forget every entry of the group (their keys name the old version)."""
    try:
        cache.incr(key)
    except ValueError:
        cache.set(key, time.time_ns(), timeout=None)
