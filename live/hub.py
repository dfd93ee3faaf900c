"""One channel-layer subscription per process and group, fanned out in-process to its sockets.

Why not one channel per socket, the usual Channels way: channels-redis makes every consumer of
a process wait on one shared receive lock, and every delivered message cancels the other
waiters' pending acquisitions, each removed from the lock's queue in O(n): one event costs
O(n^2) in the sockets of a process: with a few thousand sockets the backlog outgrows the
layer's expiry and events are dropped (bench/bench_live.py shows it). With a hub the process
has one waiter per group, and the fan-out is a loop over a set.

**One encoding, one write per socket.** Each hub has ONE fan-out task. For every event it
builds the text frame once per language present among its sockets (:class:`OutFrame`: the
JSON text and the finished websocket frame bytes), then calls each socket's synchronous
``write``: no task, future, shield or queue per socket and event. Under uvicorn's sans-I/O
websocket protocol (as deploy/scripts/start-ws.sh runs it) a socket's ``write`` hands the
prebuilt bytes straight to its transport (live/consumers.py); a socket whose kernel and
transport buffers are full (a phone that does not read) is skipped for that event instead of
buffered without bound, and its next frame shows the client a version gap, on which it
re-fetches (live.js). Elsewhere (daphne in development, Channels' test communicator) a socket
falls back to a small bounded per-socket queue drained by its own task.
Measured before this (issue 19): half of the websocket process's CPU per hand was per-socket
``shield``/future/queue work, the other half Python's full garbage collections.

**Garbage collection.** Ten thousand sockets are about a million tracked objects that live
as long as their connection; every full (generation-2) collection walked all of them. After a
burst of connections the hubs freeze what is alive (:class:`Freezer`, ``gc.freeze()``): the
collector skips it from then on. Cycles of sockets that leave after being frozen cannot be
collected until an unfreeze, so once enough sockets have left since the last full collection
the next quiet moment does one (unfreeze, collect, freeze). :data:`gc_stats` adds up the time
spent in collections (``gc.callbacks``), per generation.

**Connecting.** The hello a socket gets on connect is built from the hub's snapshot
(:meth:`Hub.snapshot`): read once per hub and per *epoch* (the epoch moves with every event or
tick the hub receives), single flight, never per socket. It is read after the group was
joined, and a snapshot is reused only while no event has arrived since it was started, so the
snapshot plus the events that follow it miss nothing. Frames that arrive while a socket is
still connecting are held (a few) and written after its hello.

A tick every ``TICK_SECONDS`` tells the members the current version: the channel layer is
at-most-once, and a lost last event before a quiet spell would otherwise leave a page stale
until the next hand. The tick also renews the group membership (channels-redis expires it).

A hub may instead ride on another hub of the process (a :class:`Source`): a match's hub takes
its match's events from the tournament's hub, so recording a hand sends ONE group message (to
the tournament group) instead of one per group, and the channel layer holds one subscription
per process and tournament (each ``group_send`` costs the web process CPU on every hand); the
riding hub keeps its own tick.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import logging
import random
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from channels.layers import get_channel_layer
from websockets.frames import Frame, Opcode

from core.broadcast import unbatch
from core.observability import count_websocket_frames

logger = logging.getLogger(__name__)

TICK_SECONDS = 20.0
GRACE_SECONDS = 30.0  # keep a group's subscription this long after its last socket left

Event = dict[str, Any]
Tick = Callable[[], Awaitable[Event | None]]
T = TypeVar("T")


class OutFrame:
    """A text frame built once for every socket of a language: the JSON text (for ASGI sends)
    and the websocket frame bytes (unmasked, no extension: the same for every socket)."""

    __slots__ = ("text", "wire")

    def __init__(self, text: str) -> None:
        self.text = text
        self.wire = Frame(Opcode.TEXT, text.encode()).serialize(mask=False, extensions=[])


Framer = Callable[[Event, str | None], Awaitable[OutFrame | None]]


class Socket(Protocol):
    """A spectator socket in a hub: the hub writes it the frame of its language."""

    language: str | None

    def write(self, frame: OutFrame) -> bool:
        """Send ``frame`` without waiting (skip it if the socket does not keep up); True when
        it went straight to the socket's transport (counted by the hub)."""


@dataclass(frozen=True)
class Source:
    """Where a riding hub takes its events: the hub of ``group`` (joined with ``tick`` if it
    has to be started), keeping the events ``accept`` returns True for."""

    group: str
    tick: Tick
    accept: Callable[[Event], bool]


