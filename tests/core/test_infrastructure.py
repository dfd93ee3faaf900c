"""The suite really talks to Redis: a Celery task through the real broker to a real worker
process, and a round trip through the Redis channel layer (Foundation issue)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings

from config.celery_app import app as celery_app
from core.tasks import ping

# Real PostgreSQL/Redis behaviour: skipped in the embedded run (TEST_DATABASE=sqlite).
pytestmark = [pytest.mark.postgres, pytest.mark.redis]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def real_worker() -> Iterator[str]:
    """A Celery worker in its own process, consuming a queue private to this test."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "CELERY_TASK_ALWAYS_EAGER": "false",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config.celery_app",
            "worker",
            "--pool=solo",
            "--concurrency=1",
            "-Q",
            queue,
            "--without-gossip",
            "--without-mingle",
            "--loglevel=WARNING",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        yield queue
    finally:
        celery_app.conf.task_always_eager = eager
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_celery_task_runs_in_a_real_worker_through_redis(real_worker: str) -> None:
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    token = uuid.uuid4().hex
    result = ping.apply_async(args=(token,), queue=real_worker).get(timeout=60)
    assert result["token"] == token
    assert result["pid"] != os.getpid()  # it ran in the worker process, not here


def test_channel_layer_round_trip_through_redis() -> None:
    layer = get_channel_layer()
    assert type(layer).__module__.startswith("channels_redis")

    async def round_trip() -> dict[str, object]:
        channel = await layer.new_channel()
        group = f"test-{uuid.uuid4().hex[:8]}"
        await layer.group_add(group, channel)
        await layer.group_send(group, {"type": "hand.recorded", "version": 7})
        message: dict[str, object] = await layer.receive(channel)
        await layer.group_discard(group, channel)
        return message

    assert async_to_sync(round_trip)() == {"type": "hand.recorded", "version": 7}


@pytest.mark.django_db(transaction=True)
def test_broadcast_on_commit_reaches_a_group_only_after_commit() -> None:
    from django.db import transaction

    from core import broadcast

    layer = get_channel_layer()
    group = f"test-{uuid.uuid4().hex[:8]}"
    sent: list[object] = []
    original = broadcast.group_send_now

    def spy(groups: list[str], event: dict[str, object]) -> object:
        future = original(groups, event)
        sent.append(future)
        return future

    async def subscribe() -> str:
        channel: str = await layer.new_channel()
        await layer.group_add(group, channel)
        return channel

    channel = async_to_sync(subscribe)()
    broadcast.group_send_now = spy  # type: ignore[assignment]
    try:
        with transaction.atomic():
            broadcast.broadcast_on_commit([group], {"type": "match.update", "version": 3})
            assert sent == []  # nothing leaves before commit
        assert len(sent) == 1
        future = sent[0]
        assert future is not None
        future.result(timeout=5)  # type: ignore[attr-defined]
    finally:
        broadcast.group_send_now = original  # type: ignore[assignment]

    async def receive() -> dict[str, object]:
        message: dict[str, object] = await layer.receive(channel)
        return message

    assert async_to_sync(receive)() == {"type": "match.update", "version": 3}


