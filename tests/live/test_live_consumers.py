"""Spectator consumers with Channels' WebsocketCommunicator on the real Redis channel layer.

The events come from the real services (hand_record, round_publish) after commit, through
``core.broadcast`` and channels-redis, exactly as in production.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.db import connections

from config.routing import websocket_urlpatterns
from live.consumers import CLOSE_NOT_FOUND, FrameCache, FrameSource
from scoring.events import match_group
from tests.factories import TournamentFactory
from tests.live.conftest import LiveTournament, make_live_tournament, play_hands, start_match
from tournament.groups import tournament_group
from tournament.models import Tournament

# The hubs and sockets run on the Redis channel layer (tests/live/conftest.py): not embedded.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]

app = URLRouter(websocket_urlpatterns)
TIMEOUT = 5


async def _connect(path: str) -> tuple[WebsocketCommunicator, bool, Any]:
    comm = WebsocketCommunicator(app, path)
    connected, code = await comm.connect(timeout=TIMEOUT)
    return comm, connected, code


async def _json(comm: WebsocketCommunicator) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(await comm.receive_from(timeout=TIMEOUT))
    return body


# The test's own writes just before its sockets connect (publishing the round, starting a
# match) leave on the broadcast thread (core.broadcast) and may still be on their way through
# Redis when the hub subscribes: under load they arrive after the hello (seen with two test
# workers). The helpers below let such late updates pass, and nothing else.
LATE = {"tournament.update", "match.update"}  # the hub unbatches what the sender batched


async def _next_tick(comm: WebsocketCommunicator) -> dict[str, Any]:
    """The socket's next tick, after any late update of the test's earlier writes."""
    seen: list[str] = []
    for _ in range(5):
        event = await _json(comm)
        if event["type"] == "tick":
            return event
        seen.append(event["type"])
        assert set(seen) <= LATE, seen
    raise AssertionError(f"no tick after {seen}")


async def _update_at(comm: WebsocketCommunicator, version: int) -> dict[str, Any]:
    """The socket's next event at tournament ``version`` or later, after any late update (or
    tick) of the test's earlier writes, which carries an older version. Every test that reads
    the event of its own write goes through here: reading "the next frame" instead raced the
    broadcast thread under load (a tournament update of the fixture's writes arrived after the
    hello, and the test took it for its own)."""
    seen: list[tuple[str, int]] = []
    for _ in range(10):
        event = await _json(comm)
        at = int(event.get("tournament_version") or 0)
        if at >= version or event["type"] not in LATE | {"tick"}:
            return event
        seen.append((event["type"], at))
    raise AssertionError(f"no event at version {version} after {seen}")


async def _version_of(lt: LiveTournament) -> int:
    """The tournament's version now (after the test's write committed)."""
    await sync_to_async(lt.refresh)()
    return int(lt.tournament.version)


def in_own_loop(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    """Run an async test on its own event loop in its own thread.

    A Playwright browser test earlier in the session leaves an event loop running in the main
    thread, where pytest-asyncio could not start another one; a fresh thread always can. The
    consumers read through ``database_sync_to_async``'s worker thread: its connection is closed
    afterwards so the test database can be dropped at the end.
    """

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        async def main() -> None:
            try:
                await test(*args, **kwargs)
            finally:
                await database_sync_to_async(connections.close_all)()

        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, main()).result()

    return run


@pytest.fixture
def lt(transactional_db: Any) -> LiveTournament:
    return make_live_tournament(8, cut_size=4, slug="ws-open")


@in_own_loop
async def test_tournament_socket_says_hello_with_the_current_version(lt: LiveTournament) -> None:
    comm, connected, _ = await _connect("/ws/live/ws-open/")
    assert connected
    hello = await _json(comm)
    assert hello == {"type": "hello", "tournament_version": lt.tournament.version}
    await comm.disconnect()


@pytest.mark.parametrize("path", ["/ws/live/nope/", "/ws/live/draft-cup/"])
@in_own_loop
async def test_missing_or_draft_tournament_is_refused(transactional_db: Any, path: str) -> None:
    await sync_to_async(TournamentFactory)(slug="draft-cup", status=Tournament.Status.DRAFT)
    _comm, connected, code = await _connect(path)
    assert not connected
    assert code == CLOSE_NOT_FOUND


@in_own_loop
async def test_match_socket_of_another_tournament_is_refused(lt: LiveTournament) -> None:
    other = await sync_to_async(make_live_tournament)(4, slug="other-open")
    foreign = (await sync_to_async(other.matches)())[0]
    _comm, connected, code = await _connect(f"/ws/live/ws-open/matches/{foreign.pk}/")
    assert not connected
    assert code == CLOSE_NOT_FOUND
    # It did not stay in the match group either.
    layer = get_channel_layer()
    assert await layer.connection(0).zcard(layer._group_key(match_group(foreign.pk))) == 0


@in_own_loop
async def test_recorded_hand_reaches_tournament_and_match_sockets(lt: LiveTournament) -> None:
    match = (await sync_to_async(lt.matches)())[0]
    payloads = await sync_to_async(start_match)(match, lt.director)
    t_comm, ok1, _ = await _connect("/ws/live/ws-open/?lang=es")
    m_comm, ok2, _ = await _connect(f"/ws/live/ws-open/matches/{match.pk}/")
    assert ok1
    assert ok2
    await _json(t_comm)
    m_hello = await _json(m_comm)
    assert m_hello["match"]["id"] == match.pk
    assert m_hello["match"]["hands_count"] == 0

    await sync_to_async(play_hands)(match, lt.director, payloads[:1])
    await sync_to_async(lt.refresh)()

    for comm in (t_comm, m_comm):
        event = await _update_at(comm, lt.tournament.version)
        assert event["type"] == "match.update"
        assert event["match_id"] == match.pk
        assert event["tournament_version"] == lt.tournament.version
        assert event["match"]["hands_count"] == 1
        assert event["match"]["version"] == event["version"]
        assert sum(s["score"] for s in event["match"]["seats"]) == sum(
            event["match"]["last_hand"]["scores_after"]
        )
    await t_comm.disconnect()
    await m_comm.disconnect()


@in_own_loop
async def test_a_tournament_socket_after_a_match_socket_gets_events_and_ticks(
    lt: LiveTournament, monkeypatch: Any
) -> None:
    """The first spectator socket of a process is a match page (after a restart, the match
    page reconnects first): the tournament hub it starts to ride on must still frame events
    and ticks for the tournament sockets that join later. It was started without a framer, so
    the tables, home and standings pages got their hello and then nothing, ever."""
    from live.hub import hubs

    monkeypatch.setattr(hubs, "tick_seconds", 0.3)
    match = (await sync_to_async(lt.matches)())[0]
    payloads = await sync_to_async(start_match)(match, lt.director)
    m_comm, ok1, _ = await _connect(f"/ws/live/ws-open/matches/{match.pk}/")
    assert ok1
    await _json(m_comm)
    t_comm, ok2, _ = await _connect("/ws/live/ws-open/?lang=en")
    assert ok2
    assert (await _json(t_comm))["type"] == "hello"
    await _next_tick(t_comm)  # ticks come: the hub frames them for this socket

    await sync_to_async(play_hands)(match, lt.director, payloads[:1])
    for _ in range(5):
        event = await _json(t_comm)
        if event["type"] == "match.update":
            break
    assert event["type"] == "match.update"
    assert event["match_id"] == match.pk
    assert f'data-match="{match.pk}"' in event["html"]
    await t_comm.disconnect()
    await m_comm.disconnect()


@in_own_loop
async def test_card_html_is_rendered_in_the_asked_language(lt: LiveTournament) -> None:
    match = (await sync_to_async(lt.matches)())[0]
    payloads = await sync_to_async(start_match)(match, lt.director)
    es, _, _ = await _connect("/ws/live/ws-open/?lang=es")
    en, _, _ = await _connect("/ws/live/ws-open/?lang=en")
    plain, _, _ = await _connect("/ws/live/ws-open/")
    for comm in (es, en, plain):
        await _json(comm)
    await sync_to_async(play_hands)(match, lt.director, payloads[:1])
    version = await _version_of(lt)
    es_event, en_event, plain_event = [await _update_at(c, version) for c in (es, en, plain)]
    assert "Mesa 1" in es_event["html"]
    assert "Table 1" in en_event["html"]
    assert f'data-match="{match.pk}"' in en_event["html"]
    assert "html" not in plain_event  # API clients get the JSON only
    for comm in (es, en, plain):
        await comm.disconnect()


@in_own_loop
async def test_other_matches_do_not_reach_a_match_socket(lt: LiveTournament) -> None:
    first, second = (await sync_to_async(lt.matches)())[:2]
    payloads = await sync_to_async(start_match)(second, lt.director)
    comm, ok, _ = await _connect(f"/ws/live/ws-open/matches/{first.pk}/")
    assert ok
    await _json(comm)
    await sync_to_async(play_hands)(second, lt.director, payloads[:1])
    assert await comm.receive_nothing(timeout=0.5)
    await comm.disconnect()


@in_own_loop
async def test_round_publish_sends_tournament_update(transactional_db: Any) -> None:
    lt = await sync_to_async(make_live_tournament)(8, slug="round-open")
    comm, ok, _ = await _connect("/ws/live/round-open/")
    assert ok
    hello = await _json(comm)

    def finish_and_publish() -> None:
        from brackets.services import round_publish
        from tests.live.conftest import finish_round_fast

        finish_round_fast(lt.round)
        round_publish(stage=lt.stage, actor=lt.director)

    await sync_to_async(finish_and_publish)()
    version = await _version_of(lt)
    assert version > hello["tournament_version"]
    event = await _update_at(comm, version)
    assert (event["type"], event["tournament_version"]) == ("tournament.update", version)
    await comm.disconnect()


@in_own_loop
async def test_sockets_are_read_only(lt: LiveTournament) -> None:
    comm, ok, _ = await _connect("/ws/live/ws-open/")
    assert ok
    hello = await _json(comm)
    await comm.send_to(text_data=json.dumps({"type": "match.update", "match_id": 1}))
    await comm.send_to(text_data="not json")
    # Nothing answers the client's frames. A late update of the fixture's own writes (see
    # LATE above: it carries the hello's version or an older one) may still arrive; anything
    # else is an answer.
    for _ in range(10):
        if await comm.receive_nothing(timeout=0.3):
            break
        event = await _json(comm)
        assert event["type"] in LATE | {"tick"}, event
        assert int(event.get("tournament_version") or 0) <= hello["tournament_version"], event
    else:
        raise AssertionError("the socket kept sending after the client's frames")
    # Still connected and still fed.
    layer = get_channel_layer()
    await layer.group_send(
        tournament_group(lt.tournament.pk),
        {"type": "tournament.update", "tournament_version": 999},
    )
    assert (await _update_at(comm, 999))["tournament_version"] == 999
    await comm.disconnect()


@in_own_loop
async def test_one_subscription_per_process_and_group(lt: LiveTournament, monkeypatch: Any) -> None:
    """Fifty sockets in this process: one member of the group in Redis (the hub); the group is
    left once the last socket has gone and the grace period is over."""
    from live.hub import hubs

    monkeypatch.setattr(hubs, "grace_seconds", 0.2)
    layer = get_channel_layer()
    key = layer._group_key(tournament_group(lt.tournament.pk))
    comms = [(await _connect("/ws/live/ws-open/"))[0] for _ in range(50)]
    for c in comms:
        await _json(c)
    assert await layer.connection(0).zcard(key) == 1
    assert len(hubs.get(tournament_group(lt.tournament.pk)).members) == 50
    for c in comms[:49]:
        await c.disconnect()
    await asyncio.sleep(0.4)
    assert await layer.connection(0).zcard(key) == 1  # one socket left
    await comms[49].disconnect()
    await asyncio.sleep(0.6)
    assert await layer.connection(0).zcard(key) == 0
    assert hubs.get(tournament_group(lt.tournament.pk)) is None


@in_own_loop
async def test_match_sockets_ride_on_the_tournament_subscription(
    lt: LiveTournament, monkeypatch: Any
) -> None:
    """Match pages add no channel-layer group of their own: their hub takes its events from
    the process's tournament hub (so a hand is ONE group message). The tournament's
    subscription stays while any match socket needs it, and goes with the last one."""
    from live.hub import hubs

    monkeypatch.setattr(hubs, "grace_seconds", 0.2)
    layer = get_channel_layer()
    t_key = layer._group_key(tournament_group(lt.tournament.pk))
    matches = (await sync_to_async(lt.matches)())[:2]
    comms = []
    for m in matches:
        comm, ok, _ = await _connect(f"/ws/live/ws-open/matches/{m.pk}/")
        assert ok
        await _json(comm)
        comms.append(comm)
    assert await layer.connection(0).zcard(t_key) == 1
    for m in matches:
        assert await layer.connection(0).zcard(layer._group_key(match_group(m.pk))) == 0
    tournament_hub = hubs.get(tournament_group(lt.tournament.pk))
    assert tournament_hub is not None
    assert len(tournament_hub.members) == 2  # one relay per match hub
    for comm in comms:
        await comm.disconnect()
    await asyncio.sleep(0.9)  # the match hubs' grace, then the tournament hub's
    assert hubs.get(match_group(matches[0].pk)) is None
    assert hubs.get(tournament_group(lt.tournament.pk)) is None
    assert await layer.connection(0).zcard(t_key) == 0


@in_own_loop
async def test_ticks_tell_the_current_versions(lt: LiveTournament, monkeypatch: Any) -> None:
    """A lost last event cannot leave a page stale: every tick carries the current version."""
    from live.hub import hubs

    monkeypatch.setattr(hubs, "tick_seconds", 0.3)
    match = (await sync_to_async(lt.matches)())[0]
    t_comm, _, _ = await _connect("/ws/live/ws-open/")
    m_comm, _, _ = await _connect(f"/ws/live/ws-open/matches/{match.pk}/")
    await _json(t_comm)
    await _json(m_comm)
    await sync_to_async(start_match)(match, lt.director)  # bumps both versions
    await sync_to_async(lt.refresh)()
    await sync_to_async(match.refresh_from_db)()
    for comm in (t_comm, m_comm):
        # A tick read before the write committed may still arrive after it (under load): the
        # next ones carry the current version, never one ahead of it.
        for _ in range(10):
            frame = await _json(comm)
            if frame["type"] != "tick":
                continue
            assert frame["tournament_version"] <= lt.tournament.version
            if frame["tournament_version"] == lt.tournament.version:
                break
        assert frame["type"] == "tick"
        assert frame["tournament_version"] == lt.tournament.version
    assert frame["match_id"] == match.pk
    assert frame["version"] == match.version
    await t_comm.disconnect()
    await m_comm.disconnect()


@in_own_loop
async def test_on_the_asgi_fallback_a_slow_socket_loses_its_oldest_frames() -> None:
    from collections import deque

    from live.consumers import TournamentConsumer
    from live.hub import OutFrame

    consumer = TournamentConsumer()
    consumer._outbox = deque(maxlen=3)
    consumer._more = asyncio.Event()
    for version in range(1, 6):
        consumer.write(OutFrame(json.dumps({"tournament_version": version})))
    kept = [json.loads(text)["tournament_version"] for text in consumer._outbox]
    assert kept == [3, 4, 5]  # the client sees the gap from its version to 3 and re-fetches
    assert consumer.skipped == 2


@in_own_loop
async def test_many_sockets_one_event_one_read(lt: LiveTournament) -> None:
    """Fifty spectators on one process: one event, fifty frames, one match read."""
    from live import consumers

    match = (await sync_to_async(lt.matches)())[0]
    payloads = await sync_to_async(start_match)(match, lt.director)
    reads: list[tuple[int, Any]] = []
    original = consumers.frames._load

    async def counting(source: FrameSource) -> Any:
        matched, _ = result = await original(source)
        reads.append((source.match_id, (matched or {}).get("version")))
        return result

    consumers.frames._load = counting
    try:
        comms = [(await _connect("/ws/live/ws-open/?lang=en"))[0] for _ in range(50)]
        for c in comms:
            await _json(c)
        await sync_to_async(play_hands)(match, lt.director, payloads[:1])
        version = await _version_of(lt)
        frames = [json.dumps(await _update_at(c, version), sort_keys=True) for c in comms]
    finally:
        consumers.frames._load = original
    await sync_to_async(match.refresh_from_db)()
    assert len(set(frames)) == 1
    # The hand's frame was read once for the fifty sockets (a late update of the match's
    # start, at its older version, may have been read once too).
    assert reads.count((match.pk, match.version)) == 1
    for c in comms:
        await c.disconnect()


@in_own_loop
async def test_stale_and_duplicate_events_keep_their_versions() -> None:
    """Duplicates are harmless: the same key gives the same frame, built once."""
    calls: list[int] = []

    async def load(source: FrameSource) -> Any:
        calls.append(source.match_id)
        await asyncio.sleep(0.01)
        return {"id": source.match_id, "version": 3}, None

    cache = FrameCache(load)
    event = {"match_id": 5, "tournament_id": 1, "version": 3, "tournament_version": 10}
    first, second = await asyncio.gather(cache.frame(event, None), cache.frame(event, None))
    again = await cache.frame(event, None)
    assert first == second == again
    assert calls == [5]
    body = json.loads(first)
    assert body["version"] == 3
    assert body["tournament_version"] == 10


@in_own_loop
async def test_a_failed_read_sends_the_bare_event(caplog: Any) -> None:
    async def load(source: FrameSource) -> Any:
        raise RuntimeError("database went away")

    cache = FrameCache(load)
    frame = json.loads(
        await cache.frame(
            {"match_id": 5, "tournament_id": 1, "version": 3, "tournament_version": 10}, "en"
        )
    )
    assert frame == {"type": "match.update", "match_id": 5, "version": 3, "tournament_version": 10}


@in_own_loop
async def test_consumers_never_touch_the_orm_from_the_event_loop(
    lt: LiveTournament, monkeypatch: Any
) -> None:
    """Without Django's escape hatch, a sync ORM call in the loop would raise."""
    monkeypatch.delenv("DJANGO_ALLOW_ASYNC_UNSAFE", raising=False)
    match = (await sync_to_async(lt.matches)())[0]
    payloads = await sync_to_async(start_match)(match, lt.director)
    comm, ok, _ = await _connect(f"/ws/live/ws-open/matches/{match.pk}/?lang=en")
    assert ok
    await _json(comm)
    await sync_to_async(play_hands)(match, lt.director, payloads[:1])
    assert (await _update_at(comm, await _version_of(lt)))["match"]["hands_count"] == 1
    await comm.disconnect()


