"""The shared cache as an optimisation, never a dependency of a page: Redis, or this process's own memory while Redis
cannot be reached.

Settings put this backend in place of Django's RedisCache (CACHE_URL=rediscache://…). While Redis answers, it is
Django's RedisCache, configured through its public OPTIONS. When a call fails (refused,
reset, timed out), the process says so once in the log and serves every cache call from its own memory (a
LocMemCache shared by its threads): cached answers are asked for again, rate limits and throttles count per process
(the limiter still works, only less shared), and nothing the customer does fails. Every few seconds one call tries
Redis again; its first answer ends the fallback (logged), so Redis coming back needs no restart.

What must survive a cache outage is not kept in the cache alone: sessions live in the database (Django's `db` or
`cached_db` engine, the latter through SessionCopiesCache below), and one-time claims are database rows
(storefront.background.claims). allauth marks a used two-factor code with a cache `add`: while Redis is away that claim
is taken in the database, so no process accepts the code twice.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

logger = logging.getLogger("storefront.resilience.cache")

# How long a process serves from its own memory before one call tries Redis again.
RETRY_SECONDS = 5.0
# Redis on the same network answers in a millisecond: a call waiting longer than this is a failure, not a slow answer.
CONNECT_TIMEOUT_SECONDS = 0.5
READ_TIMEOUT_SECONDS = 1.0
# allauth's claim on a used two-factor code (allauth.mfa.totp): one-time, so shared by every process even now.
CLAIMS_IN_DATABASE = ("allauth.mfa.totp.used",)


class _Outage:
    """Whether this process is serving from its own memory, and when it next asks Redis. One per process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.down = False
        self._retry_at = 0.0

    def skip_redis(self) -> bool:
        # Read without the lock: a stale answer costs one call either way.
        return self.down and time.monotonic() < self._retry_at

    def failed(self, err: Exception) -> None:
        with self._lock:
            self._retry_at = time.monotonic() + RETRY_SECONDS
            if self.down:
                return
            self.down = True
        _local().clear()  # whatever it held is from before the last outage
        logger.warning(
            "cache unreachable (%s): this process serves cached answers from its own memory and counts rate "
            "limits on its own (a per-process limiter) until Redis answers again",
            type(err).__name__,
        )

    def answered(self) -> None:
        if not self.down:
            return
        with self._lock:
            if not self.down:
                return
            self.down = False
        logger.warning("cache reachable again: back to the shared cache (Redis)")


_outage = _Outage()


def cache_degraded() -> bool:
    """Whether this process is serving from its own memory because the shared cache cannot be reached."""
    return _outage.down


def _local() -> LocMemCache:
    # Django builds a backend per thread; LocMemCache keeps its entries per LOCATION, so this process's threads share
    # one memory.
    return LocMemCache("storefront-cache-fallback", {"TIMEOUT": 300, "OPTIONS": {"MAX_ENTRIES": 10_000}})


class FallbackRedisCache(RedisCache):
    """Django's RedisCache, or this process's memory while Redis cannot be reached (see the module's docstring)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS") or {})
        options.setdefault("socket_connect_timeout", CONNECT_TIMEOUT_SECONDS)
        options.setdefault("socket_timeout", READ_TIMEOUT_SECONDS)
        # No retries inside the client: a failure falls back at once, and the next try is RETRY_SECONDS away.
        options.setdefault("retry", Retry(NoBackoff(), 0))
        super().__init__(server, {**params, "OPTIONS": options})

    def _either(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if not _outage.skip_redis():
            try:
                answer = getattr(RedisCache, name)(self, *args, **kwargs)
            except RedisError as err:
                _outage.failed(err)
            else:
                _outage.answered()
                return answer
        return getattr(_local(), name)(*args, **kwargs)

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        if not str(key).startswith(CLAIMS_IN_DATABASE):
            return bool(self._either("add", key, value, timeout, version))
        if not _outage.skip_redis():
            try:
                claimed = RedisCache.add(self, key, value, timeout, version)
            except RedisError as err:
                _outage.failed(err)
            else:
                _outage.answered()
                return bool(claimed)
        from storefront.background.claims import claim_once  # models: imported when first needed, not with the settings

        return claim_once(key=f"cache:{key}", seconds=self.get_backend_timeout(timeout) or 300)

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        return self._either("get", key, default, version)

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> None:
        self._either("set", key, value, timeout, version)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return bool(self._either("touch", key, timeout, version))

    def delete(self, key: Any, version: int | None = None) -> bool:
        return bool(self._either("delete", key, version))

    def get_many(self, keys: Any, version: int | None = None) -> dict[Any, Any]:
        return dict(self._either("get_many", keys, version))

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return bool(self._either("has_key", key, version))

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        return int(self._either("incr", key, delta, version))

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> list[Any]:
        return list(self._either("set_many", data, timeout, version) or [])

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        self._either("delete_many", keys, version)

    def clear(self) -> None:
        self._either("clear")


# How long a session's copy in Redis lives (seconds) at most: the longest a session ended during a Redis outage (its
# copy could not be deleted then) can be read back once Redis answers again. An hour's visit costs one SQL read a
# minute.
SESSION_COPY_SECONDS = 60


class SessionCopiesCache(FallbackRedisCache):
    """The cache behind Django's `cached_db` sessions (settings: SESSION_CACHE_ALIAS) when the cache is Redis.

    Copies live SESSION_COPY_SECONDS at most; while Redis is away nothing is copied into, or read from, this
    process's own memory, where another process's sign-out could not reach it: each read goes to the database."""

    def _copy_seconds(self, timeout: Any) -> int:
        seconds = self.get_backend_timeout(timeout)
        return SESSION_COPY_SECONDS if seconds is None else min(int(seconds), SESSION_COPY_SECONDS)

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        return default if cache_degraded() else super().get(key, default, version)

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return not cache_degraded() and super().has_key(key, version)

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> None:
        if not cache_degraded():
            super().set(key, value, self._copy_seconds(timeout), version)

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return not cache_degraded() and super().add(key, value, self._copy_seconds(timeout), version)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return not cache_degraded() and super().touch(key, self._copy_seconds(timeout), version)
