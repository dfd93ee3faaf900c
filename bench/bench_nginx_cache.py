"""Anonymous standings reads through nginx's proxy cache vs straight to Django, same run.

``python bench/bench_nginx_cache.py [--players 1000] [--trials 3] [--seconds 3] [--conns 16]``

The app: gunicorn on ``config.wsgi`` with gthread workers as deploy/scripts/start-web.sh runs it
(one worker, 4 threads), production settings, its own PostgreSQL database ``bench_nginx`` and
Redis database 14 (both reset). The edge: ``/usr/sbin/nginx`` (one worker) running the shipped
``deploy/nginx/cutthroat.conf.template``, rendered as the nginx image's envsubst would, with the
app as its only upstream. The tournament is the live benchmarks' (bench/_harness.py) with
``--players`` entries.

Measured, alternating within each trial, ``--trials`` times: closed-loop keep-alive clients
(``--conns``, one client process: bench_live.http_load) sending the anonymous standings GET
(``Accept-Encoding: gzip`` as browsers send) -- with the current ETag (304s) and without
(cached 200s) -- once straight to Django and once through nginx; and Django's ``/healthz`` as
the calibration of what Django itself can do here. Reported: the median rate and spread of
each, and the ratio nginx / Django for 304s and for cached 200s (the goal: reads not bound by
Django, ratio > 1). The client is Python too and shares the 2 cores, so an nginx rate is a floor
of what nginx does (the client saturates first); the ratio is what this run shows.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

BASE = Path(__file__).resolve().parent.parent
if str(BASE) not in sys.path:
    sys.path.insert(0, str(BASE))

from bench._harness import (  # noqa: E402
    HOST,
    SLUG,
    build_data,
    free_port,
    live_env,
    raise_nofile,
    start_server,
    stop_server,
)
from bench.common import flush_redis, recreate_database  # noqa: E402
from bench.results import emit, load_average  # noqa: E402
from tests.deploy.nginx import prepare, render_site  # noqa: E402 (the smoke test's nginx)

DB_NAME = "bench_nginx"
REDIS_URL = "redis://127.0.0.1:6379/14"


def start_nginx(tmp: Path, port: int, upstream_port: int) -> subprocess.Popen[bytes]:
    conf = tmp / "nginx"
    conf.mkdir(parents=True, exist_ok=True)
    upstreams = conf / "upstreams.conf"
    upstreams.write_text(
        f"upstream cutthroat_web {{\n    server {HOST}:{upstream_port};\n    keepalive 32;\n}}\n"
        f"upstream cutthroat_ws {{\n    server {HOST}:{upstream_port};\n}}\n"
    )
    site = render_site(
        conf, listen=f"{HOST}:{port}", upstreams=upstreams, trusted_proxy="127.0.0.1/32"
    )
    # The access log would cost nginx a write per request here; production keeps it.
    site = site.replace("access_log /dev/stdout cutthroat_json;", "access_log off;")
    proc = subprocess.Popen(prepare(conf, site, root=tmp), start_new_session=True)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("nginx did not start")


def probe(port: int, path: str, etag: str | None = None) -> tuple[int, dict[str, str], int]:
    headers = {"Accept-Encoding": "gzip"}
    if etag:
        headers["If-None-Match"] = etag
    request = urllib.request.Request(f"http://{HOST}:{port}{path}", headers=headers)
    try:
        with urllib.request.urlopen(request) as r:
            return r.status, dict(r.headers), len(r.read())
    except urllib.error.HTTPError as exc:  # 304
        return exc.code, dict(exc.headers), 0


def rate(port: int, path: str, etag: str | None, conns: int, seconds: float) -> dict[str, Any]:
    from bench.bench_live import http_load

    statuses, elapsed, _latencies = asyncio.run(
        http_load(port, path, etag, conns, seconds, gzip=True)
    )
    return {"rate": sum(statuses.values()) / elapsed, "statuses": statuses}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--conns", type=int, default=16)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()

    raise_nofile()
    app_port, nginx_port = free_port(), free_port()
    env = live_env(app_port, db_name=DB_NAME, redis_url=REDIS_URL, prefix="bench-nginx")
    env["DJANGO_ALLOWED_HOSTS"] = "127.0.0.1,localhost"
    os.environ.update(env)
    recreate_database(DB_NAME)
    flush_redis(REDIS_URL)
    import django

    django.setup()
    build_data(args.players, 0, args.seed)
    from django.db import connections

    connections.close_all()
    tmp = Path(tempfile.mkdtemp(prefix="bench-nginx-"))
    path = f"/api/live/{SLUG}/standings/"
    app = nginx = None
    runs: dict[str, list[dict[str, Any]]] = {}
    loads: list[float] = []
    try:
        os.environ["BENCH_WSGI_THREADS"] = "4"
        app = start_server(app_port, env, workers=1, kind="wsgi")
        nginx = start_nginx(tmp, nginx_port, app_port)
        status, headers, size = probe(app_port, path)
        etag = headers.get("ETag")
        if status != 200 or not etag:
            raise SystemExit(f"the standings did not answer 200 with an ETag: {status} {headers}")
        probe(nginx_port, path)  # fill nginx's cache
        status, headers, _ = probe(nginx_port, path)
        cache = headers.get("X-Cache-Status", "?")
        status304, headers304, _ = probe(nginx_port, path, etag)
        print(
            f"standings body {size} B gzip; through nginx: 200 {cache}, with the ETag "
            f"{status304} {headers304.get('X-Cache-Status', '?')}",
            flush=True,
        )
        phases = [
            ("healthz django", app_port, "/healthz", None),
            ("304 django", app_port, path, etag),
            ("304 nginx", nginx_port, path, etag),
            ("200 django", app_port, path, None),
            ("200 nginx", nginx_port, path, None),
        ]
        for t in range(args.trials):
            loads.append(load_average())
            for name, port, p, tag in phases:
                r = rate(port, p, tag, args.conns, args.seconds)
                runs.setdefault(name, []).append(r)
                print(
                    f"trial {t + 1} {name}: {r['rate']:.0f} req/s {r['statuses']} "
                    f"load {load_average():.1f}",
                    flush=True,
                )
    finally:
        for proc in (nginx, app):
            if proc is not None:
                stop_server(proc)
        flush_redis(REDIS_URL)
        shutil.rmtree(tmp, ignore_errors=True)

    def med(name: str) -> float:
        return float(statistics.median(r["rate"] for r in runs[name]))

    def spread(name: str) -> str:
        rates = [r["rate"] for r in runs[name]]
        return f"{statistics.median(rates):,.0f} [{min(rates):,.0f}-{max(rates):,.0f}] req/s"

    ok = True
    print()
    print(
        f"bench-nginx-cache: {args.players} players, {args.conns} keep-alive clients, "
        f"{args.trials} trials x {args.seconds:.0f} s; load (1 min) per trial "
        + " ".join(f"{x:.1f}" for x in loads)
    )
    print(f"| {'figure':<40} | {'median [min-max]':>32} |")
    for name in runs:
        print(f"| {name:<40} | {spread(name):>32} |")
    bad = {k: v for r in runs["304 nginx"] + runs["200 nginx"] for k, v in r["statuses"].items()}
    for kind in ("304", "200"):
        ratio = med(f"{kind} nginx") / med(f"{kind} django")
        passed = ratio > 1.0 and set(bad) <= {200, 304}
        ok &= passed
        print(f"{kind}s: nginx / Django = {ratio:.2f} (goal > 1: not bound by Django)")
        emit(
            "nginx",
            f"{args.players} players: anonymous standings {kind}s through nginx's cache",
            figure=spread(f"{kind} nginx"),
            floor=f"straight to Django {spread(f'{kind} django')}",
            ratio=round(ratio, 2),
            goal="> 1 (nginx / Django)",
            passed=passed,
            load=statistics.median(loads),
        )
    print(f"Django /healthz here: {spread('healthz django')} (what Django itself does)")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