class _Relay:
    """The member a riding hub places in its source hub."""

    language = None

    def __init__(self, hub: Hub, accept: Callable[[Event], bool]) -> None:
        self.hub = hub
        self.accept = accept

    def offer(self, event: Event) -> None:
        if self.accept(event):
            self.hub.fan_out(event)

    def write(self, frame: OutFrame) -> bool:  # pragma: no cover - relays take events
        raise TypeError("a relay takes events, not frames")


async def _no_frame(event: Event, language: str | None) -> OutFrame | None:
    return None


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
        framer: Framer = _no_frame,
    ) -> None:
        self.group = group
        self.source = source
        self._hubs = hubs
        self._relay: _Relay | None = None
        self.tick = tick
        self.framer = framer
        self.tick_seconds = tick_seconds
        self.grace_seconds = grace_seconds
        self.members: set[Any] = set()  # sockets and relays
        self._relays: list[_Relay] = []
        self._by_language: dict[str | None, dict[Socket, None]] = {}
        self.layer = get_channel_layer()
        self.channel = ""
        self.epoch = 0  # events and ticks received so far (see snapshot)
        self._snap: tuple[int, asyncio.Future[Any]] | None = None
        self._pending: collections.deque[Event] = collections.deque()
        self._wake = asyncio.Event()
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._tasks: list[asyncio.Task[None]] = []
        self._stop_timer: asyncio.TimerHandle | None = None
        self._stopping: asyncio.Future[None] | None = None

    # -- members ------------------------------------------------------------------------------

    def add(self, member: Any) -> None:
        self.members.add(member)
        if isinstance(member, _Relay):
            self._relays.append(member)
        else:
            self._by_language.setdefault(member.language, {})[member] = None

    def discard(self, member: Any) -> None:
        self.members.discard(member)
        if isinstance(member, _Relay):
            with contextlib.suppress(ValueError):
                self._relays.remove(member)
            return
        sockets = self._by_language.get(member.language)
        if sockets is not None:
            sockets.pop(member, None)
            if not sockets:
                del self._by_language[member.language]

    # -- life ---------------------------------------------------------------------------------

    async def start(self) -> None:
        try:
            if self.source is not None:
                assert self._hubs is not None
                self._relay = _Relay(self, self.source.accept)
                # The source hub may be started here, before any socket of its own: it frames
                # as this hub does, for the sockets that join it later (a match page first).
                await self._hubs.join(
                    self.source.group, self._relay, self.source.tick, framer=self.framer
                )
            else:
                self.channel = await self.layer.new_channel()
                await self.layer.group_add(self.group, self.channel)
        except Exception as exc:
            self.ready.set_exception(exc)
            self.ready.exception()  # retrieved: the joiners waiting on it re-raise it
            raise
        self._tasks = [
            asyncio.ensure_future(self._tick_loop()),
            asyncio.ensure_future(self._fan_out_loop()),
        ]
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

    # -- events -------------------------------------------------------------------------------

    def fan_out(self, event: Event) -> None:
        """Take an event of the group: relays get it at once, sockets through the fan-out task
        (in order)."""
        self.epoch += 1
        for relay in self._relays:
            relay.offer(event)
        if self._by_language:
            self._pending.append(event)
            self._wake.set()

    async def _fan_out_loop(self) -> None:
        while True:
            if not self._pending:
                self._wake.clear()
                await self._wake.wait()
                continue
            event = self._pending.popleft()
            try:
                await self._deliver(event)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("live hub %s: an event could not be delivered", self.group)

    async def _deliver(self, event: Event) -> None:
        for language in list(self._by_language):
            frame = await self.framer(event, language)
            sockets = self._by_language.get(language)
            if frame is None or not sockets:
                continue
            written = 0
            for socket in list(sockets):  # write never waits; a copy, in case one leaves
                try:
                    written += socket.write(frame)
                except Exception:
                    logger.warning("live hub %s: a write failed", self.group, exc_info=True)
            count_websocket_frames(written)

    async def snapshot(self, load: Callable[[], Awaitable[T]]) -> T:
        """What ``load`` reads, once per epoch for all the sockets connecting meanwhile.

        A snapshot started at epoch *e* is reused only while the hub is still at *e*: every
        event committed after it was read reaches the hub later, so the hub's members get it.
        """
        snap = self._snap
        if snap is None or snap[0] != self.epoch or snap[1].get_loop() is not self.ready.get_loop():
            future: asyncio.Future[Any] = asyncio.ensure_future(load())
            epoch = self.epoch

            def forget_failure(done: asyncio.Future[Any]) -> None:
                failed = done.cancelled() or done.exception() is not None
                if failed and self._snap is not None and self._snap[1] is done:
                    self._snap = None

            future.add_done_callback(forget_failure)
            snap = self._snap = (epoch, future)
        result: T = await asyncio.shield(snap[1])
        return result

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


# -- garbage collection -----------------------------------------------------------------------


