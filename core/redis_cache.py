"""Django's Redis cache with one Redis client per connection pool instead of one per operation.

``django.core.cache.backends.redis.RedisCacheClient.get_client`` builds a new ``redis.Redis``
for every cache operation. The connections come from the pool either way, but building the
client object fills its table of ~170 response callbacks each time: on a recorded hand that
was the largest single cost in the request after the database (the session is read from this
cache on every request; ``bench/bench_hands.py``). A ``redis.Redis`` is safe to share between
threads (each command takes a connection from the pool), and the pool notices a fork and
reconnects, so one client per pool is kept for the life of the cache object (Django keeps
one cache object per thread).
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class ReusedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        base: Any = self  # the private helpers below are Django's, absent from its stubs
        index = base._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = base._client(connection_pool=base._get_connection_pool(write))
            self._clients[index] = client
        return client


class ReusedClientRedisCache(RedisCache):
    """``django.core.cache.backends.redis.RedisCache`` whose client object is reused."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = ReusedClientRedisCacheClient
