"""Spectators at scale: websockets, fan-out after commit, churn, and conditional GETs
(``make bench-live``). Loopback only; every phase is bounded in time.

What it does:

1. Creates a dedicated PostgreSQL database ``bench_live`` (dropped and re-created each run; the
   test database is never touched) and uses Redis database 11 for cache and channel layer
   (flushed before and after). Migrates it and builds, through the real services, a running
   tournament of ``--players`` (1,000) entries: a qualifying stage of five Swiss rounds with a
   cut of 64, rounds 1-3 finished (T4 lines written in bulk), round 4 published and started,
   with the engine's simulator supplying every hand (seeded).
2. Starts ONE ASGI process as production serves websockets: uvicorn on ``config.asgi`` with
   production settings, ``--ws-per-message-deflate false`` (PITFALLS.md), uvloop, httptools;
   and, for the spectators' re-fetches, a web tier of two WSGI gthread workers (nginx sends
   ``/ws/`` to the websocket process and the rest to the web tier).
3. A client process (asyncio, the ``websockets`` library, no compression) opens
   ``--spectators`` (2,000) sockets on ``/ws/live/<slug>/?lang=en``, as the pages do.
4. Fan-out: this process records hands with ``scoring.services.hand_record`` (the real
   recording transaction, broadcast after commit) and stamps the moment of COMMIT with an
   ``on_commit`` hook registered before the service's own; the client stamps each frame as it
   arrives. Latency = arrival - commit, per recipient, for every hand; measured with all the
   sockets connected and again with ``--fanout`` (1,000) of them.
5. Churn (``--churn-seconds``, about 90 s): hands keep coming while sockets drop and reconnect
   with jittered backoff, like live.js: a socket applies an event only if its tournament
   version is new, and re-fetches ``/api/live/<slug>/tables/`` (conditional GET) after a
   reconnect whose hello is newer than what it knows, or on a version gap. Checked: no event
   is lost for a socket that was connected when it was committed (and stayed a moment after),
   and at the end every socket knows the final version.
6. HTTP: 32 keep-alive clients hammer ``/api/live/<slug>/standings/`` of the 1,000-player
   tournament with ``If-None-Match`` (304s) and without (cached 200s, gzip as browsers ask,
   and identity), then the uncached time (a new version: the standings are computed from the
   database once) is timed. Served twice with ``--http-workers`` (3) each: by uvicorn (ASGI,
   as deploy/scripts/start-web.sh serves HTTP today) and by gunicorn gthread (WSGI). The
   machine is shared: every rate is the median of ``--trials`` interleaved runs, next to a
   calibration row (``/healthz``, the cheapest Django view) taken at the same time.

Prints a table and PASS/FAIL against the targets: 0 connection errors, p99 fan-out < 1 s,
no lost event, >= 2,000 304/s and >= 900 cached 200/s (on the WSGI workers; the ASGI rows are
reported for comparison: Django under ASGI runs every sync middleware through a thread hop and
is several times slower for plain HTTP on this machine).

Usage: ``python bench/bench_live.py [--spectators 2000] [--fanout 1000] [--churn-seconds 90]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import subprocess
import sys
import time
import urllib.request
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BASE = Path(__file__).resolve().parent.parent
if str(BASE) not in sys.path:
    sys.path.insert(0, str(BASE))

from bench._harness import (  # noqa: E402
    HOST,
    SLUG,
    Recorder,
    build_data,
    bump_version,
    current_version,
    free_port,
    live_env,
    pct,
    server_rss_mb,
    start_server,
    stop_server,
)
from bench.common import flush_redis, recreate_database  # noqa: E402

DB_NAME = "bench_live"
REDIS_URL = "redis://127.0.0.1:6379/11"


# -- environment, database, data ------------------------------------------------------------------


def bench_env(port: int) -> dict[str, str]:
    return live_env(port, db_name=DB_NAME, redis_url=REDIS_URL, prefix="bench-live")


# -- the spectators (a separate process: asyncio + websockets) ----------------------------------


@dataclass
class Socket:
    index: int
    known: int = 0
    ws: Any = None
    connected_at: float = 0.0  # hello received (in the group from then on)
    closing_at: float = 0.0  # we started closing it (frames may stop before the close ends)
    last_rx: float = 0.0
    intervals: list[tuple[float, float]] = field(default_factory=list)
    received: dict[int, float] = field(default_factory=dict)
    refetches: int = 0
    gaps: int = 0
    reconnects: int = 0
    errors: int = 0
    task: Any = None


class Spectators:
    """Many websocket spectators in one asyncio process, behaving like static/js/live.js."""

    def __init__(self, port: int, count: int, http_port: int) -> None:
        self.port = port
        self.http_port = http_port
        self.url = f"ws://{HOST}:{port}/ws/live/{SLUG}/?lang=en"
        self.sockets = [Socket(i) for i in range(count)]
        self.connect_errors: list[str] = []
        self.refetch_statuses: dict[int, int] = defaultdict(int)
        self.unexpected: list[str] = []  # closes we did not ask for
        self.stopping = False

    async def _refetch(self, sock: Socket, told: int = 0) -> None:
        """Conditional GET of the live tables; the body's version covers everything before it.

        ``told``: the newest version a message named (sent as X-Live-Version, like live.js)."""
        sock.refetches += 1
        etag = f'"t?v{sock.known}"'  # any other version's ETag: a 200 with the current state
        status, _, body = await http_get(
            self.http_port, f"/api/live/{SLUG}/tables/", etag, str(max(told, sock.known))
        )
        self.refetch_statuses[status] += 1
        if status == 200:
            version = json.loads(body)["tournament_version"]
            sock.known = max(sock.known, int(version))

    async def _handle(self, sock: Socket, text: str, now: float) -> None:
        event = json.loads(text)
        kind = event.get("type")
        tv = int(event.get("tournament_version", 0))
        if kind == "hello":
            sock.connected_at = now
            if tv > sock.known:
                await self._refetch(sock, tv)
            return
        if kind == "tick":
            if tv > sock.known:
                sock.gaps += 1
                await self._refetch(sock, tv)
            return
        if kind != "match.update":
            return
        sock.received.setdefault(tv, now)
        if tv <= sock.known:
            return  # stale or a duplicate
        if tv > sock.known + 1:
            sock.gaps += 1
            sock.known = tv
            await self._refetch(sock, tv)
            return
        sock.known = tv

    async def _session(self, sock: Socket, sem: asyncio.Semaphore) -> None:
        from websockets.asyncio.client import connect

        async with sem:
            try:
                ws = await connect(
                    self.url,
                    compression=None,
                    open_timeout=60,
                    ping_interval=None,
                    max_queue=None,
                    origin=f"http://{HOST}:{self.port}",  # type: ignore[arg-type]
                )
            except Exception as exc:
                sock.errors += 1
                self.connect_errors.append(f"{type(exc).__name__}: {exc}")
                return
        sock.ws = ws
        problem = ""
        try:
            async for text in ws:
                sock.last_rx = time.time()
                await self._handle(sock, text, sock.last_rx)  # type: ignore[arg-type]
        except Exception as exc:  # closed by us or by the server, or a failed re-fetch
            problem = f"{type(exc).__name__}: {exc}"
        finally:
            unexpected = not sock.closing_at and not self.stopping
            if sock.connected_at:
                # Owed events end where we started closing, or, for a close we did not ask
                # for, at the last frame we know arrived on a live connection.
                end = sock.closing_at or (sock.last_rx if unexpected else time.time())
                sock.intervals.append((sock.connected_at, end))
            sock.connected_at = sock.closing_at = 0.0
            sock.ws = None
        if unexpected:
            # Like live.js: reconnect with backoff (and re-fetch on the hello).
            self.unexpected.append(problem or f"closed {ws.close_code} {ws.close_reason}")
            await asyncio.sleep(random.random() * 0.5)
            sock.reconnects += 1
            sock.task = asyncio.ensure_future(self._session(sock, sem))

    async def connect(self, indices: list[int], concurrency: int = 200) -> float:
        sem = asyncio.Semaphore(concurrency)
        started = time.monotonic()
        for i in indices:
            self.sockets[i].task = asyncio.ensure_future(self._session(self.sockets[i], sem))
        while True:
            pending = [
                i
                for i in indices
                if not self.sockets[i].connected_at and not self.sockets[i].task.done()
            ]
            if not pending:
                break
            await asyncio.sleep(0.05)
        return time.monotonic() - started

    def connected(self) -> int:
        return sum(1 for s in self.sockets if s.connected_at)

    async def close(self, indices: list[int]) -> None:
        for i in indices:
            ws = self.sockets[i].ws
            if ws is not None:
                self.sockets[i].closing_at = time.time()
                await ws.close()
        await asyncio.gather(*(self.sockets[i].task for i in indices if self.sockets[i].task))

    async def churn(self, seconds: float, rate: float) -> None:
        """Drop and reconnect random sockets at ``rate`` per second, with jittered backoff."""
        sem = asyncio.Semaphore(200)
        rng = random.Random(7)
        deadline = time.monotonic() + seconds

        async def cycle(sock: Socket) -> None:
            if sock.ws is not None:
                sock.closing_at = time.time()
                await sock.ws.close()
            if sock.task is not None:
                await sock.task
            await asyncio.sleep(rng.random() * 0.5)  # backoff with full jitter
            sock.reconnects += 1
            sock.task = asyncio.ensure_future(self._session(sock, sem))

        running: set[asyncio.Task[None]] = set()
        while time.monotonic() < deadline:
            sock = self.sockets[rng.randrange(len(self.sockets))]
            if sock.connected_at:
                task = asyncio.ensure_future(cycle(sock))
                running.add(task)
                task.add_done_callback(running.discard)
            await asyncio.sleep(rng.expovariate(rate))
        await asyncio.gather(*running)


async def http_get(
    port: int, path: str, etag: str | None = None, told: str | None = None
) -> tuple[int, str, bytes]:
    """One GET on a fresh connection (the re-fetch path), with live.js's X-Live-Version."""
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        writer.write(_request(path, etag, keep_alive=False, told=told))
        status, headers, body = await _read_response(reader)
        return status, headers, body
    finally:
        writer.close()