gc_stats: dict[str, float] = {"seconds": 0.0, "full_seconds": 0.0, "collections": 0, "full": 0}
"""Time this process spent in garbage collection (all generations, and full ones)."""

_gc_started = [0.0]


def _gc_callback(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _gc_started[0] = time.perf_counter()
        return
    spent = time.perf_counter() - _gc_started[0]
    gc_stats["seconds"] += spent
    gc_stats["collections"] += 1
    if info.get("generation") == 2:
        gc_stats["full_seconds"] += spent
        gc_stats["full"] += 1


if _gc_callback not in gc.callbacks:
    gc.callbacks.append(_gc_callback)


class Freezer:
    """Freezes the live objects after a burst of connections (see the module docstring).

    ``touch`` on every join costs a timestamp; one timer per burst fires ``quiet_seconds``
    after the last join. ``left`` counts departures: once they reach half of what was alive at
    the last full collection (at least ``min_left``), the next quiet moment collects fully.
    """

    def __init__(self, quiet_seconds: float = 2.0, min_left: int = 1000) -> None:
        self.quiet_seconds = quiet_seconds
        self.min_left = min_left
        self.enabled = True
        self._last = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._timer_loop: asyncio.AbstractEventLoop | None = None
        self._left = 0
        self._baseline = 0  # sockets present at the last full collection
        self._sockets = 0
        self.freezes = 0
        self.full_collections = 0

    def touch(self) -> None:
        self._sockets += 1
        self._arm()

    def left(self) -> None:
        self._sockets = max(self._sockets - 1, 0)
        self._left += 1
        if self._left >= max(self.min_left, self._baseline // 2):
            self._arm()

    def _arm(self) -> None:
        if not self.enabled:
            return
        self._last = time.monotonic()
        loop = asyncio.get_running_loop()
        if self._timer is None or self._timer_loop is not loop:  # tests run several loops
            self._timer_loop = loop
            self._timer = loop.call_later(self.quiet_seconds, self._fire)

    def _fire(self) -> None:
        wait = self._last + self.quiet_seconds - time.monotonic()
        if wait > 0.01:
            self._timer = asyncio.get_running_loop().call_later(wait, self._fire)
            return
        self._timer = None
        self.freeze()

    def freeze(self) -> None:
        if self._left >= max(self.min_left, self._baseline // 2):
            gc.unfreeze()
            gc.collect()
            self.full_collections += 1
            self._left = 0
            self._baseline = self._sockets
        gc.freeze()
        self.freezes += 1
        if logger.isEnabledFor(logging.DEBUG):  # counting walks every frozen object
            logger.debug("live hubs: %d objects frozen", gc.get_freeze_count())


class Hubs:
    """The hubs of this process, per event loop (tests run several loops one after another)."""

    def __init__(
        self, *, tick_seconds: float = TICK_SECONDS, grace_seconds: float = GRACE_SECONDS
    ) -> None:
        self.tick_seconds = tick_seconds
        self.grace_seconds = grace_seconds
        self.freezer = Freezer()
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Hub]] = (
            weakref.WeakKeyDictionary()
        )

    def _hubs(self) -> dict[str, Hub]:
        return self._by_loop.setdefault(asyncio.get_running_loop(), {})

    def get(self, group: str) -> Hub | None:
        return self._hubs().get(group)

    async def join(
        self,
        group: str,
        member: Any,
        tick: Tick,
        *,
        source: Source | None = None,
        framer: Framer = _no_frame,
    ) -> Hub:
        """Subscribe ``member`` to ``group``; returns the hub once the group is joined in Redis
        (or its ``source`` hub is), so every event committed from now on reaches the member."""
        if not isinstance(member, _Relay):
            self.freezer.touch()
        hubs = self._hubs()
        hub = hubs.get(group)
        if hub is None:
            hub = hubs[group] = Hub(
                group,
                tick,
                self.tick_seconds,
                self.grace_seconds,
                source=source,
                hubs=self,
                framer=framer,
            )
            hub.add(member)
            try:
                await hub.start()
            except Exception:
                hubs.pop(group, None)
                raise
            return hub
        if hub.framer is _no_frame and framer is not _no_frame:
            hub.framer = framer  # started by a relay without one: its sockets need frames
        hub.add(member)
        hub.cancel_stop()
        await asyncio.shield(hub.ready)
        return hub

    def leave(self, group: str, member: Any) -> None:
        hubs = self._hubs()
        hub = hubs.get(group)
        if hub is None:
            return
        if not isinstance(member, _Relay):
            self.freezer.left()
        hub.discard(member)
        if not hub.members:
            hub.stop_later(lambda: hubs.pop(group, None) if hubs.get(group) is hub else None)


hubs = Hubs()
