"""Spectator websockets: read-only, scoped to a public tournament (STYLE.md §7).

``TournamentConsumer`` follows the tournament group, ``MatchConsumer`` one match's group (both
named by ``scoring.events``), through the process's hub for that group (:mod:`live.hub`: one
channel-layer subscription per process and group, not one per socket). They never broadcast
anything themselves (STYLE.md §4); they forward what the services send after commit:

* ``match.update`` -> ``{"type": "match.update", "match_id", "version", "tournament_version",
  "match": {...live JSON, same shape as the API...}, "html": "<article ...>"}``. ``html`` is
  the table card rendered by the server in the page's language (``?lang=`` on the socket URL;
  without it, JSON only), so the page swaps it in without re-fetching. Both are built once
  per process and (match, version, language), not once per socket: a thousand spectators in
  one process cost one small read (:class:`FrameCache`). If that read fails the bare event is
  sent and the client re-fetches, exactly as for a gap.
* ``tournament.update`` (a round published, a stage advanced) ->
  ``{"type": "tournament.update", "tournament_version"}``: the client re-fetches.
* every ``TICK_SECONDS`` (and after the hub recovers from a Redis error) ->
  ``{"type": "tick", "tournament_version"[, "match_id", "version"]}``: a client that is behind
  re-fetches, so a lost last event cannot leave a page stale through a quiet spell.

On connect, once the group is joined, the consumer sends ``{"type": "hello", "tournament_version"
[, "match"]}``: a client whose page is older than that re-fetches, so a hand recorded between
rendering the page and opening the socket is never missed. The channel layer is at-most-once
(PITFALLS.md): clients drop events whose version they already have and re-fetch on a gap.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from websockets.protocol import OPEN
from websockets.protocol import Protocol as WebsocketProtocol

from live.hub import Event, Framer, OutFrame, Source, hubs
from live.presenters.documents import table_card_html
from live.scope import PublicTournament, public_tournament_find, tournament_version
from live.selectors.matches import MatchJSON, match_live, match_version
from scoring.events import MATCH_UPDATE, match_group
from scoring.models import Match
from tournament.groups import tournament_group

logger = logging.getLogger(__name__)

CLOSE_NOT_FOUND = 4404

FrameKey = tuple[int, int, int, str | None]

# Bytes waiting in one socket's transport beyond which it skips frames (a phone that stopped
# reading): memory per socket stays bounded, and the others never wait for it.
HIGH_WATER = 256 * 1024
# A burst of sockets resolves its tournament from the process's recent lookup (live.scope),
# as conditional GETs do: no query per socket.
RESOLVE_MAX_AGE = 1.0


@dataclass(frozen=True, slots=True)
class FrameSource:
    """What a frame is built from: the match, and the language and tournament of the card."""

    match_id: int
    tournament_id: int
    slug: str
    language: str | None


Loader = Callable[[FrameSource], Awaitable[tuple[MatchJSON | None, str | None]]]


class FrameCache:
    """Text frames of ``match.update`` events, built once per process and key (single flight).

    The key is (match, match version, tournament version, language). The first consumer to
    ask for a key starts one task that reads the match (and renders its card in that
    language); the others wait for the same task. The task is not tied to any consumer, so a
    spectator who disconnects mid-read cancels only their own wait. Finished frames are kept
    in a small LRU, so a duplicate event costs nothing.
    """

    def __init__(self, load: Loader, maxsize: int = 512) -> None:
        self._load = load
        self._maxsize = maxsize
        self._done: OrderedDict[FrameKey, str] = OrderedDict()
        self._inflight: dict[FrameKey, asyncio.Task[str]] = {}

    async def frame(self, event: dict[str, Any], language: str | None, slug: str = "") -> str:
        key = (
            int(event["match_id"]),
            int(event["version"]),
            int(event["tournament_version"]),
            language,
        )
        text = self._done.get(key)
        if text is not None:
            return text
        task = self._inflight.get(key)
        if task is None or task.get_loop() is not asyncio.get_running_loop():
            source = FrameSource(key[0], int(event["tournament_id"]), slug, language)
            task = asyncio.ensure_future(self._build(key, source))
            self._inflight[key] = task
        return await asyncio.shield(task)

    async def _build(self, key: FrameKey, source: FrameSource) -> str:
        body: dict[str, Any] = {
            "type": "match.update",
            "match_id": key[0],
            "version": key[1],
            "tournament_version": key[2],
        }
        try:
            match, html = await self._load(source)
        except Exception:  # the client treats a bare event as a gap and re-fetches
            logger.exception("reading match %s for a live event failed", key[0])
            match, html = None, None
        finally:
            self._inflight.pop(key, None)
        if match is not None:
            body["match"] = match
        if html is not None:
            body["html"] = html
        text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        self._done[key] = text
        while len(self._done) > self._maxsize:
            self._done.popitem(last=False)
        return text


def _frame_parts(source: FrameSource) -> tuple[MatchJSON | None, str | None]:
    match = match_live(match_id=source.match_id, tournament_id=source.tournament_id)
    if match is None or source.language is None:
        return match, None
    return match, table_card_html(match, slug=source.slug, language=source.language)


async def _load_frame(source: FrameSource) -> tuple[MatchJSON | None, str | None]:
    parts: tuple[MatchJSON | None, str | None] = await database_sync_to_async(_frame_parts)(source)
    return parts


frames = FrameCache(_load_frame)


def _resolve(slug: str, match_id: int | None) -> PublicTournament | None:
    """The public tournament, provided the match (if any) is one of its matches."""
    found = public_tournament_find(slug=slug, max_age=RESOLVE_MAX_AGE)
    if found is None or match_id is None:
        return found
    if not Match.objects.filter(pk=match_id, tournament_id=found.id).exists():
        return None
    return found


def _state(tournament_id: int, match_id: int | None) -> tuple[int, MatchJSON | None] | None:
    """The tournament's version and the match JSON, or ``None`` if the match is not its."""
    match = None
    if match_id is not None:
        match = match_live(match_id=match_id, tournament_id=tournament_id)
        if match is None:
            return None
    return tournament_version(tournament_id=tournament_id), match


