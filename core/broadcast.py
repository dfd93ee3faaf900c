"""Send live events to Channels groups after the surrounding transaction commits.

Only services call this (STYLE.md, Zulip's rule): views, serializers and consumers never
broadcast domain events. When there is no transaction the event is sent at once. A failing
channel layer never breaks the write that caused the event: the channel layer is at-most-once
anyway and clients re-fetch on a version gap (PITFALLS.md).

Why a sender thread: ``async_to_sync(layer.group_send)`` called from a sync worker builds a new
event loop per call, and channels-redis keeps its connection pools per loop, so every hand paid
for a fresh Redis connection (about 15 ms per hand under load, measured by bench/bench_hands.py)
and the request waited for it. With a Redis layer, events are handed to one long-lived event
loop per process that owns the layer's connections; the request does not wait for delivery. The
in-memory layer (embedded demo) is bound to the server's own loop, so it keeps
``async_to_sync``, which runs the send on the server's loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from concurrent.futures import Future
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)


class _SenderLoop:
    """One daemon thread per process running an event loop dedicated to group sends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pid: int | None = None

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            # A forked worker (gunicorn --preload) inherits the object but not the thread.
            if self._loop is None or self._pid != os.getpid():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="broadcast", daemon=True)
                thread.start()
                self._loop, self._pid = loop, os.getpid()
            return self._loop

    def submit(self, groups: list[str], event: dict[str, Any]) -> Future[None]:
        future = asyncio.run_coroutine_threadsafe(_send_all(groups, event), self.loop())
        future.add_done_callback(_log_failure)
        return future


async def _send_all(groups: list[str], event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for group in groups:
        await layer.group_send(group, event)


def _log_failure(future: Future[None]) -> None:
    exc = future.exception()
    if exc is not None:  # the write already committed; clients catch up by version
        logger.error("broadcast failed", exc_info=exc)


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
    transaction.on_commit(lambda: group_send_now(groups, event), robust=True)
