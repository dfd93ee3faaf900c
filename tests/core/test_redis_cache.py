"""The Redis cache keeps one client per connection pool (core.redis_cache), on the real Redis."""

from __future__ import annotations

import threading
import uuid

import pytest
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCacheClient

from core.redis_cache import ReusedClientRedisCache

pytestmark = [pytest.mark.redis]


def test_the_configured_cache_reuses_its_client() -> None:
    default = caches["default"]
    assert isinstance(default, ReusedClientRedisCache)
    client = default._cache
    # Django's own client builds a new redis.Redis on every operation.
    assert RedisCacheClient.get_client(client) is not RedisCacheClient.get_client(client)
    assert client.get_client() is client.get_client()
    assert client.get_client(write=True) is client.get_client("any-key", write=True)


def test_operations_work_and_share_the_client_across_threads() -> None:
    key = f"test-redis-cache-{uuid.uuid4()}"
    seen: list[object] = []
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            own = caches.create_connection("default")  # Django keeps one cache object a thread
            own.set(f"{key}-{i}", {"n": i}, 30)
            assert own.get(f"{key}-{i}") == {"n": i}
            assert own.incr(f"{key}-count", 1) >= 1
            seen.append(own._cache.get_client())
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    cache.set(f"{key}-count", 0, 30)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert cache.get(f"{key}-count") == 8
    assert cache.get_many([f"{key}-{i}" for i in range(8)]) == {
        f"{key}-{i}": {"n": i} for i in range(8)
    }
    assert len({id(c) for c in seen}) == 8  # one cache object, and client, per thread
    cache.delete_many([f"{key}-{i}" for i in range(8)] + [f"{key}-count"])