def _tick_state(tournament_id: int, match_id: int | None) -> Event:
    event: Event = {
        "type": "live.tick",
        "tournament_version": tournament_version(tournament_id=tournament_id),
    }
    if match_id is not None:
        event["match_id"] = match_id
        event["version"] = match_version(match_id=match_id)
    return event


def _ticker(tournament_id: int, match_id: int | None) -> Callable[[], Awaitable[Event]]:
    """The tick of a hub: the current versions, read off the event loop."""

    async def tick() -> Event:
        event: Event = await database_sync_to_async(_tick_state)(tournament_id, match_id)
        return event

    return tick


def _language(scope: dict[str, Any]) -> str | None:
    """``?lang=xx`` if it names a configured language (pages pass theirs), else ``None``."""
    asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("lang", [""])[0]
    codes = {code for code, _name in settings.LANGUAGES}
    return asked if asked in codes else None


def _dumps(body: Event) -> str:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


async def _event_text(
    event: Event, language: str | None, slug: str, tournament_id: int
) -> str | None:
    """The text frame of a group event for the sockets of ``language`` (None: not for them)."""
    kind = event.get("type")
    if kind == MATCH_UPDATE:
        return await frames.frame(event, language, slug)
    if kind == "tournament.update":
        version = event.get("tournament_version")
        if version is None:
            version = await database_sync_to_async(tournament_version)(tournament_id=tournament_id)
        return _dumps({"type": "tournament.update", "tournament_version": int(version)})
    if kind == "live.tick":
        return _dumps({**event, "type": "tick"})
    return None


def _framer(tournament_id: int, slug: str) -> Framer:
    """How a hub of this tournament frames an event: once per language, for all its sockets."""

    async def frame(event: Event, language: str | None) -> OutFrame | None:
        text = await _event_text(event, language, slug, tournament_id)
        return None if text is None else OutFrame(text)

    return frame


def _direct_protocol(send: Any) -> Any | None:
    """The server's sans-I/O websocket protocol behind ``send`` when frames may be written
    straight to its transport: uvicorn's ``websockets-sansio`` implementation (as
    deploy/scripts/start-ws.sh runs it) with no extension negotiated (per-message deflate is
    off there), so a prebuilt unmasked frame is exactly what the protocol would write.
    Anything else (daphne, the test communicator): ``None``, and ASGI sends are used.
    Wrappers of ``send`` in between (core.observability's frame counter) expose the server's
    ``send`` as ``__wrapped__``; without that unwrapping every socket took the fallback path
    behind the production ASGI app (bench/bench_live_fanout.py found it, issue 19)."""
    for _ in range(8):  # a few layers at most; never loop on a self-reference
        inner = getattr(send, "__wrapped__", None)
        if inner is None:
            break
        send = inner
    proto = getattr(send, "__self__", None)
    conn = getattr(proto, "conn", None)
    if not isinstance(conn, WebsocketProtocol) or conn.extensions:
        return None
    if getattr(proto, "transport", None) is None or not hasattr(proto, "close_sent"):
        return None
    return proto


