"""Spectator reads computed once per tournament version, never per request (PITFALLS.md).

The key is ``(kind, tournament, version[, more])``. ``Tournament.version`` is bumped in every
recording transaction, so a key never needs invalidating: a new version is a new key, and old
keys expire. What is stored is the finished bytes (a JSON body or an HTML fragment), so a
cached request costs one version lookup and one cache read, with no serialisation.

When a key is missing, one process builds it while the others wait briefly for it (a lock in
the cache with ``add``), so a thousand phones arriving on a new version cause one computation,
not a thousand. :func:`live_cache_warm` builds everything ahead of the crowd when a round is
published (a tab system's public draw page once fell over when released with a cold cache).

Each process also keeps the bodies it read lately (:class:`LocalBodies`, ``LIVE_LOCAL_CACHE_MB``,
64 MB by default, 0 turns it off): a key's bytes never change, so a copy is as good as the
shared cache's, and a read of an unchanged version is a dictionary lookup instead of a Redis
round trip that copies the whole body (2-3 ms for a 5,000-player standings body, which grew
faster than linearly with its size; issue 19). The local key includes the cache's key prefix,
so a copy never outlives a change of cache namespace, and a copy is dropped after ``TIMEOUT``
like the shared one.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache

logger = logging.getLogger(__name__)

# A version is superseded by the next hand, and the current one is read all the time: a short
# life keeps Redis small (a 1,000-player event stores a few MB per version) without rebuilds.
TIMEOUT = 120
LOCK_TIMEOUT = 30
WAIT_SECONDS = 5.0
WAIT_STEP = 0.02


def cache_key(kind: str, tournament_id: int, version: int, *more: object) -> str:
    tail = ":".join(str(m) for m in more)
    return f"live:{kind}:{tournament_id}:{version}" + (f":{tail}" if tail else "")


class LocalBodies:
    """This process's copies of bodies under immutable keys: first in, first out within a byte
    budget, each for at most ``max_age`` seconds. Reads take no lock (one dict lookup)."""

    def __init__(self) -> None:
        self._items: dict[str, tuple[float, bytes]] = {}
        self._size = 0
        self._lock = threading.Lock()

    @staticmethod
    def budget() -> int:
        return int(float(getattr(settings, "LIVE_LOCAL_CACHE_MB", 64)) * 1024 * 1024)

    def get(self, key: str, max_age: float) -> bytes | None:
        item = self._items.get(key)
        if item is None or time.monotonic() - item[0] >= max_age:
            return None
        return item[1]

    def put(self, key: str, value: bytes) -> None:
        budget = self.budget()
        if len(value) > budget // 4:
            return  # one body may not push out everything else
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._size -= len(old[1])
            while self._items and self._size + len(value) > budget:
                oldest = next(iter(self._items))
                self._size -= len(self._items.pop(oldest)[1])
            self._items[key] = (time.monotonic(), value)
            self._size += len(value)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._size = 0

    def __len__(self) -> int:
        return len(self._items)


LOCAL = LocalBodies()


def cached_bytes(key: str, build: Callable[[], bytes]) -> bytes:
    """The bytes under ``key``, built once by whoever gets there first (this process's copy if
    it read them lately)."""
    # The namespace from the settings (the cache's own make_key goes through a context-local
    # lookup that cost more than the rest of a local hit).
    local_key = f"{settings.CACHES['default'].get('KEY_PREFIX', '')}:{key}"
    body = LOCAL.get(local_key, TIMEOUT)
    if body is not None:
        return body
    body = _shared_bytes(key, build)
    LOCAL.put(local_key, body)
    return body


def _shared_bytes(key: str, build: Callable[[], bytes]) -> bytes:
    """The bytes under ``key`` in the shared cache, built once by whoever gets there first."""
    value = cache.get(key)
    if value is not None:
        return bytes(value)
    lock = f"{key}:lock"
    if not cache.add(lock, 1, LOCK_TIMEOUT):
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            time.sleep(WAIT_STEP)
            value = cache.get(key)
            if value is not None:
                return bytes(value)
        logger.warning("live cache: gave up waiting for %s, building it too", key)
    try:
        value = build()
        cache.set(key, value, TIMEOUT)
    finally:
        cache.delete(lock)
    return value
