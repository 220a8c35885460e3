"""storefront.resilience.counters: with the database cache (the default), counts live in rows updated in SQL, because
the database cache's own incr reads and writes back (two workers at once lose a count: bench/prod_like.py
saw 13 requests through a limit of 10 before)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import override_settings
from django.utils import timezone

from storefront.models import SharedCounter
from storefront.resilience.counters import counter_delete, counter_get, counter_incr
from storefront.resilience.ratelimit import hit

pytestmark = pytest.mark.django_db

DATABASE_CACHE = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "unused"}}


@override_settings(CACHES=DATABASE_CACHE)
def test_with_the_database_cache_counts_are_rows_incremented_in_sql():
    assert [counter_incr("k", timeout=60) for _ in range(3)] == [1, 2, 3]
    assert counter_get("k") == 3
    assert SharedCounter.objects.get(key="k").count == 3

    counter_delete("k")
    assert counter_get("k") == 0


@override_settings(CACHES=DATABASE_CACHE)
def test_an_expired_counter_starts_again_and_old_ones_are_cleared():
    counter_incr("old", timeout=60)
    counter_incr("k", timeout=60)
    SharedCounter.objects.update(expires_at=timezone.now() - dt.timedelta(seconds=1))

    assert counter_get("k") == 0
    assert counter_incr("k", timeout=60) == 1
    assert not SharedCounter.objects.filter(key="old").exists()


@override_settings(CACHES=DATABASE_CACHE)
def test_the_rate_limit_counts_in_the_shared_rows():
    waits = [hit("search", "address:203.0.113.9", limit=2, window=60) for _ in range(3)]

    assert waits[:2] == [0, 0] and waits[2] > 0
    assert SharedCounter.objects.filter(key__startswith="ratelimit:search:").get().count == 3


def test_other_caches_count_in_the_cache():
    assert [counter_incr("k", timeout=60) for _ in range(2)] == [1, 2]
    assert not SharedCounter.objects.exists()


@override_settings(CACHES=DATABASE_CACHE)
def test_a_large_limit_is_counted_in_batches_so_most_requests_write_nothing():
    # A limit of 120: each process adds its requests to the shared row twelve at a time.
    assert [hit("search", "a", limit=120, window=60) for _ in range(11)] == [0] * 11
    assert not SharedCounter.objects.exists()
    assert hit("search", "a", limit=120, window=60) == 0
    assert SharedCounter.objects.get().count == 12


@override_settings(CACHES=DATABASE_CACHE)
def test_the_batches_still_stop_a_flood_and_other_processes_counts_are_seen():
    for _ in range(12):
        hit("search", "b", limit=120, window=60)
    # Another process has counted 100 more in the same window.
    SharedCounter.objects.update(count=112)
    outcomes = [hit("search", "b", limit=120, window=60) for _ in range(12)]
    # Its own next batch brings the shared count past the limit: from then on every request is refused.
    assert outcomes[:11] == [0] * 11 and outcomes[11] > 0
    assert hit("search", "b", limit=120, window=60) > 0


@override_settings(CACHES=DATABASE_CACHE)
def test_a_small_limit_is_counted_exactly_on_every_request():
    assert [hit("cart", "c", limit=10, window=60) for _ in range(3)] == [0, 0, 0]
    assert SharedCounter.objects.get().count == 3