@in_own_loop
async def test_the_hub_recovers_from_a_redis_error_and_resyncs(
    lt: LiveTournament, monkeypatch: Any
) -> None:
    """A failed receive (Redis restarting) is retried; the members get a tick with the
    current version, since events may have been lost meanwhile."""
    layer = get_channel_layer()
    real_receive = layer.receive
    failures = [1]

    async def flaky_receive(channel: str) -> Any:
        if failures:
            failures.pop()
            raise ConnectionError("redis went away")
        return await real_receive(channel)

    monkeypatch.setattr(layer, "receive", flaky_receive)
    match = (await sync_to_async(lt.matches)())[0]
    payloads = await sync_to_async(start_match)(match, lt.director)
    comm, ok, _ = await _connect("/ws/live/ws-open/")
    assert ok
    await _json(comm)
    tick = await _next_tick(comm)
    await sync_to_async(lt.refresh)()
    assert tick["tournament_version"] == lt.tournament.version
    await sync_to_async(play_hands)(match, lt.director, payloads[:1])
    await sync_to_async(lt.refresh)()
    # The hand's update (a late one of the match's start may still come first under load).
    update = await _update_at(comm, lt.tournament.version)
    assert (update["type"], update["tournament_version"]) == (
        "match.update",
        lt.tournament.version,
    )
    await comm.disconnect()


@in_own_loop
async def test_a_match_socket_hears_the_round_clock_start(transactional_db: Any) -> None:
    """Bug: a match's socket carried only its match's updates, so the referee's phone never
    learnt of a clock the director started (T2). Now tournament updates reach it too."""
    lt = await sync_to_async(make_live_tournament)(8, slug="clock-open", round_time_limit=30)
    match = (await sync_to_async(lt.matches)())[0]
    comm, ok, _ = await _connect(f"/ws/live/clock-open/matches/{match.pk}/")
    assert ok
    hello = await _json(comm)

    def start() -> None:
        from brackets.services import round_clock_start

        round_clock_start(round=lt.round, actor=lt.director)

    await sync_to_async(start)()
    version = await _version_of(lt)
    assert version > hello["tournament_version"]
    event = await _update_at(comm, version)
    assert (event["type"], event["tournament_version"]) == ("tournament.update", version)
    await comm.disconnect()
