"""The Redis cache backend reuses one client per connection pool (storefront/redis_cache.py), and still caches."""

from __future__ import annotations

import socket
import uuid

import pytest

from storefront.cache import FallbackRedisCache
from storefront.redis_cache import RedisCache
from tests.settings_env import settings_with


def _redis_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.mark.skipif(not _redis_answers(), reason="needs Redis on 127.0.0.1:6379")
def test_one_client_serves_every_call_and_values_round_trip():
    # A prefix of its own: the server may be shared.
    cache = RedisCache("redis://127.0.0.1:6379/0", {"KEY_PREFIX": f"test-{uuid.uuid4().hex}"})
    try:
        assert cache._cache.get_client() is cache._cache.get_client()
        assert cache._cache.get_client(write=True) is cache._cache.get_client(write=True)
        cache.set("answer", {"rows": [1, 2]}, 30)
        assert cache.get("answer") == {"rows": [1, 2]}
        assert cache.add("counter", 1, 30) and cache.incr("counter", 4) == 5
    finally:
        cache.delete_many(["answer", "counter"])


@pytest.mark.skipif(not _redis_answers(), reason="needs Redis on 127.0.0.1:6379")
def test_incr_keeps_djangos_rules_in_one_step():
    cache = RedisCache("redis://127.0.0.1:6379/0", {"KEY_PREFIX": f"test-{uuid.uuid4().hex}"})
    try:
        with pytest.raises(ValueError):
            cache.incr("absent")
        assert cache.get("absent") is None  # a missing key is not created by counting it
        cache.set("counter", 10, 30)
        assert cache.incr("counter") == 11 and cache.incr("counter", -3) == 8
        assert cache.get("counter") == 8  # still a number Django reads back
        key = cache.make_and_validate_key("counter")
        assert 0 < cache._cache.get_client(key).ttl(key) <= 30  # counting keeps the window's expiry
    finally:
        cache.delete_many(["absent", "counter"])


def test_settings_put_it_in_place_of_djangos_under_the_fallback():
    caches = settings_with(DJANGO_DEBUG="true", CACHE_URL="rediscache://127.0.0.1:6379/0")["CACHES"]
    # The backend that falls back to the process's memory while Redis is away (storefront/cache.py), built on this one.
    assert caches["default"]["BACKEND"] == "storefront.cache.FallbackRedisCache"
    assert issubclass(FallbackRedisCache, RedisCache)
