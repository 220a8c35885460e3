"""Sessions kept in the database, read in one plain SQL statement, and read through Redis when the cache is Redis:
Django's `cached_db` engine, with short cache copies. Settings choose this engine whatever the cache.

Every signed-in page reads its session. With Redis that is one round trip instead of an SQL query; with the
database cache, the default, nothing is copied (reading the cache table would cost as much as the session table),
and the session row is read with one plain SQL statement, not an ORM query: building that query cost several
times running it (measured with bench/profile_search.py: README "Benchmarks").

The database stays the record, so a cache outage loses no session (storefront/cache.py). Two guards keep a
session that was ended (sign-out, a password change) from being read back from a copy:
- a copy lives at most COPY_SECONDS, so one that a deletion could not reach (Redis away at that moment) is gone
  within that time;
- while Redis is away, sessions are not copied into the process's own memory, where another process's sign-out
  could not reach them: each read goes to the database.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.sessions.backends import cached_db
from django.contrib.sessions.models import Session
from django.core.cache import caches
from django.db import connections, router
from django.utils import timezone

from storefront.cache import FallbackRedisCache, cache_degraded

# How long a copy in the cache lives (seconds) at most: the longest a session ended during a Redis outage can be
# read back once Redis answers again. A customer active for an hour costs one SQL read a minute.
COPY_SECONDS = 60


class _Copies:
    """The cache, for session copies only: Redis alone (else nothing is kept), timeouts capped, and nothing kept or
    read while the cache is degraded."""

    def __init__(self, cache: Any) -> None:
        self._cache = cache if isinstance(cache, FallbackRedisCache) else None

    def get(self, key: str) -> Any:
        return None if self._cache is None or cache_degraded() else self._cache.get(key)

    def set(self, key: str, value: Any, timeout: int | None) -> None:
        if self._cache is not None and not cache_degraded():
            self._cache.set(key, value, min(timeout or COPY_SECONDS, COPY_SECONDS))

    def delete(self, key: str) -> None:
        if self._cache is not None:
            self._cache.delete(key)  # also while degraded: this process's own copy, if any, goes too

    def __contains__(self, key: str) -> bool:
        return self._cache is not None and not cache_degraded() and key in self._cache


class SessionStore(cached_db.SessionStore):
    def __init__(self, session_key: str | None = None) -> None:
        super().__init__(session_key)
        self._cache = _Copies(caches[settings.SESSION_CACHE_ALIAS])

    def _get_session_from_db(self) -> Session | None:
        """Django's read (the session unless it has expired; None, and no key, otherwise) in one SQL statement."""
        found = _session_row(str(self.session_key))
        if found is None:
            self._session_key = None
            return None
        return Session(session_key=str(self.session_key), session_data=found[0], expire_date=found[1])


def _session_row(key: str) -> tuple[str, datetime] | None:
    """The session's data and expiry, unless it has expired. Names come from the model, and the expiry goes in and
    comes out through the field and the backend's converters, as the ORM's compiler does."""
    meta = Session._meta
    connection = connections[router.db_for_read(Session)]
    quote = connection.ops.quote_name
    data, expire = meta.get_field("session_data"), meta.get_field("expire_date")
    key_column = meta.get_field("session_key").column
    sql = (
        f"SELECT {quote(data.column)}, {quote(expire.column)} FROM {quote(meta.db_table)} "  # noqa: S608 - model names
        f"WHERE {quote(key_column)} = %s AND {quote(expire.column)} > %s"
    )
    now = expire.get_db_prep_value(timezone.now(), connection, prepared=False)
    with connection.cursor() as cursor:
        cursor.execute(sql, [key, now])
        row = cursor.fetchone()
    if row is None:
        return None
    column = expire.get_col(meta.db_table)
    expiry = row[1]
    for converter in (*connection.ops.get_db_converters(column), *column.get_db_converters(connection)):
        expiry = converter(expiry, column, connection)
    return row[0], expiry
