"""Counters shared by every web process, incremented atomically: the basis of rate limits and throttles.

With Redis (CACHE_URL=rediscache://…) the cache's own `incr` is atomic. The default cache is the database
cache, whose `incr` reads the value and writes it back: two workers counting at once lose one count, so a limit
of 10 lets 13 through. Then the count lives in a row (storefront.SharedCounter) updated with `count + 1` in SQL
under the row's lock, which no concurrent increment can lose.
"""

from __future__ import annotations

import datetime as dt

from django.core.cache import cache, caches
from django.core.cache.backends.db import DatabaseCache
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from storefront.models import SharedCounter


def _in_database() -> bool:
    return isinstance(caches["default"], DatabaseCache)


def counter_incr(key: str, *, timeout: int, by: int = 1) -> int:
    """Add `by` to `key` (created for `timeout` seconds if absent or expired); the count after it."""
    if not _in_database():
        if cache.add(key, by, timeout=timeout):
            return by
        try:
            return cache.incr(key, by)
        except ValueError:  # expired between add and incr
            cache.add(key, by, timeout=timeout)
            return by
    now = timezone.now()
    for _ in range(3):
        with transaction.atomic():
            if SharedCounter.objects.filter(key=key, expires_at__gt=now).update(count=F("count") + by):
                # Read in the same transaction: the row stays locked by our update until it commits.
                return SharedCounter.objects.values_list("count", flat=True).get(key=key)
        try:
            with transaction.atomic():
                # Expired counters are removed as new ones start, so the table holds only live windows.
                SharedCounter.objects.filter(expires_at__lte=now).delete()
                SharedCounter.objects.create(key=key, count=by, expires_at=now + dt.timedelta(seconds=timeout))
                return by
        except IntegrityError:
            continue  # another process started it first: count in it
    raise RuntimeError(f"counter {key} could not be counted")


def counter_decr(key: str) -> None:
    """Take one back from `key` (an attempt that turned out not to count); nothing when absent, expired or at 0."""
    if not _in_database():
        try:
            if int(cache.get(key) or 0) > 0:
                cache.decr(key)
        except ValueError:  # expired meanwhile
            pass
        return
    SharedCounter.objects.filter(key=key, count__gt=0, expires_at__gt=timezone.now()).update(count=F("count") - 1)


def counter_get(key: str) -> int:
    """The current count of `key`; 0 when absent or expired."""
    if not _in_database():
        return int(cache.get(key) or 0)
    row = SharedCounter.objects.filter(key=key, expires_at__gt=timezone.now()).values_list("count", flat=True)
    return int(row.first() or 0)


def counter_delete(key: str) -> None:
    if not _in_database():
        cache.delete(key)
        return
    SharedCounter.objects.filter(key=key).delete()
