"""Spectator reads computed once per tournament version, never per request (PITFALLS.md).

The key is ``(kind, tournament, version[, more])``. ``Tournament.version`` is bumped in every
recording transaction, so a key never needs invalidating: a new version is a new key, and old
keys expire. What is stored is the finished bytes (a JSON body or an HTML fragment), so a
cached request costs one version lookup and one cache read, with no serialisation.

When a key is missing, one process builds it while the others wait briefly for it (a lock in
the cache with ``add``), so a thousand phones arriving on a new version cause one computation,
not a thousand. :func:`live_cache_warm` builds everything ahead of the crowd when a round is
published (a tab system's public draw page once fell over when released with a cold cache).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

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


def cached_bytes(key: str, build: Callable[[], bytes]) -> bytes:
    """The bytes under ``key``, built once by whoever gets there first."""
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
