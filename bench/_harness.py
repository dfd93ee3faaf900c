"""The live benchmarks' shared harness: environment, servers, the bench-live tournament and a
hand recorder (``make bench-live``: bench_live_fanout.py; ``make bench-live-churn``:
bench_live.py).

Each benchmark names its own database, Redis database and key prefixes (``live_env``); the
tournament built here (``SLUG``) is the one both record hands into, through the real service.
"""

from __future__ import annotations

import math
import os
import random
import resource
import signal
import subprocess
import sys
import time
import urllib.request
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BASE = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
SLUG = "bench-live"


# -- environment ----------------------------------------------------------------------------------


def live_env(port: int, *, db_name: str, redis_url: str, prefix: str) -> dict[str, str]:
    """Production settings on loopback, with the benchmark's own database, Redis and prefixes."""
    return {
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": "bench-live-only-" + "x" * 40,
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{db_name}",
        "REDIS_URL": redis_url,
        "CACHE_KEY_PREFIX": prefix,
        "CHANNEL_PREFIX": f"{prefix}-asgi",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "CELERY_TASK_ALWAYS_EAGER": "true",
        "SITE_URL": f"http://{HOST}:{port}",
        "LOG_LEVEL": "WARNING",
    }


def raise_nofile() -> None:
    """As many open files as the hard limit allows (thousands of sockets per process)."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# -- data -----------------------------------------------------------------------------------------


@dataclass
class MatchPlan:
    match_id: int
    payloads: list[dict[str, Any]]
    next_index: int = 0


def _finish_round_in_bulk(rnd: Any, rng: random.Random) -> None:
    """T4 lines for every match of ``rnd``, written in bulk (the earlier rounds of the event)."""
    from django.db.models import F
    from django.utils import timezone

    from scoring.models import Match, Seat
    from tournament.models import Tournament

    now = timezone.now()
    matches = list(Match.objects.filter(round_link__round=rnd))
    seats = list(Seat.objects.filter(match__in=matches).order_by("match_id", "seat"))
    by_match: dict[int, list[Any]] = defaultdict(list)
    for s in seats:
        by_match[s.match_id].append(s)
    for m in matches:
        table = by_match[m.pk]
        order = list(range(len(table)))
        rng.shuffle(order)
        scores = [0] * len(table)
        for place, i in enumerate(order, start=1):
            s = table[i]
            s.placing = place
            s.points = 6 if place == 1 else rng.randint(0, 5)
            s.hands_won = s.points + rng.randint(0, 3)
            s.six_love_given = int(place == 1 and rng.random() < 0.3)
            scores[s.seat] = s.points
        m.status, m.started_at, m.finished_at = Match.Status.FINISHED, m.started_at or now, now
        m.end_reason, m.winner_seat, m.scores = "normal", table[order[0]].seat, scores
    Seat.objects.bulk_update(
        seats, ["placing", "points", "hands_won", "six_love_given"], batch_size=500
    )
    Match.objects.bulk_update(
        matches,
        ["status", "started_at", "finished_at", "end_reason", "winner_seat", "scores"],
        batch_size=500,  # one CASE per field over thousands of rows is quadratic to plan
    )
    Tournament.objects.filter(pk=rnd.stage.tournament_id).update(version=F("version") + 1)


def build_data(players: int, started: int, seed: int) -> tuple[int, list[MatchPlan]]:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from brackets.models import RoundMatch
    from brackets.services import round_publish, stage_create, stage_seed
    from scoring.engine import Ruleset
    from scoring.engine.simulate import simulate_match
    from scoring.models import Match
    from scoring.services import match_start
    from tournament.models import Entry, Player, Tournament, TournamentRole

    call_command("migrate", verbosity=0)
    rng = random.Random(seed)
    ruleset = Ruleset.from_preset("wsod", {})
    tournament = Tournament.objects.create(
        name="Bench Live Open",
        slug=SLUG,
        status=Tournament.Status.RUNNING,
        ruleset_preset="wsod",
        ruleset=ruleset.to_json(),
    )
    director = get_user_model().objects.create_user("bench-director", password="x")
    TournamentRole.objects.create(
        tournament=tournament, user=director, role=TournamentRole.Role.DIRECTOR
    )
    people = Player.objects.bulk_create(
        [
            Player(name=f"Player {i:04d}", club=f"Club {i % 40}", rating=3000 - i)
            for i in range(players)
        ]
    )
    Entry.objects.bulk_create(
        [Entry(tournament=tournament, player=p, checked_in=True) for p in people]
    )
    stage = stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=5,
        cut_size=64,
        rng_seed=seed,
        round_time_limit=60,
    )
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    for _ in range(3):
        _finish_round_in_bulk(rnd, rng)
        rnd = round_publish(stage=stage, actor=director)
    ids = list(
        RoundMatch.objects.filter(round=rnd)
        .order_by("table_number")
        .values_list("match_id", flat=True)
    )
    plans = []
    for match_id in ids[:started]:
        match = Match.objects.get(pk=match_id)
        sim = simulate_match(ruleset, match.n_players, rng.randrange(1 << 30))
        match_start(match_id=match_id, actor=director, lot_winner=sim.lot_winner)
        plans.append(MatchPlan(match_id, [r.to_dict() for r in sim.records]))
    return tournament.pk, plans


class Recorder:
    """Records hands through the real service, round-robin over the started matches."""

    def __init__(self, plans: list[MatchPlan]) -> None:
        from django.contrib.auth import get_user_model

        self.plans = [p for p in plans if p.payloads]
        self.actor = get_user_model().objects.get(username="bench-director")
        self.turn = 0

    def record(self) -> tuple[int, float]:
        """Record one hand; return (tournament version, time of COMMIT)."""
        from django.db import transaction

        from scoring.services import hand_record

        for _ in range(len(self.plans)):
            plan = self.plans[self.turn % len(self.plans)]
            self.turn += 1
            if plan.next_index < len(plan.payloads):
                break
        else:
            raise RuntimeError("out of simulated hands: raise --started")
        stamp: list[float] = []
        with transaction.atomic():
            # Registered before the service's broadcast, so it runs first after COMMIT.
            transaction.on_commit(lambda: stamp.append(time.time()))
            result = hand_record(
                match_id=plan.match_id,
                actor=self.actor,
                expected_number=plan.next_index + 1,
                payload=plan.payloads[plan.next_index],
            )
        plan.next_index += 1
        version = result.body.get("tournament_version")
        if version is None:
            from tournament.models import Tournament

            version = Tournament.objects.values_list("version", flat=True).get(slug=SLUG)
        return int(version), stamp[0]


def current_version() -> int:
    from tournament.models import Tournament

    return int(Tournament.objects.values_list("version", flat=True).get(slug=SLUG))


def bump_version() -> int:
    from tournament.models import Tournament
    from tournament.services import tournament_version_bump

    return tournament_version_bump(tournament_id=Tournament.objects.get(slug=SLUG).pk)


# -- servers ------------------------------------------------------------------------------------


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def start_server(
    port: int, env: dict[str, str], workers: int = 1, kind: str = "asgi"
) -> subprocess.Popen[bytes]:
    if kind == "wsgi":  # gunicorn sync workers on config.wsgi: persistent DB connections
        args = [
            str(Path(sys.executable).parent / "gunicorn"),
            "config.wsgi:application",
            f"--bind={HOST}:{port}",
            f"--workers={workers}",
            f"--worker-class={os.environ.get('BENCH_WSGI_WORKER', 'gthread')}",
            f"--threads={os.environ.get('BENCH_WSGI_THREADS', '4')}",
            "--keep-alive=30",
            "--backlog=4096",
            "--log-level=warning",
        ]
        return wait_ready(
            subprocess.Popen(
                args, env={**os.environ, **env}, cwd=str(BASE), start_new_session=True
            ),
            port,
        )
    args = [
        str(Path(sys.executable).parent / "uvicorn"),
        "config.asgi:application",
        f"--host={HOST}",
        f"--port={port}",
        f"--workers={workers}",
        "--ws-per-message-deflate=false",
        "--loop=uvloop",
        "--http=httptools",
        "--ws=websockets-sansio",
        "--lifespan=off",
        "--no-access-log",
        "--log-level=warning",
        "--backlog=4096",
    ]
    proc = subprocess.Popen(args, env={**os.environ, **env}, cwd=str(BASE), start_new_session=True)
    return wait_ready(proc, port)


def wait_ready(proc: subprocess.Popen[bytes], port: int) -> subprocess.Popen[bytes]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("server did not start")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def server_rss_mb(proc: subprocess.Popen[bytes]) -> float:
    try:
        pids = [proc.pid] + [
            int(p) for p in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        ]
        total = 0
        for pid in pids:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        return total / 1024
    except OSError:
        return float("nan")


# -- measurements ------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values``; NaN when there are none."""
    if not values:
        return float("nan")
    data = sorted(values)
    return data[min(len(data) - 1, max(0, math.ceil(q * len(data)) - 1))]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")