def test_a_send_the_sender_cannot_make_is_answered_and_the_next_one_goes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No channel layer on the sender's thread (a broken configuration): the events' waiters
    get the error instead of waiting forever, and the sender keeps going for later events.
    The error used to end the drain with the batch's waiters never answered."""
    import threading

    from core import broadcast

    real = broadcast.get_channel_layer
    broken = [True]

    def layer_or_failure(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread().name == "broadcast" and broken:
            broken.pop()
            raise RuntimeError("no channel layer")
        return real(*args, **kwargs)

    monkeypatch.setattr(broadcast, "get_channel_layer", layer_or_failure)
    group = f"test-{uuid.uuid4().hex[:8]}"
    failed = broadcast.group_send_now([group], {"type": "t", "i": 1})
    assert failed is not None
    with pytest.raises(RuntimeError, match="no channel layer"):
        failed.result(timeout=5)
    sent = broadcast.group_send_now([group], {"type": "t", "i": 2})
    assert sent is not None
    sent.result(timeout=5)


@pytest.mark.django_db(transaction=True)
def test_broadcast_is_dropped_when_the_transaction_rolls_back() -> None:
    from django.db import transaction

    from core import broadcast

    calls: list[object] = []
    original = broadcast.group_send_now
    broadcast.group_send_now = lambda g, e: calls.append((g, e))  # type: ignore[assignment,func-returns-value]
    try:
        with pytest.raises(RuntimeError), transaction.atomic():  # noqa: PT012 - rollback
            broadcast.broadcast_on_commit(["g"], {"type": "match.update"})
            raise RuntimeError("rollback")
    finally:
        broadcast.group_send_now = original  # type: ignore[assignment]
    assert calls == []


def test_concurrent_broadcasts_all_arrive_in_order_batched_per_group() -> None:
    """Many request threads broadcasting at once: the sender drains its queue group by group,
    so what queued up while it was sending leaves as ONE batch message per group (fewer,
    uncontended sends). Every event still arrives, in each thread's order, through
    ``unbatch``, on the real Redis layer."""
    import threading

    from core import broadcast

    layer = get_channel_layer()
    shared = f"test-{uuid.uuid4().hex[:8]}"
    own = [f"{shared}-{i}" for i in range(4)]

    async def subscribe(group: str) -> str:
        channel: str = await layer.new_channel()
        await layer.group_add(group, channel)
        return channel

    channels = {g: async_to_sync(subscribe)(g) for g in [shared, *own]}
    futures: list[object] = []
    start = threading.Barrier(len(own))

    def referee(i: int) -> None:
        start.wait()
        for version in range(1, 26):
            event = {"type": "match.update", "match_id": i, "version": version}
            futures.append(broadcast.group_send_now([own[i], shared], event))

    threads = [threading.Thread(target=referee, args=(i,)) for i in range(len(own))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for f in futures:
        f.result(timeout=10)  # type: ignore[attr-defined]

    async def drain(channel: str) -> tuple[int, list[dict[str, object]]]:
        messages = 0
        events: list[dict[str, object]] = []
        while True:
            try:
                message = await asyncio.wait_for(layer.receive(channel), timeout=0.5)
            except TimeoutError:
                return messages, events
            messages += 1
            events += broadcast.unbatch(message)

    messages, events = async_to_sync(drain)(channels[shared])
    assert len(events) == 100
    assert messages < 100  # batched: the threads outran the sender
    for i in range(len(own)):
        mine = [e["version"] for e in events if e["match_id"] == i]
        assert mine == list(range(1, 26))
        _, own_events = async_to_sync(drain)(channels[own[i]])
        assert [e["version"] for e in own_events] == list(range(1, 26))


def test_the_sender_sends_a_lone_event_at_once_and_coalesces_what_follows(
    settings: Any,
) -> None:
    """LIVE_BROADCAST_LINGER_MS (production: 50): the first event of a quiet spell leaves at
    once; a burst from request threads within the window after it leaves as ONE message per
    group when the window ends (at most one send per window); nothing is lost or reordered;
    after a quiet spell the next event again leaves at once. On the real Redis layer."""
    import threading
    import time

    from core import broadcast

    linger = 0.6
    settings.LIVE_BROADCAST_LINGER_MS = int(linger * 1000)
    layer = get_channel_layer()
    group = f"test-{uuid.uuid4().hex[:8]}"

    async def subscribe() -> str:
        channel: str = await layer.new_channel()
        await layer.group_add(group, channel)
        return channel

    channel = async_to_sync(subscribe)()

    started = time.monotonic()
    broadcast.group_send_now([group], {"type": "t", "i": 0, "n": -1}).result(timeout=10)
    assert time.monotonic() - started < linger  # a lone event does not wait the window

    futures: list[Any] = []

    def referee(i: int) -> None:
        for n in range(5):
            futures.append(broadcast.group_send_now([group], {"type": "t", "i": i, "n": n}))

    threads = [threading.Thread(target=referee, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for f in futures:
        f.result(timeout=10)
    assert time.monotonic() - started >= linger  # the burst waited for the window to end

    async def receive_all() -> list[dict[str, Any]]:
        messages = []
        while True:
            try:
                messages.append(await asyncio.wait_for(layer.receive(channel), timeout=0.5))
            except TimeoutError:
                return messages

    def quiet_then_one_more() -> float:
        time.sleep(linger)  # the window after the burst's send passes with nothing to send
        sent = time.monotonic()
        broadcast.group_send_now([group], {"type": "t", "i": 9, "n": 0}).result(timeout=10)
        return time.monotonic() - sent

    async def scenario() -> tuple[list[dict[str, Any]], float, list[dict[str, Any]]]:
        first_and_burst = await receive_all()
        took = await sync_to_async(quiet_then_one_more)()
        return first_and_burst, took, await receive_all()

    first_and_burst, took, later = async_to_sync(scenario)()
    assert len(first_and_burst) == 2  # the lone event, then the burst as one message
    assert broadcast.unbatch(first_and_burst[0]) == [{"type": "t", "i": 0, "n": -1}]
    events = broadcast.unbatch(first_and_burst[1])
    assert len(events) == 20
    for i in range(4):
        assert [e["n"] for e in events if e["i"] == i] == list(range(5))
    assert took < linger  # quiet again: it left at once, a message of its own
    assert [broadcast.unbatch(m) for m in later] == [[{"type": "t", "i": 9, "n": 0}]]
