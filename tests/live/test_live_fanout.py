"""The spectator fan-out on a real uvicorn server as deploy/scripts/start-ws.sh runs it (the
sans-I/O websocket protocol, no per-message deflate), in this test's event loop: one frame
encoded per event and language and written straight to each socket's transport, no task or
future per socket and event, a socket that stops reading skips frames (bounded memory) while
the others get every one, and catches up by version; hellos from one snapshot per epoch; the
garbage collector frozen after a burst of connections (issue 19)."""

from __future__ import annotations

import asyncio
import gc
import json
import socket
from typing import Any

import pytest
import uvicorn
from websockets.asyncio.client import connect

from config.asgi import application
from live.hub import Freezer, Hub, gc_stats, hubs
from tests.live.conftest import LiveTournament, make_live_tournament
from tests.live.test_live_consumers import in_own_loop
from tournament.groups import tournament_group

# Hubs on the Redis channel layer: skipped in the embedded run (TEST_DATABASE=sqlite).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]

TIMEOUT = 10


@pytest.fixture
def lt(transactional_db: Any) -> LiveTournament:
    return make_live_tournament(8, cut_size=4, slug="ws-fan")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def _serve() -> tuple[uvicorn.Server, asyncio.Task[None], int]:
    port = _free_port()
    config = uvicorn.Config(
        application,  # as served: the metrics wrapper and the origin check included
        host="127.0.0.1",
        port=port,
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        lifespan="off",
        log_level="warning",
    )
    server = uvicorn.Server(config)
    task = asyncio.ensure_future(server.serve())
    for _ in range(200):
        if server.started:
            break
        await asyncio.sleep(0.02)
    assert server.started
    return server, task, port


ORIGIN = "http://127.0.0.1"


def _frames_counted() -> float:
    from prometheus_client import REGISTRY

    return REGISTRY.get_sample_value("cutthroat_websocket_frames_total") or 0.0


def _connect(port: int, **kwargs: Any) -> Any:
    return connect(f"ws://127.0.0.1:{port}/ws/live/ws-fan/", origin=ORIGIN, **kwargs)


async def _stop(server: uvicorn.Server, task: asyncio.Task[None]) -> None:
    server.should_exit = True
    try:
        await asyncio.wait_for(asyncio.shield(task), TIMEOUT)
    except TimeoutError:
        server.force_exit = True
        await asyncio.wait_for(task, TIMEOUT)


async def _slow_client(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A spectator whose phone stopped reading: tiny receive buffers, reads only the hello."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    reader, writer = await asyncio.open_connection(sock=sock, limit=1024)
    writer.write(
        b"GET /ws/live/ws-fan/ HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        b"Origin: http://127.0.0.1\r\n"
        b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        b"Sec-WebSocket-Version: 13\r\n\r\n"
    )
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT)
    assert head.startswith(b"HTTP/1.1 101")
    return reader, writer


def _hub(lt: LiveTournament) -> Hub:
    hub = hubs.get(tournament_group(lt.tournament.pk))
    assert hub is not None
    return hub


async def _until(check: Any) -> None:
    for _ in range(int(TIMEOUT / 0.02)):
        if check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not reached")


@in_own_loop
async def test_one_write_per_socket_and_no_task_or_future_per_socket(
    lt: LiveTournament, monkeypatch: Any
) -> None:
    server, task, port = await _serve()
    try:
        clients = [await _connect(port) for _ in range(30)]
        for c in clients:
            assert json.loads(await asyncio.wait_for(c.recv(), TIMEOUT))["type"] == "hello"
        hub = _hub(lt)
        sockets = list(hub.members)
        assert len(sockets) == 30
        assert all(m._direct is not None and m.sender is None for m in sockets)

        loop = asyncio.get_running_loop()
        made: list[int] = []
        real_create_future = loop.create_future

        def counting() -> asyncio.Future[Any]:
            made.append(1)
            return real_create_future()

        encoded: list[str] = []
        from live import hub as hub_module

        real_out = hub_module.OutFrame

        class CountingFrame(real_out):  # type: ignore[misc, valid-type]
            def __init__(self, text: str) -> None:
                encoded.append(text)
                super().__init__(text)

        monkeypatch.setattr("live.consumers.OutFrame", CountingFrame)
        tasks_before = len(asyncio.all_tasks())
        frames_before = _frames_counted()
        monkeypatch.setattr(loop, "create_future", counting)
        hub.fan_out({"type": "live.tick", "tournament_version": 77})
        await asyncio.sleep(0)  # the fan-out task runs: framing and 30 writes, no await
        await asyncio.sleep(0)
        monkeypatch.setattr(loop, "create_future", real_create_future)
        assert len(asyncio.all_tasks()) == tasks_before
        got = [json.loads(await asyncio.wait_for(c.recv(), TIMEOUT)) for c in clients]
        assert {g["tournament_version"] for g in got} == {77}
        assert len(encoded) == 1  # one encoding for the 30 sockets
        assert len(made) < 5  # not one per socket (the server's own timers may make a few)
        # Written straight to the transports behind the production app's metrics wrapper,
        # and still counted, once per event: 30 frames.
        assert _frames_counted() - frames_before == 30
        for c in clients:
            await c.close()
    finally:
        await _stop(server, task)


