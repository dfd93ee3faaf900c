"""The live cache's process-local copies (issue 19): a read of an unchanged version is served
from this process without a shared-cache round trip, within a byte budget and the shared
cache's lifetime, and never across cache namespaces."""

from __future__ import annotations

import copy
import uuid
from typing import Any

import pytest

from live import cache as live_cache
from live.cache import LOCAL, LocalBodies, cached_bytes


@pytest.fixture(autouse=True)
def _empty_local() -> None:
    LOCAL.clear()


class Counting:
    """A build that counts its calls."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.calls = 0

    def __call__(self) -> bytes:
        self.calls += 1
        return self.body


def test_a_repeated_read_is_served_locally_without_the_shared_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = f"test:{uuid.uuid4().hex}"
    build = Counting(b'{"rows":[1,2,3]}')
    assert cached_bytes(key, build) == build.body
    shared_reads: list[str] = []
    real = live_cache._shared_bytes

    def counted(k: str, b: Any) -> bytes:
        shared_reads.append(k)
        return real(k, b)

    monkeypatch.setattr(live_cache, "_shared_bytes", counted)
    for _ in range(3):
        assert cached_bytes(key, build) == build.body
    assert build.calls == 1
    assert shared_reads == []


def test_another_process_reads_the_shared_copy_and_keeps_its_own() -> None:
    key = f"test:{uuid.uuid4().hex}"
    build = Counting(b"built once")
    cached_bytes(key, build)
    LOCAL.clear()  # as a second process would start: nothing local, the shared copy is there
    assert cached_bytes(key, build) == b"built once"
    assert build.calls == 1
    assert len(LOCAL) == 1


def test_a_local_copy_expires_with_the_shared_lifetime(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1000.0]
    monkeypatch.setattr(live_cache.time, "monotonic", lambda: now[0])
    bodies = LocalBodies()
    bodies.put("k", b"v")
    now[0] += live_cache.TIMEOUT - 1
    assert bodies.get("k", live_cache.TIMEOUT) == b"v"
    now[0] += 1
    assert bodies.get("k", live_cache.TIMEOUT) is None


def test_the_byte_budget_drops_the_oldest_first(settings: Any) -> None:
    settings.LIVE_LOCAL_CACHE_MB = 1  # 1 MiB: bodies of up to 256 KiB are kept
    bodies = LocalBodies()
    kib = 1024
    for i in range(5):
        bodies.put(f"k{i}", bytes(250 * kib))
    assert [bodies.get(f"k{i}", 60) is not None for i in range(5)] == [
        False,
        True,
        True,
        True,
        True,
    ]
    bodies.put("big", bytes(300 * kib))  # over a quarter of the budget: never kept locally
    assert bodies.get("big", 60) is None
    assert bodies.get("k4", 60) is not None


def test_no_budget_means_no_local_copies(settings: Any) -> None:
    settings.LIVE_LOCAL_CACHE_MB = 0
    key = f"test:{uuid.uuid4().hex}"
    build = Counting(b"x")
    cached_bytes(key, build)
    assert len(LOCAL) == 0
    assert cached_bytes(key, build) == b"x"
    assert build.calls == 1  # the shared cache still has it


def test_a_copy_never_crosses_cache_namespaces(settings: Any) -> None:
    """Tests (and deployments) that change the key prefix see their own bodies only."""
    key = "test:same-key"
    assert cached_bytes(key, Counting(b"first namespace")) == b"first namespace"
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["KEY_PREFIX"] = f"other-{uuid.uuid4().hex}"
    settings.CACHES = caches
    assert cached_bytes(key, Counting(b"second namespace")) == b"second namespace"
