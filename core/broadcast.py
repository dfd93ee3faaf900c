"""Send live events to Channels groups after the surrounding transaction commits.

Only services call this (STYLE.md, Zulip's rule): views, serializers and consumers never
broadcast domain events. When there is no transaction the event is sent at once. A failing
channel layer never breaks the write that caused the event: the channel layer is at-most-once
anyway and clients re-fetch on a version gap (PITFALLS.md).

Why a sender thread: ``async_to_sync(layer.group_send)`` called from a sync worker builds a new
event loop per call, and channels-redis keeps its connection pools per loop, so every hand paid
for a fresh Redis connection and the request waited for it. With a Redis layer, events are
handed to one long-lived event loop per process that owns the layer's connections; the request
does not wait for delivery. The in-memory layer (embedded demo) is bound to the server's own
loop, so it keeps ``async_to_sync``, which runs the send on the server's loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from concurrent.futures import Future
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)


BATCH = "broadcast.batch"
"""Type of a message carrying several events for one group, in order: ``{"type": BATCH,
"events": [...]}``. Receivers (``live.hub``) unpack it with :func:`unbatch`."""


def unbatch(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The events in a message received from a group (one, or a batch's, in order)."""
    if message.get("type") == BATCH:
        return list(message.get("events") or [])
    return [message]


class _SenderLoop:
    """One daemon thread per process running an event loop dedicated to group sends.

    Request threads queue events per group (a lock and an append: they never wait for
    Redis). The first event of a quiet spell schedules ONE drain on the loop, which sends it at
    once. Whatever queues up in the ``LIVE_BROADCAST_LINGER_MS`` after a send leaves together
    at the end of that window, as one message per group (a batch when there are several), and
    so on while events keep coming: at most one send per group per window, and a lone event
    never waits. Events of a group leave in the order they were queued, and every queued event
    is sent (a failing channel layer is logged, not retried: clients catch up by version).

    Why: a ``group_send`` costs a fixed amount of CPU in channels-redis whatever it carries,
    and waking the loop for every event costs more again, so one send per hand is a large
    share of a recorded hand's CPU (bench/bench_hands.py). Coalescing a burst over a few tens
    of milliseconds, far below what a spectator notices, folds a busy tournament's hands into a
    few sends per second, while a quiet tournament's hand reaches spectators without the wait
    (bench/bench_live_fanout.py measures it against a floor that does not linger).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pid: int | None = None
        # Guarded by _lock:
        self._pending: dict[str, list[dict[str, Any]]] = {}
        self._waiters: list[Future[None]] = []
        self._scheduled = False
        # The running drain: asyncio keeps only a weak reference to a task, and a drain
        # collected mid-send would leave the sender "scheduled" with nobody draining.
        self._drains: set[asyncio.Task[None]] = set()
        # Loop time before which the next send waits (the end of the last send's window);
        # only the drain task touches it.
        self._next_send = 0.0

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            # A forked worker (gunicorn --preload) inherits the object but not the thread.
            if self._loop is None or self._pid != os.getpid():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="broadcast", daemon=True)
                thread.start()
                self._loop, self._pid = loop, os.getpid()
                self._pending, self._waiters, self._scheduled = {}, [], False
                self._drains = set()
                self._next_send = 0.0
            return self._loop

    def submit(self, groups: list[str], event: dict[str, Any]) -> Future[None]:
        """Queue ``event`` for ``groups``; the future resolves once it has been sent."""
        future: Future[None] = Future()
        loop = self.loop()
        with self._lock:
            for group in groups:
                self._pending.setdefault(group, []).append(event)
            self._waiters.append(future)
            if self._scheduled:
                return future
            self._scheduled = True
        loop.call_soon_threadsafe(self._start_drain)
        return future

    def _start_drain(self) -> None:
        task = asyncio.get_running_loop().create_task(self._drain())
        self._drains.add(task)
        task.add_done_callback(self._drains.discard)

    async def _drain(self) -> None:
        linger = max(0.0, float(getattr(settings, "LIVE_BROADCAST_LINGER_MS", 0))) / 1000
        try:
            while await self._send_pending(linger):
                pass
        except BaseException:
            # Never leave the sender "scheduled" with nobody draining: the next event
            # starts a new drain. (Only the loop's shutdown cancels a drain; a batch cut off
            # mid-send then leaves its waiters unresolved, like the events themselves.)
            with self._lock:
                self._scheduled = False
            raise

    async def _send_pending(self, linger: float) -> bool:
        """Wait for the end of the last send's window (not at all after a quiet spell), then
        send what queued up; False (and unscheduled) when nothing had."""
        loop = asyncio.get_running_loop()
        wait = self._next_send - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        with self._lock:
            batch, self._pending = self._pending, {}
            waiters, self._waiters = self._waiters, []
            if not batch and not waiters:
                self._scheduled = False
                return False
        # The window opens when this send starts: events queued during it and up to
        # ``linger`` after wait for the next pass, which then sends them together.
        self._next_send = loop.time() + linger
        error: BaseException | None = None
        try:
            layer = get_channel_layer()
        except Exception as exc:  # a misconfigured layer: say so to every waiter, never hang
            logger.error("broadcast: no channel layer", exc_info=exc)
            layer, batch, error = None, {}, exc
        for group, events in batch.items():
            message = events[0] if len(events) == 1 else {"type": BATCH, "events": events}
            try:
                if layer is not None:
                    await layer.group_send(group, message)
            except Exception as exc:  # one group failing must not starve the others
                # The writes already committed; clients catch up by version.
                logger.error("broadcast to %s failed", group, exc_info=exc)
                error = exc
        for waiter in waiters:
            if error is None:
                waiter.set_result(None)
            else:
                waiter.set_exception(error)
        return True


async def _send_all(groups: list[str], event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for group in groups:
        await layer.group_send(group, event)


_sender = _SenderLoop()


def _uses_sender_thread() -> bool:
    layer = get_channel_layer()
    return layer is not None and type(layer).__module__.startswith("channels_redis")


def group_send_now(groups: list[str], event: dict[str, Any]) -> Future[None] | None:
    """Send ``event`` to every group now. Returns the pending delivery for the Redis layer
    (tests may wait on it), ``None`` when the send already happened."""
    if get_channel_layer() is None:
        return None
    if _uses_sender_thread():
        return _sender.submit(groups, event)
    try:
        async_to_sync(_send_all)(groups, event)
    except Exception:
        logger.exception("broadcast to %s failed", groups)
    return None


def broadcast_on_commit(groups: list[str], event: dict[str, Any]) -> None:
    """Queue ``event`` for every group in ``groups``, sent once the transaction commits."""
    transaction.on_commit(lambda: _send_observed(groups, event), robust=True)


def _send_observed(groups: list[str], event: dict[str, Any]) -> None:
    """``group_send_now`` with a log line (carrying the request's id, core.observability) and
    the fan-out latency: commit to the group send finished."""
    from core.observability import BROADCAST_LATENCY

    started = time.perf_counter()
    logger.debug("live event %s queued for %d groups", event.get("type"), len(groups))
    pending = group_send_now(groups, event)
    if pending is None:
        BROADCAST_LATENCY.observe(time.perf_counter() - started)
    else:
        pending.add_done_callback(
            lambda _: BROADCAST_LATENCY.observe(time.perf_counter() - started)
        )