@in_own_loop
async def test_a_socket_that_stops_reading_skips_frames_and_never_delays_the_others(
    lt: LiveTournament,
) -> None:
    server, task, port = await _serve()
    try:
        fast = await _connect(port, max_size=None)
        assert json.loads(await asyncio.wait_for(fast.recv(), TIMEOUT))["type"] == "hello"
        slow_reader, slow_writer = await _slow_client(port)
        hub = _hub(lt)
        await _until(lambda: len(hub.members) == 2)
        port_of_slow = slow_writer.get_extra_info("sockname")[1]
        slow = next(m for m in hub.members if m.scope["client"][1] == port_of_slow)
        await _until(lambda: slow._early is None)
        pad = "x" * 100_000
        n = 120
        versions = []
        for version in range(1000, 1000 + n):  # 12 MB: far beyond every buffer of the slow one
            hub.fan_out({"type": "live.tick", "tournament_version": version, "pad": pad})
            frame = json.loads(await asyncio.wait_for(fast.recv(), TIMEOUT))
            versions.append(frame["tournament_version"])
        assert versions == list(range(1000, 1000 + n))  # every frame, in order, not delayed
        assert slow.skipped > 0
        buffered = slow._direct.transport.get_write_buffer_size()
        assert buffered <= slow.high_water + 110_000  # bounded: at most one frame beyond

        # The phone reads again: the next frame it gets shows the gap, and live.js re-fetches.
        async def read_all() -> list[int]:
            seen: list[int] = []
            data = b""
            while True:
                chunk = await asyncio.wait_for(slow_reader.read(1 << 20), TIMEOUT)
                data += chunk
                seen = [int(v) for v in _versions(data)]
                if seen and seen[-1] == 5000:
                    return seen

        reading = asyncio.ensure_future(read_all())
        await _until(lambda: slow._direct.transport.get_write_buffer_size() == 0)
        hub.fan_out({"type": "live.tick", "tournament_version": 5000})
        seen = await reading
        assert seen[-1] == 5000
        assert len(seen) < n + 1  # frames were skipped, the latest version arrived
        slow_writer.close()
        await fast.close()
    finally:
        await _stop(server, task)


def _versions(data: bytes) -> list[str]:
    import re

    return re.findall(r'"tournament_version":(\d+)', data.decode("latin-1"))


@in_own_loop
async def test_hellos_of_a_connect_burst_come_from_one_snapshot(
    lt: LiveTournament, monkeypatch: Any
) -> None:
    from live import consumers

    reads: list[int] = []
    real_state = consumers._state

    def counting(tournament_id: int, match_id: int | None) -> Any:
        reads.append(tournament_id)
        return real_state(tournament_id, match_id)

    monkeypatch.setattr(consumers, "_state", counting)
    server, task, port = await _serve()
    try:
        first = await _connect(port)
        await asyncio.wait_for(first.recv(), TIMEOUT)
        clients = await asyncio.gather(*(_connect(port) for _ in range(20)))
        hellos = [json.loads(await asyncio.wait_for(c.recv(), TIMEOUT)) for c in clients]
        assert {h["tournament_version"] for h in hellos} == {lt.tournament.version}
        assert reads == [lt.tournament.pk]  # one read for 21 sockets
        _hub(lt).fan_out({"type": "live.tick", "tournament_version": lt.tournament.version})
        late = await _connect(port)
        await asyncio.wait_for(late.recv(), TIMEOUT)
        assert len(reads) == 2  # an event moved the epoch: a new snapshot
        for c in [first, late, *clients]:
            await c.close()
    finally:
        await _stop(server, task)


@in_own_loop
async def test_a_connect_burst_is_frozen_and_departures_collected() -> None:
    freezer = Freezer(quiet_seconds=0.05, min_left=3)
    try:
        for _ in range(5):
            freezer.touch()
        await asyncio.sleep(0.02)
        freezer.touch()  # still in the burst: no freeze yet
        assert freezer.freezes == 0
        await asyncio.sleep(0.15)
        assert freezer.freezes == 1
        assert gc.get_freeze_count() > 0
        assert freezer.full_collections == 0
        before = gc_stats["full"]
        for _ in range(3):
            freezer.left()
        await asyncio.sleep(0.15)
        assert freezer.full_collections == 1  # unfreeze, collect, freeze again
        assert freezer.freezes == 2
        assert gc_stats["full"] > before  # the collection was timed
    finally:
        gc.unfreeze()