def _request(
    path: str,
    etag: str | None,
    keep_alive: bool = True,
    gzip: bool = False,
    told: str | None = None,
) -> bytes:
    lines = [f"GET {path} HTTP/1.1", f"Host: {HOST}", "Accept: application/json"]
    if told:
        lines.append(f"X-Live-Version: {told}")
    if gzip:
        lines.append("Accept-Encoding: gzip, deflate, br")
    if etag:
        lines.append(f"If-None-Match: {etag}")
    lines.append("Connection: keep-alive" if keep_alive else "Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, str, bytes]:
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    status = int(head.split(" ", 2)[1])
    length = 0
    for line in head.split("\r\n")[1:]:
        name, _, value = line.partition(":")
        if name.lower() == "content-length":
            length = int(value)
    body = await reader.readexactly(length) if length else b""
    return status, head, body


async def http_load(
    port: int, path: str, etag: str | None, connections: int, seconds: float, gzip: bool
) -> tuple[dict[int, int], float, list[float]]:
    """``connections`` keep-alive clients sending the same GET in a closed loop."""
    statuses: dict[int, int] = defaultdict(int)
    latencies: list[float] = []
    request = _request(path, etag, gzip=gzip)
    deadline = time.monotonic() + seconds

    async def client() -> None:
        reader, writer = await asyncio.open_connection(HOST, port)
        try:
            while time.monotonic() < deadline:
                t0 = time.perf_counter()
                writer.write(request)
                try:
                    status, head, _ = await _read_response(reader)
                except (asyncio.IncompleteReadError, ConnectionError):
                    statuses[-1] += 1  # dropped: count it and reconnect
                    head = "connection: close"
                else:
                    latencies.append(time.perf_counter() - t0)
                    statuses[status] += 1
                if "connection: close" in head.lower():  # a server without keep-alive
                    writer.close()
                    reader, writer = await asyncio.open_connection(HOST, port)
        finally:
            writer.close()

    started = time.monotonic()
    await asyncio.gather(*(client() for _ in range(connections)))
    return dict(statuses), time.monotonic() - started, latencies


def spectator_process(port: int, count: int, pipe: Any, http_port: int, known: int) -> None:
    """Runs in its own process: obeys commands from the orchestrator over ``pipe``.

    ``known``: the version the spectators' pages were rendered at (they re-fetch only what
    is newer, as live.js does). Re-fetches go to ``http_port``: HTTP is served apart from
    the websocket process (nginx routes ``/ws/`` to it and everything else to the web tier).
    """
    import uvloop

    async def main() -> None:
        crowd = Spectators(port, count, http_port)
        for sock in crowd.sockets:
            sock.known = known
        loop = asyncio.get_running_loop()
        while True:
            command, arg = await loop.run_in_executor(None, pipe.recv)
            if command == "connect":
                seconds = await crowd.connect(list(range(count)))
                pipe.send(
                    {
                        "seconds": seconds,
                        "connected": crowd.connected(),
                        "errors": len(crowd.connect_errors),
                        "error_samples": crowd.connect_errors[:5],
                    }
                )
            elif command == "mark":
                pipe.send(time.time())
            elif command == "arrivals":
                _, versions = arg
                out = {
                    v: [s.received[v] for s in crowd.sockets if v in s.received] for v in versions
                }
                pipe.send({"arrivals": out, "connected": crowd.connected()})
            elif command == "close":
                await crowd.close(arg)
                pipe.send(crowd.connected())
            elif command == "reopen":
                closed = [s.index for s in crowd.sockets if not s.connected_at]
                await crowd.connect(closed)
                pipe.send(crowd.connected())
            elif command == "churn":
                seconds, rate = arg
                await crowd.churn(seconds, rate)
                pipe.send(crowd.connected())
            elif command == "report":
                pipe.send(
                    {
                        "sockets": [
                            {
                                "known": s.known,
                                "intervals": s.intervals
                                + ([(s.connected_at, time.time())] if s.connected_at else []),
                                "received": s.received,
                                "refetches": s.refetches,
                                "gaps": s.gaps,
                                "reconnects": s.reconnects,
                                "errors": s.errors,
                            }
                            for s in crowd.sockets
                        ],
                        "refetch_statuses": dict(crowd.refetch_statuses),
                        "unexpected": crowd.unexpected,
                    }
                )
            elif command == "http":
                path, etag, conns, seconds, gz = arg
                pipe.send(await http_load(port, path, etag, conns, seconds, gz))
            elif command == "quit":
                crowd.stopping = True
                await crowd.close([s.index for s in crowd.sockets if s.ws is not None])
                pipe.send("bye")
                return

    uvloop.run(main())


# -- measurements ---------------------------------------------------------------------------


def fanout(recorder: Recorder, pipe: Any, hands: int, gap: float, expect: int) -> dict[str, Any]:
    commits: dict[int, float] = {}
    for _ in range(hands):
        version, committed = recorder.record()
        commits[version] = committed
        time.sleep(gap)
    time.sleep(1.5)
    pipe.send(("arrivals", (0, list(commits))))
    answer = pipe.recv()
    latencies: list[float] = []
    missing = 0
    for version, committed in commits.items():
        arrived = answer["arrivals"].get(version, [])
        missing += expect - len(arrived)
        latencies.extend(t - committed for t in arrived)
    return {
        "recipients": expect,
        "hands": hands,
        "frames": len(latencies),
        "missing": missing,
        "p50": pct(latencies, 0.50),
        "p90": pct(latencies, 0.90),
        "p99": pct(latencies, 0.99),
        "max": max(latencies, default=float("nan")),
    }


def churn(
    recorder: Recorder, pipe: Any, seconds: float, rate: float, hand_gap: float
) -> dict[str, Any]:
    commits: dict[int, float] = {}
    pipe.send(("churn", (seconds, rate)))
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        version, committed = recorder.record()
        commits[version] = committed
        time.sleep(hand_gap)
    connected_after = pipe.recv()
    time.sleep(3)  # let the last events and re-fetches land
    final = current_version()
    pipe.send(("report", None))
    report = pipe.recv()
    expected = received = 0
    lost: list[tuple[int, int]] = []
    behind = 0
    for index, sock in enumerate(report["sockets"]):
        got = sock["received"]
        for version, committed in commits.items():
            # In the group before the commit, and still there a second after it.
            held = any(a < committed and b > committed + 1.0 for a, b in sock["intervals"])
            if not held:
                continue
            expected += 1
            if version in got:
                received += 1
            else:
                lost.append((index, version))
        if sock["known"] < final:
            behind += 1
    return {
        "seconds": seconds,
        "hands": len(commits),
        "reconnects": sum(s["reconnects"] for s in report["sockets"]),
        "reconnect_errors": sum(s["errors"] for s in report["sockets"]),
        "refetches": sum(s["refetches"] for s in report["sockets"]),
        "gaps": sum(s["gaps"] for s in report["sockets"]),
        "refetch_statuses": report["refetch_statuses"],
        "unexpected_closes": len(report["unexpected"]),
        "unexpected_samples": report["unexpected"][:5],
        "expected": expected,
        "received": received,
        "lost": len(lost),
        "lost_samples": lost[:5],
        "behind_at_end": behind,
        "connected_after": connected_after,
        "final_version": final,
    }


def _rate(pipe: Any, path: str, etag: str | None, conns: int, seconds: float, gz: bool) -> Any:
    pipe.send(("http", (path, etag, conns, seconds, gz)))
    statuses, elapsed, latencies = pipe.recv()
    return {
        "rate": sum(statuses.values()) / elapsed,
        "statuses": statuses,
        "p50_ms": pct(latencies, 0.5) * 1000,
        "p99_ms": pct(latencies, 0.99) * 1000,
    }


def http_phase(pipe: Any, port: int, seconds: float, conns: int, trials: int) -> dict[str, Any]:
    """304s and cached 200s of the standings, interleaved with a calibration, ``trials`` times
    (the machine is shared: the median of interleaved trials is what is reported)."""
    path = f"/api/live/{SLUG}/standings/"
    url = f"http://{HOST}:{port}{path}"
    with urllib.request.urlopen(url) as r:  # build (or read) this version
        size = len(r.read())
    gz = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(gz) as r:
        etag = r.headers["ETag"]
        gz_size = len(r.read())
    runs: dict[str, list[Any]] = defaultdict(list)
    for _ in range(trials):
        # Calibration: the cheapest Django view (no database, no cache) on this machine now.
        runs["healthz"].append(_rate(pipe, "/healthz", None, conns, seconds, False))
        # Browsers and proxies send Accept-Encoding: gzip; the identity body is measured too.
        runs["304"].append(_rate(pipe, path, etag, conns, seconds, True))
        runs["200"].append(_rate(pipe, path, None, conns, seconds, True))
        runs["200 identity"].append(_rate(pipe, path, None, conns, seconds, False))
    out: dict[str, Any] = {"body_bytes": size, "gzip_bytes": gz_size}
    for name, results in runs.items():
        results.sort(key=lambda x: x["rate"])
        median = results[len(results) // 2]
        out[name] = {**median, "rates": [round(x["rate"]) for x in results]}
        out[name]["statuses"] = {k: v for x in results for k, v in x["statuses"].items()}
    uncached = []
    for _ in range(5):
        bump_version()  # a new version: nothing cached for it yet
        request = urllib.request.Request(url, headers={"X-Live-Version": str(current_version())})
        t0 = time.perf_counter()
        with urllib.request.urlopen(request) as r:
            r.read()
        uncached.append(time.perf_counter() - t0)
    out["uncached_ms"] = {"median": pct(uncached, 0.5) * 1000, "max": max(uncached) * 1000}
    return out


# -- main -----------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--spectators", type=int, default=2000)
    parser.add_argument("--fanout", type=int, default=1000)
    parser.add_argument("--hands", type=int, default=15, help="hands per fan-out measurement")
    parser.add_argument("--hand-gap", type=float, default=1.0)
    parser.add_argument("--churn-seconds", type=float, default=90)
    parser.add_argument("--churn-rate", type=float, default=25, help="reconnects per second")
    parser.add_argument("--churn-hand-gap", type=float, default=0.5)
    parser.add_argument("--http-seconds", type=float, default=8)
    parser.add_argument("--http-connections", type=int, default=32)
    parser.add_argument("--http-workers", type=int, default=3)
    parser.add_argument("--trials", type=int, default=3, help="interleaved HTTP trials")
    parser.add_argument("--started", type=int, default=120, help="matches started in round 4")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--http-only", action="store_true", help="skip the websocket phases")
    parser.add_argument("--port", type=int, default=0, help="0: a free loopback port")
    args = parser.parse_args()

    if not args.port:
        args.port = free_port()
    env = bench_env(args.port)
    os.environ.update(env)
    print(f"bench-live: database {DB_NAME}, Redis {REDIS_URL}, loopback port {args.port}")
    recreate_database(DB_NAME)
    flush_redis(REDIS_URL)
    import django

    django.setup()
    t0 = time.monotonic()
    _tid, plans = build_data(args.players, args.started, args.seed)
    print(f"built a {args.players}-player tournament in {time.monotonic() - t0:.1f} s")
    recorder = Recorder(plans)

    results: dict[str, Any] = {}
    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    server: subprocess.Popen[bytes] | None = None
    web: subprocess.Popen[bytes] | None = None
    crowd: Any = None

    def start_crowd(count: int, http_port: int = 0) -> Any:
        process = ctx.Process(
            target=spectator_process,
            args=(args.port, count, theirs, http_port or args.port, current_version()),
        )
        process.start()
        return process

    def quit_crowd() -> None:
        ours.send(("quit", None))
        ours.recv()
        crowd.join(30)

    try:
        if not args.http_only:
            server = start_server(args.port, env, workers=1)
            web_port = free_port()
            web = start_server(web_port, bench_env(web_port), workers=2, kind="wsgi")
            crowd = start_crowd(args.spectators, web_port)
            ours.send(("connect", None))
            results["connect"] = ours.recv()
            results["connect"]["server_rss_mb"] = server_rss_mb(server)
            print("connect:", results["connect"])
            results["fanout_all"] = fanout(
                recorder, ours, args.hands, args.hand_gap, results["connect"]["connected"]
            )
            print("fan-out (all):", results["fanout_all"])
            ours.send(("close", list(range(args.fanout, args.spectators))))
            remaining = ours.recv()
            results["fanout_subset"] = fanout(recorder, ours, args.hands, args.hand_gap, remaining)
            print(f"fan-out ({remaining}):", results["fanout_subset"])
            ours.send(("reopen", None))  # back to the full crowd for the churn
            ours.recv()
            results["churn"] = churn(
                recorder, ours, args.churn_seconds, args.churn_rate, args.churn_hand_gap
            )
            print("churn:", results["churn"])
            quit_crowd()
            stop_server(server)
            stop_server(web)
            server = web = None
        # HTTP, as deployed (ASGI workers) and on WSGI gthread workers (persistent threads).
        results["http"] = {}
        for kind in ("asgi", "wsgi"):
            server = start_server(args.port, env, workers=args.http_workers, kind=kind)
            crowd = start_crowd(0)
            h = http_phase(ours, args.port, args.http_seconds, args.http_connections, args.trials)
            h["workers"] = f"{args.http_workers} {kind}"
            results["http"][kind] = h
            print(f"http ({kind}):", h)
            quit_crowd()
            stop_server(server)
            server = None
    finally:
        if crowd is not None and crowd.is_alive():
            crowd.terminate()
        for proc in (server, web):
            if proc is not None:
                stop_server(proc)
        flush_redis(REDIS_URL)
    return report(results, args)


def _ms(x: float) -> str:
    return f"{x * 1000:.0f}"


def report(r: dict[str, Any], args: argparse.Namespace) -> int:
    rows = [] if args.http_only else _socket_rows(r, args)
    rows += _http_rows(r)
    width = max(len(name) for name, _, _ in rows)
    print(f"\n{'measure'.ljust(width)}  value")
    for name, value, ok in rows:
        print(f"{name.ljust(width)}  {value}{'' if ok else '   <-- FAIL'}")
    passed = all(ok for _, _, ok in rows)
    print("\nPASS" if passed else "\nFAIL")
    return 0 if passed else 1


def _socket_rows(r: dict[str, Any], args: argparse.Namespace) -> list[tuple[str, str, bool]]:
    c, fa, fs, ch = r["connect"], r["fanout_all"], r["fanout_subset"], r["churn"]
    rows: list[tuple[str, str, bool]] = [
        (
            "spectator sockets connected (one process)",
            f"{c['connected']} / {args.spectators}, {c['errors']} errors",
            c["errors"] == 0 and c["connected"] == args.spectators,
        ),
        (
            "connect time (all) / server RSS",
            f"{c['seconds']:.1f} s / {c['server_rss_mb']:.0f} MB",
            True,
        ),
    ]
    for f in (fa, fs):
        rows.append(
            (
                f"fan-out to {f['recipients']}: p50 / p99 / max",
                f"{_ms(f['p50'])} / {_ms(f['p99'])} / {_ms(f['max'])} ms, {f['missing']} missing",
                f["p99"] < 1.0 and f["missing"] == 0,
            )
        )
    rows += [
        (
            f"churn {ch['seconds']:.0f} s: hands / reconnects",
            f"{ch['hands']} / {ch['reconnects']}, {ch['reconnect_errors']} errors",
            ch["reconnect_errors"] == 0,
        ),
        (
            "churn: events owed / received / lost",
            f"{ch['expected']} / {ch['received']} / {ch['lost']}",
            ch["lost"] == 0,
        ),
        ("churn: gaps seen / re-fetches", f"{ch['gaps']} / {ch['refetches']}", True),
        (
            "churn: closes we did not ask for",
            f"{ch['unexpected_closes']} {ch['unexpected_samples'][:2]}",
            True,
        ),
        ("churn: sockets behind at the end", f"{ch['behind_at_end']}", ch["behind_at_end"] == 0),
    ]
    return rows


def _http_rows(r: dict[str, Any]) -> list[tuple[str, str, bool]]:
    rows: list[tuple[str, str, bool]] = []
    for kind, h in r["http"].items():
        targets = kind == "wsgi"  # the serving the README recommends for HTTP
        rows += [
            (
                f"[{h['workers']}] calibration /healthz",
                f"{h['healthz']['rate']:.0f}/s {h['healthz']['rates']}",
                True,
            ),
            (
                f"[{h['workers']}] standings 304/s",
                f"{h['304']['rate']:.0f}/s {h['304']['rates']} p99 {h['304']['p99_ms']:.0f} ms",
                not targets or (h["304"]["rate"] >= 2000 and set(h["304"]["statuses"]) == {304}),
            ),
            (
                f"[{h['workers']}] cached 200/s, gzip {h['gzip_bytes'] // 1024} KB",
                f"{h['200']['rate']:.0f}/s {h['200']['rates']} p99 {h['200']['p99_ms']:.0f} ms",
                not targets or (h["200"]["rate"] >= 900 and set(h["200"]["statuses"]) == {200}),
            ),
            (
                f"[{h['workers']}] cached 200/s, identity {h['body_bytes'] // 1024} KB",
                f"{h['200 identity']['rate']:.0f}/s {h['200 identity']['rates']}",
                True,
            ),
            (
                f"[{h['workers']}] uncached standings: median / max",
                f"{h['uncached_ms']['median']:.0f} / {h['uncached_ms']['max']:.0f} ms",
                True,
            ),
        ]
    return rows


if __name__ == "__main__":
    sys.exit(main())
