"""Sessions kept in the database, read in one plain SQL statement, and read through Redis when the cache is Redis:
Django's `cached_db` engine, with short cache copies. Settings choose this engine whatever the cache.

Every signed-in page reads its session. With Redis that is one round trip instead of an SQL query; with the
database cache, the default, nothing is copied (reading the cache table would cost as much as the session table),
and the session row is read with one plain SQL statement, not an ORM query: building that query cost several
times running it (measured with bench/profile_search.py: docs/benchmarks.md).

The database stays the record, so a cache outage loses no session (storefront/cache.py). Two guards keep a
session that was ended (sign-out, a password change) from being read back from a copy:
- a copy lives at most COPY_SECONDS, so one that a deletion could not reach (Redis away at that moment) is gone
  within that time;
- while Redis is away, sessions are not copied into the process's own memory, where another process's sign-out
  could not reach them: each read goes to the database.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.sessions.backends import cached_db
from django.contrib.sessions.models import Session
from django.core.cache import caches
from django.core.cache.backends.dummy import DummyCache
from django.utils import timezone

from storefront.cache import FallbackRedisCache, cache_degraded
from storefront.model_reads import model_row_read

# How long a copy in the cache lives (seconds) at most: the longest a session ended during a Redis outage can be
# read back once Redis answers again. A customer active for an hour costs one SQL read a minute.
COPY_SECONDS = 60


class _Copies:
    """The cache, for session copies only: timeouts capped, and nothing kept or read while the cache is degraded."""

    def __init__(self, cache: Any) -> None:
        self._cache = cache

    def get(self, key: str) -> Any:
        return None if cache_degraded() else self._cache.get(key)

    def set(self, key: str, value: Any, timeout: int | None) -> None:
        if not cache_degraded():
            self._cache.set(key, value, min(timeout or COPY_SECONDS, COPY_SECONDS))

    def delete(self, key: str) -> None:
        self._cache.delete(key)  # also while degraded: this process's own copy, if any, goes too

    def __contains__(self, key: str) -> bool:
        return not cache_degraded() and key in self._cache


# With the database cache no copies are kept: Django's dummy cache keeps nothing (and holds no state to share).
_NO_COPIES = DummyCache("session-copies", {})


class SessionStore(cached_db.SessionStore):
    def __init__(self, session_key: str | None = None) -> None:
        super().__init__(session_key)
        cache = caches[settings.SESSION_CACHE_ALIAS]
        self._cache = _Copies(cache) if isinstance(cache, FallbackRedisCache) else _NO_COPIES

    def _get_session_from_db(self) -> Session | None:
        """Django's read (the session unless it has expired; None, and no key, otherwise) in one SQL statement."""
        found = model_row_read(
            Session, ("session_key", "=", str(self.session_key)), ("expire_date", ">", timezone.now())
        )
        if found is None:
            self._session_key = None
        return found