class _SpectatorConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels is untyped
    """Join one group of a public tournament, say hello, forward events; ignore input.

    The consumer has no channel of its own (an unconfigured layer alias): the process's hub
    for the group receives each event once, frames it once per language and calls every
    member's :meth:`write` (:mod:`live.hub`).
    """

    channel_layer_alias = "live-spectators-use-the-hub"
    inbox_size = 64  # frames a socket may have queued on the ASGI fallback path
    early_size = 16  # frames held while the socket is still connecting
    high_water = HIGH_WATER

    tournament_id: int
    slug: str
    language: str | None = None
    group = ""
    sender: asyncio.Task[None] | None = None
    skipped = 0  # frames not written because the socket did not keep up
    _direct: Any = None
    _early: list[OutFrame] | None = None
    _outbox: collections.deque[str] | None = None
    _more: asyncio.Event | None = None

    def _match_id(self) -> int | None:
        return None

    def _group(self, tournament_id: int) -> str:
        return tournament_group(tournament_id)

    async def connect(self) -> None:
        slug = str(self.scope["url_route"]["kwargs"]["slug"])
        match_id = self._match_id()
        found = await database_sync_to_async(_resolve)(slug, match_id)
        if found is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.tournament_id = found.id
        self.slug = slug
        self.language = _language(self.scope)
        self._early = []
        group = self._group(found.id)

        source = None
        if match_id is not None:
            # A match's events come through the tournament's hub (one group message per hand).
            def mine(event: Event) -> bool:
                # A tournament update too (rare: a round published, the round clock started,
                # T2): a match page shows the round's clock, and the referee's phone reads it.
                kind = event.get("type")
                if kind == "tournament.update":
                    return True
                return kind == MATCH_UPDATE and event.get("match_id") == match_id

            source = Source(tournament_group(found.id), _ticker(found.id, None), mine)

        # Join before the state the hello reports is read (the hub's snapshot, read after the
        # group was joined and reused only until the next event): every commit after that
        # read arrives as an event, so nothing falls between the page and the socket.
        tournament_id = found.id
        hub = await hubs.join(
            group,
            self,
            _ticker(tournament_id, match_id),
            source=source,
            framer=_framer(tournament_id, slug),
        )
        self.group = group
        state = await hub.snapshot(lambda: database_sync_to_async(_state)(tournament_id, match_id))
        if state is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self.accept()
        hello: Event = {"type": "hello", "tournament_version": state[0]}
        if state[1] is not None:
            hello["match"] = state[1]
        await self.send(text_data=_dumps(hello))
        self._direct = _direct_protocol(self.base_send)
        if self._direct is None:
            self._outbox = collections.deque(maxlen=self.inbox_size)
            self._more = asyncio.Event()
            self.sender = asyncio.ensure_future(self._drain())
        early, self._early = self._early, None
        for frame in early or ():
            self.write(frame)

    async def disconnect(self, code: int) -> None:
        if self.group:
            hubs.leave(self.group, self)
            self.group = ""
        self._direct = None
        if self.sender is not None:
            self.sender.cancel()

    def write(self, frame: OutFrame) -> bool:
        """Called by the hub once per event with the frame of this socket's language; never
        waits. A socket that does not keep up skips frames; its next one shows the client the
        version gap and it re-fetches (live.js). True when the frame went straight to the
        transport (the hub counts those; the ASGI path counts its own sends)."""
        early = self._early
        if early is not None:  # still connecting: after the hello
            if len(early) >= self.early_size:
                del early[0]
            early.append(frame)
            return False
        proto = self._direct
        if proto is not None:
            transport = proto.transport
            if proto.close_sent or transport.is_closing() or proto.conn.state is not OPEN:
                return False
            if transport.get_write_buffer_size() > self.high_water:
                self.skipped += 1
                return False
            transport.write(frame.wire)
            return True
        if self._outbox is not None and self._more is not None:
            if len(self._outbox) == self._outbox.maxlen:
                self.skipped += 1  # the oldest goes: the client sees the gap
            self._outbox.append(frame.text)
            self._more.set()
        return False

    async def _drain(self) -> None:
        """The ASGI fallback (no direct transport): this socket's bounded queue, in order."""
        assert self._outbox is not None
        assert self._more is not None
        while True:
            if not self._outbox:
                self._more.clear()
                await self._more.wait()
                continue
            await self.send(text_data=self._outbox.popleft())

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Spectator sockets are read-only: input is ignored."""


class TournamentConsumer(_SpectatorConsumer):
    """``/ws/live/<slug>/``: every match update of the tournament, and tournament updates."""


class MatchConsumer(_SpectatorConsumer):
    """``/ws/live/<slug>/matches/<match_id>/``: one table's updates, and tournament updates.

    Its hub rides on the tournament's hub of the process (:class:`live.hub.Source`): services
    broadcast a hand to the tournament group only."""

    def _match_id(self) -> int | None:
        return int(self.scope["url_route"]["kwargs"]["match_id"])

    def _group(self, tournament_id: int) -> str:
        return match_group(int(self.scope["url_route"]["kwargs"]["match_id"]))
