"""Deployment smoke test: the shipped start scripts and nginx config, 2+2 replicas, kills.

Runs here without containers (tests/deploy/stack.py): Debian's nginx with
``deploy/nginx/cutthroat.conf.template`` (ports and paths only), two web replicas
(``start-web.sh``), two websocket replicas (``start-ws.sh``), a Celery worker and beat (redbeat
lock), PostgreSQL and a dedicated Redis with AOF, production settings with ``deploy/env/http.env``.

Through nginx, a referee records every hand of two matches while spectator sockets (two per
websocket replica, nginx round-robins them) follow the tournament. Mid-run web replica 1 and
websocket replica 1 are killed (SIGKILL, whole process group) and a backup is taken. The
referee retries what failed with the same Idempotency-Key; spectators reconnect and re-fetch on
``hello`` or on a version gap, as the pages do. Then: nothing lost (every hand stored once,
stored scores = engine fold, every spectator ends on the final versions), the backup restores
into a fresh database that passes ``check_consistency``, ``/readyz`` answers 503 naming Redis
while the Redis server is stopped and 200 once it is back (with its data, AOF), the worker and
beat healthchecks pass, metrics count the hands and are refused through nginx, and the request
id of the last hand appears in the worker's log for the task that hand queued. Prints what the
clients saw. Bounded: about two minutes on this machine.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.deploy import stack as sk

pytestmark = pytest.mark.deploy

CSRF = "smokecsrf" + "0" * 23  # a 32-character CSRF secret, sent as cookie and header
N_MATCHES = 2


@dataclass
class SeenBy:
    """What one client saw, for the report and the assertions."""

    name: str
    events: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    reconnects: int = 0
    refetches: int = 0
    versions: dict[int, int] = field(default_factory=dict)


@pytest.fixture(scope="module")
def stack() -> Any:
    st = sk.make_stack()
    try:
        sk.recreate_database(st.db_name)
        st.start_redis()
        st.run(["deploy/scripts/release.sh"])  # migrate + check --deploy, as compose's release
        st.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"])
        data = json.loads(st.run([sys.executable, "tests/deploy/seed.py", str(N_MATCHES)]))
        for i in range(2):
            st.start_web(i)
            st.start_ws(i)
        st.start(
            "worker",
            [str(sk.DEPLOY / "scripts" / "start-worker.sh")],
            st.env(
                CELERY_METRICS_PORT=str(sk.WORKER_METRICS_PORT),
                CELERY_HOSTNAME="celery@smoke",
                PROMETHEUS_MULTIPROC_DIR=str(st.tmp / "metrics-worker"),
            ),
        )
        st.start(
            "beat",
            [str(sk.DEPLOY / "scripts" / "start-beat.sh")],
            st.env(BEAT_HEARTBEAT_FILE=str(st.tmp / "beat-heartbeat")),
        )
        st.start_nginx()
        yield st, data
    finally:
        st.stop_all()
        for name in sk.database_names():
            sk.drop_database(name)
        if not os.environ.get("KEEP_SMOKE_LOGS"):  # set it to read the processes' logs after
            shutil.rmtree(st.tmp, ignore_errors=True)


def _version_of(body: Any) -> int:
    doc = body.get("match", body) if isinstance(body, dict) else {}
    return int(doc["version"])


async def _spectator(
    url: str, slug: str, match_ids: list[int], seen: SeenBy, stop: asyncio.Event
) -> None:
    import httpx
    import websockets

    async def refetch(client: httpx.AsyncClient) -> None:
        seen.refetches += 1
        for mid in match_ids:
            for _ in range(20):
                try:
                    r = await client.get(f"/api/live/{slug}/matches/{mid}/")
                    if r.status_code == 200:
                        seen.versions[mid] = max(seen.versions.get(mid, 0), _version_of(r.json()))
                        break
                    seen.errors.append(f"refetch {r.status_code}")
                except httpx.TransportError as exc:
                    seen.errors.append(f"refetch {type(exc).__name__}")
                await asyncio.sleep(0.3)

    ws_url = url.replace("http://", "ws://") + f"/ws/live/{slug}/"
    async with httpx.AsyncClient(base_url=url, timeout=5) as client:
        first = True
        while not stop.is_set():
            try:
                async with websockets.connect(ws_url, origin=url, open_timeout=5) as sock:  # type: ignore[arg-type]
                    if not first:
                        seen.reconnects += 1
                        seen.events.append("reconnected")
                    first = False
                    while not stop.is_set():
                        try:
                            raw = await asyncio.wait_for(sock.recv(), timeout=0.5)
                        except TimeoutError:
                            continue
                        event = json.loads(raw)
                        kind = event.get("type")
                        if kind == "hello":
                            await refetch(client)  # anything missed while away
                        elif kind == "match.update":
                            mid, version = int(event["match_id"]), int(event["version"])
                            if version > seen.versions.get(mid, 0) + 1:
                                seen.events.append(f"gap on match {mid}: re-fetch")
                                await refetch(client)
                            seen.versions[mid] = max(seen.versions.get(mid, 0), version)
                            seen.events.append(f"m{mid}v{version}")
                        elif kind == "tick":
                            mid = event.get("match_id")
                            if mid is not None and int(event["version"]) > seen.versions.get(
                                int(mid), 0
                            ):
                                await refetch(client)
            except (OSError, websockets.exceptions.WebSocketException, TimeoutError) as exc:
                seen.errors.append(f"socket {type(exc).__name__}")
                await asyncio.sleep(0.3)


async def _referee(
    url: str,
    data: dict[str, Any],
    seen: SeenBy,
    on_progress: Any,
) -> list[dict[str, Any]]:
    import httpx

    accepted: list[dict[str, Any]] = []
    cookies = {"sessionid": data["session"], "csrftoken": CSRF}
    async with httpx.AsyncClient(base_url=url, cookies=cookies, timeout=10) as client:
        plans = data["matches"]
        longest = max(len(m["payloads"]) for m in plans)
        done = 0
        for index in range(longest):
            for plan in plans:
                if index >= len(plan["payloads"]):
                    continue
                body = {"number": index + 1, **plan["payloads"][index]}
                key = uuid.uuid4().hex
                for attempt in range(40):
                    try:
                        r = await client.post(
                            f"/api/matches/{plan['id']}/hands/",
                            json=body,
                            headers={"X-CSRFToken": CSRF, "Idempotency-Key": key},
                        )
                    except httpx.TransportError as exc:
                        seen.errors.append(f"hand {plan['id']}/{index + 1}: {type(exc).__name__}")
                        await asyncio.sleep(0.25)
                        continue
                    if r.status_code in (200, 201):
                        if attempt:
                            seen.events.append(
                                f"hand {plan['id']}/{index + 1} recorded after {attempt} retries"
                            )
                        accepted.append(
                            {
                                "match": plan["id"],
                                "number": index + 1,
                                "id": r.json()["hand"]["id"],
                                "request_id": r.headers.get("X-Request-ID", ""),
                            }
                        )
                        break
                    if r.status_code in (502, 503, 504):
                        seen.errors.append(f"hand {plan['id']}/{index + 1}: {r.status_code}")
                        await asyncio.sleep(0.25)
                        continue
                    raise AssertionError(f"hand refused: {r.status_code} {r.text[:300]}")
                else:
                    raise AssertionError(f"hand {plan['id']}/{index + 1} never recorded")
                done += 1
                await on_progress(done)
                await asyncio.sleep(0.05)
    return accepted


def test_replicas_killed_mid_run_lose_nothing(stack: Any) -> None:
    st, data = stack
    slug = data["slug"]
    match_ids = [m["id"] for m in data["matches"]]
    total = sum(len(m["payloads"]) for m in data["matches"])
    referee = SeenBy("referee")
    spectators = [SeenBy(f"spectator {i + 1}") for i in range(4)]
    kills: list[str] = []
    backup_result: dict[str, Any] = {}

    def take_backup() -> None:
        try:
            out = st.run(
                [str(sk.DEPLOY / "scripts" / "backup.sh")], BACKUP_DIR=str(st.tmp / "backups")
            )
            backup_result["out"] = out
            backup_result["hands"] = _count_hands(st)
        except Exception as exc:  # reported by the assertion below
            backup_result["error"] = str(exc)

    backup_thread = threading.Thread(target=take_backup)

    async def on_progress(done: int) -> None:
        if done == total // 3:
            st.procs["web1"].kill()
            st.procs["ws1"].kill()
            kills.append(f"after hand {done}/{total}: killed web1 (:{sk.WEB_PORTS[0]}) and ws1")
        if done == total // 2:
            backup_thread.start()

    async def scenario() -> list[dict[str, Any]]:
        stop = asyncio.Event()
        tasks = [
            asyncio.create_task(_spectator(st.url, slug, match_ids, s, stop)) for s in spectators
        ]
        await asyncio.sleep(2)  # sockets open and say hello
        accepted = await asyncio.wait_for(_referee(st.url, data, referee, on_progress), 180)
        final = {}
        for mid in match_ids:
            _status, body, _ = sk.http_json(f"{st.url}/api/live/{slug}/matches/{mid}/")
            final[mid] = _version_of(body)
        # Spectators get the last events (or a tick) within a few seconds.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if all(s.versions == final for s in spectators):
                break
            await asyncio.sleep(0.2)
        stop.set()
        await asyncio.gather(*tasks)
        for s in spectators:
            s.events.append(f"final versions {s.versions} (server {final})")
        return accepted

    accepted = asyncio.run(scenario())
    backup_thread.join(timeout=120)

    print("\n== What the clients saw ==")
    for line in kills:
        print(" ", line)
    for who in [referee, *spectators]:
        print(
            f"  {who.name}: {len(who.errors)} errors {sorted(set(who.errors))[:6]}, "
            f"{who.reconnects} reconnects, {who.refetches} re-fetches"
        )
        for line in [e for e in who.events if not e.startswith("m")][-4:]:
            print(f"    {line}")

    print("  memory (RSS of each process group, for sizing in docs/operations.md):")
    for name, proc in st.procs.items():
        if proc.alive():
            print(f"    {name}: {_rss_mib(proc.popen.pid):.0f} MiB")

    # Nothing lost: every hand stored exactly once, scores = engine fold, spectators current.
    assert len(accepted) == total
    assert _count_hands(st) == total
    assert sum(s.reconnects for s in spectators) >= 1, "no spectator was on the killed replica"
    finals = {
        mid: _version_of(sk.http_json(f"{st.url}/api/live/{slug}/matches/{mid}/")[1])
        for mid in match_ids
    }
    for s in spectators:
        assert s.versions == finals, f"{s.name} ended on {s.versions}, server {finals}"
    st.run([sys.executable, "manage.py", "check_consistency"])

    # The backup taken mid-run restores into a fresh database that passes the check.
    assert "error" not in backup_result, backup_result
    dump = next((st.tmp / "backups").glob("cutthroat-*.dump"))
    restore_db = sk.database_names()[1]
    sk.recreate_database(restore_db)
    out = st.run([str(sk.DEPLOY / "scripts" / "restore.sh"), str(dump), sk.pg_url(restore_db)])
    print(f"  backup at {backup_result['hands']} hands restored: {out.strip().splitlines()[-1]}")
    assert "consistent" in out

    # The request id of the match-ending hand follows it to the Celery task it queued.
    last = accepted[-1]["request_id"]
    assert last
    _wait(lambda: last in st.procs["worker"].log.read_text(errors="replace"), 20, "task log")

    # Per-process healthchecks, as compose runs them.
    st.run(
        [str(sk.DEPLOY / "scripts" / "healthcheck.sh"), "worker"], CELERY_HOSTNAME="celery@smoke"
    )
    st.run(
        [str(sk.DEPLOY / "scripts" / "healthcheck.sh"), "beat"],
        BEAT_HEARTBEAT_FILE=str(st.tmp / "beat-heartbeat"),
    )
    st.run([str(sk.DEPLOY / "scripts" / "healthcheck.sh"), "web"], PORT=str(sk.WEB_PORTS[1]))


def test_metrics_are_internal_and_count_hands(stack: Any) -> None:
    st, _ = stack
    assert sk.http_status(f"{st.url}/metrics") == 404  # never through nginx
    auth = {"Authorization": f"Bearer {sk.METRICS_TOKEN}"}
    direct = f"http://{sk.HOST}:{sk.WEB_PORTS[1]}/metrics"
    assert sk.http_status(direct) == 404  # no token: nothing
    status, body, _ = sk.http_json(direct, headers=auth)
    assert status == 200
    assert "cutthroat_http_request_duration_seconds_bucket" in body
    assert "cutthroat_celery_queue_depth" in body
    status, body, _ = sk.http_json(f"http://{sk.HOST}:{sk.WORKER_METRICS_PORT}/metrics")
    assert status == 200
    assert "cutthroat_celery_tasks_total" in body


def test_live_api_is_cached_by_nginx_and_answers_etags(stack: Any) -> None:
    st, data = stack
    url = f"{st.url}/api/live/{data['slug']}/"
    _, _, first = sk.http_json(url)
    _, _, second = sk.http_json(url)
    assert second.get("X-Cache-Status") in {"HIT", "REVALIDATED"}, (first, second)
    etag = second["ETag"]
    assert sk.http_status(url, headers={"If-None-Match": etag}) == 304
    # A signed-in request is never served from or stored in the cache.
    _, _, private = sk.http_json(url, headers={"Cookie": f"sessionid={data['session']}"})
    assert private.get("X-Cache-Status") == "BYPASS"
    _, _, static = sk.http_json(f"{st.url}/static/js/live.js")
    _, _, static = sk.http_json(f"{st.url}/static/js/live.js")
    assert static.get("X-Cache-Status") == "HIT"


def test_a_second_beat_waits_on_the_lock(stack: Any) -> None:
    st, _ = stack
    heartbeat = st.tmp / "beat2-heartbeat"
    second = st.start(
        "beat2",
        [str(sk.DEPLOY / "scripts" / "start-beat.sh")],
        st.env(BEAT_HEARTBEAT_FILE=str(heartbeat)),
    )
    try:
        _wait(lambda: "beat: Starting" in second.log.read_text(errors="replace"), 60, "beat2")
        time.sleep(8)  # several ticks of the first beat (max interval 5 s)
        assert "Acquired lock" not in second.log.read_text(errors="replace")
        assert not heartbeat.exists()  # it never ticked
        assert second.alive()
    finally:
        second.kill()
        del st.procs["beat2"]


def test_readyz_reflects_a_stopped_redis(stack: Any) -> None:
    st, _ = stack
    import redis

    redis.Redis.from_url(st.redis_url).set("smoke:aof", "kept")
    time.sleep(1.2)  # appendfsync everysec
    assert sk.http_status(f"{st.url}/readyz") == 200
    st.procs["redis"].kill(signal.SIGKILL)
    status, body, _ = sk.http_json(f"{st.url}/readyz")
    print(f"\n  /readyz with Redis stopped: {status} {body}")
    assert status == 503
    assert body["failing"] == ["redis"]
    st.start_redis()  # same port and AOF directory
    _wait(lambda: sk.http_status(f"{st.url}/readyz") == 200, 20, "readyz after restart")
    assert redis.Redis.from_url(st.redis_url).get("smoke:aof") == b"kept"


def _rss_mib(pgid: int) -> float:
    import subprocess

    out = subprocess.run(
        ["ps", "-o", "rss=", "-g", str(pgid)],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return sum(int(x) for x in out.split()) / 1024


def _count_hands(st: Any) -> int:
    import psycopg

    url = sk.pg_url(st.db_name).replace("postgres://", "postgresql://", 1)
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM scoring_hand WHERE NOT void").fetchone()
    return int(row[0]) if row else 0


def _wait(predicate: Any, seconds: float, what: str) -> None:
    sk.wait_for(predicate, seconds, what)


def test_stack_logs_hold_no_referee_secret(stack: Any) -> None:
    st, data = stack
    sk.http_status(f"{st.url}/ref/super-secret-key-123/?k=also-secret")
    time.sleep(0.5)
    logs = "".join(p.log.read_text(errors="replace") for p in st.procs.values())
    assert "super-secret-key-123" not in logs
    assert "also-secret" not in logs
    assert "/ref/[redacted]" in logs
    assert data["session"] not in logs
