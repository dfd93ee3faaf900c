"""One channel-layer subscription per process and group, fanned out in-process to its sockets.

Why not one channel per socket, the usual Channels way: channels-redis makes every consumer of
a process wait on one shared receive lock, and every delivered message cancels the other
waiters' pending acquisitions, each removed from the lock's queue in O(n): one event costs
O(n^2) in the sockets of a process. Measured (bench/bench_live.py, one process): 1,000 sockets
got a hand in 0.23 s (median), 2,000 in 2.2 s, and under a hand every half second the backlog
outgrew the layer's 30 s expiry and half the events were dropped. With a hub the process has
one waiter per group, and the fan-out is a loop over a set.

Members (the spectator consumers, which have no channel of their own) each have a bounded inbox
drained by their own task, so a slow phone never holds up the hall; when an inbox overflows
the oldest event is dropped, and the client sees the version gap and re-fetches.

A tick every ``TICK_SECONDS`` tells the members the current version: the channel layer is
at-most-once, and a lost last event before a quiet spell would otherwise leave a page stale
until the next hand. The tick also renews the group membership (channels-redis expires it).

A hub may instead ride on another hub of the process (a :class:`Source`): a match's hub takes
its match's events from the tournament's hub, so recording a hand sends ONE group message (to
the tournament group) instead of one per group, and the channel layer holds one subscription
per process and tournament. Measured on bench/bench_hands.py, each ``group_send`` cost the
web process about 0.4 ms of CPU per hand; the riding hub keeps its own tick.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from channels.layers import get_channel_layer

from core.broadcast import unbatch

logger = logging.getLogger(__name__)

TICK_SECONDS = 20.0
GRACE_SECONDS = 30.0  # keep a group's subscription this long after its last socket left

Event = dict[str, Any]
Tick = Callable[[], Awaitable[Event | None]]


class Member(Protocol):
    def offer(self, event: Event) -> None:
        """Take ``event`` without waiting (the member queues it)."""


@dataclass(frozen=True)
class Source:
    """Where a riding hub takes its events: the hub of ``group`` (joined with ``tick`` if it
    has to be started), keeping the events ``accept`` returns True for."""

    group: str
    tick: Tick
    accept: Callable[[Event], bool]


class _Relay:
    """The member a riding hub places in its source hub."""

    def __init__(self, hub: Hub, accept: Callable[[Event], bool]) -> None:
        self.hub = hub
        self.accept = accept

    def offer(self, event: Event) -> None:
        if self.accept(event):
            self.hub.fan_out(event)


class Hub:
    """The process's subscription to one group (or its ride on another hub, see Source)."""

    def __init__(
        self,
        group: str,
        tick: Tick,
        tick_seconds: float,
        grace_seconds: float,
        *,
        source: Source | None = None,
        hubs: Hubs | None = None,
    ) -> None:
        self.group = group
        self.source = source
        self._hubs = hubs
        self._relay: _Relay | None = None
        self.tick = tick
        self.tick_seconds = tick_seconds
        self.grace_seconds = grace_seconds
        self.members: set[Member] = set()
        self.layer = get_channel_layer()
        self.channel = ""
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._tasks: list[asyncio.Task[None]] = []
        self._stop_timer: asyncio.TimerHandle | None = None
        self._stopping: asyncio.Future[None] | None = None

    async def start(self) -> None:
        try:
            if self.source is not None:
                assert self._hubs is not None
                self._relay = _Relay(self, self.source.accept)
                await self._hubs.join(self.source.group, self._relay, self.source.tick)
            else:
                self.channel = await self.layer.new_channel()
                await self.layer.group_add(self.group, self.channel)
        except Exception as exc:
            self.ready.set_exception(exc)
            self.ready.exception()  # retrieved: the joiners waiting on it re-raise it
            raise
        self._tasks = [asyncio.ensure_future(self._tick_loop())]
        if self.source is None:
            self._tasks.append(asyncio.ensure_future(self._receive_loop()))
        self.ready.set_result(None)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._relay is not None:
            assert self.source is not None
            assert self._hubs is not None
            self._hubs.leave(self.source.group, self._relay)
            return
        with contextlib.suppress(Exception):
            await self.layer.group_discard(self.group, self.channel)

    def fan_out(self, event: Event) -> None:
        for member in list(self.members):
            member.offer(event)

    async def _receive_loop(self) -> None:
        backoff = 0.5
        while True:
            try:
                event = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis restarting, a timeout: events may be lost meanwhile
                logger.warning("live hub %s: receive failed, retrying", self.group, exc_info=True)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 10.0)
                with contextlib.suppress(Exception):
                    await self.layer.group_add(self.group, self.channel)
                await self._send_tick()  # members re-fetch if they fell behind
                continue
            backoff = 0.5
            for one in unbatch(event):  # the sender batches what queued up for a group
                self.fan_out(one)

    async def _tick_loop(self) -> None:
        while True:
            await asyncio.sleep(self.tick_seconds * random.uniform(0.8, 1.2))
            if self.source is None:
                with contextlib.suppress(Exception):
                    await self.layer.group_add(self.group, self.channel)  # renew the membership
            await self._send_tick()

    async def _send_tick(self) -> None:
        try:
            event = await self.tick()
        except Exception:
            logger.warning("live hub %s: tick failed", self.group, exc_info=True)
            return
        if event is not None:
            self.fan_out(event)

    def cancel_stop(self) -> None:
        if self._stop_timer is not None:
            self._stop_timer.cancel()
            self._stop_timer = None

    def stop_later(self, on_stop: Callable[[], object]) -> None:
        def fire() -> None:
            self._stop_timer = None
            if not self.members:
                on_stop()
                self._stopping = asyncio.ensure_future(self.stop())

        self.cancel_stop()
        self._stop_timer = asyncio.get_running_loop().call_later(self.grace_seconds, fire)


class Hubs:
    """The hubs of this process, per event loop (tests run several loops one after another)."""

    def __init__(
        self, *, tick_seconds: float = TICK_SECONDS, grace_seconds: float = GRACE_SECONDS
    ) -> None:
        self.tick_seconds = tick_seconds
        self.grace_seconds = grace_seconds
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Hub]] = (
            weakref.WeakKeyDictionary()
        )

    def _hubs(self) -> dict[str, Hub]:
        return self._by_loop.setdefault(asyncio.get_running_loop(), {})

    def get(self, group: str) -> Hub | None:
        return self._hubs().get(group)

    async def join(
        self, group: str, member: Member, tick: Tick, *, source: Source | None = None
    ) -> None:
        """Subscribe ``member`` to ``group``; returns once the group is joined in Redis (or its
        ``source`` hub is), so every event committed from now on reaches the member."""
        hubs = self._hubs()
        hub = hubs.get(group)
        if hub is None:
            hub = hubs[group] = Hub(
                group, tick, self.tick_seconds, self.grace_seconds, source=source, hubs=self
            )
            hub.members.add(member)
            try:
                await hub.start()
            except Exception:
                hubs.pop(group, None)
                raise
            return
        hub.members.add(member)
        hub.cancel_stop()
        await asyncio.shield(hub.ready)

    def leave(self, group: str, member: Member) -> None:
        hubs = self._hubs()
        hub = hubs.get(group)
        if hub is None:
            return
        hub.members.discard(member)
        if not hub.members:
            hub.stop_later(lambda: hubs.pop(group, None) if hubs.get(group) is hub else None)


hubs = Hubs()
