"""Django's Redis cache backend, with one redis-py client per connection pool instead of one per cache call.

Django's client builds a new `redis.Redis` around its pool for every get, set or incr; redis-py 8 fills some 170
response callbacks in each one's constructor. Measured with bench/profile_search.py, that was a third of a new
search's own CPU time (about seven cache calls each). A `redis.Redis` object is safe to share between threads (each
command takes a connection from the pool), so each pool gets one, made on first use. Settings put this backend
in place of Django's when CACHE_URL is `rediscache://…`.

`incr` is one round trip instead of Django's two (EXISTS, then INCRBY): rate limits and the provider's rate guard
increment on every search, and each round trip is a share of a search's own time.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient

# Django's semantics (ValueError for a missing key, never creating it) in one atomic step on the server.
_INCR_IF_EXISTS = """
if redis.call('exists', KEYS[1]) == 1 then return redis.call('incrby', KEYS[1], ARGV[1]) end
return false
"""


class ReusedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}
        self._incr_script: Any = None

    def incr(self, key: Any, delta: int) -> int:
        client = self.get_client(key, write=True)
        if self._incr_script is None:
            # A Script sends EVALSHA, and the script's text only when the server does not know it yet.
            self._incr_script = client.register_script(_INCR_IF_EXISTS)
        value = self._incr_script(keys=[key], args=[delta], client=client)
        if value is None:
            raise ValueError(f"Key '{key}' not found.")
        return int(value)

    # Django's own private helpers, which its stubs leave out: the pool for a read or a write, and redis.Redis.
    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        client = self._clients.get(index)
        if client is None:
            # Two threads may both make one the first time: either serves, the other is dropped.
            pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
            client = self._clients[index] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = ReusedClientRedisCacheClient
