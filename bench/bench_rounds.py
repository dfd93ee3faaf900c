"""Benchmark: publishing a 1,000-player round, and the next round after the last match ends.

``make bench-rounds`` (or ``python bench/bench_rounds.py [--players 1000] [--repeats 3]``).

1. Creates a dedicated PostgreSQL database ``bench_rounds`` (dropped and re-created each run;
   the test database is never touched) and uses Redis database 12 as Celery broker, cache and
   channel layer (flushed before and after). Migrates it; builds each tournament's players and
   entries in bulk (not timed).
2. **publish**: ``brackets.services.round_publish`` of round 1 (seeded snake, T8) and of round 2
   (Swiss reseating against round 1, T8) of a 1,000-player qualifying stage, by a director, on
   PostgreSQL, each in its own transaction: the wall time of the service call (planning,
   bulk inserts of 250 matches, their links and 1,000 seats, the action log, the version bump).
3. **advance**: a real Celery worker process (prefork, 2 children, the project's settings)
   consumes the broker. All matches of a published round but one are finished in bulk (random
   results, not timed); the last one is started and its hands recorded through
   ``scoring.services.hand_record`` from the rules engine's simulator. Timed: from just before
   the call that records the match's last hand until the next round's row is committed (polled
   from here every 2 ms), so it includes the recording transaction, the ``match_finished``
   domain event dispatched after commit, the ``brackets.round_check`` task it enqueues, and
   ``round_advance`` closing the round and publishing the next one (Swiss reseating of 1,000
   players included).

Prints ``metric | median | max | goal | pass`` and exits 1 if a goal is missed.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BASE = Path(__file__).resolve().parent.parent
if str(BASE) not in sys.path:
    sys.path.insert(0, str(BASE))

from bench.common import flush_redis, recreate_database  # noqa: E402
from bench.results import emit, load_average  # noqa: E402

DB_NAME = "bench_rounds"
REDIS_URL = "redis://127.0.0.1:6379/12"
GOAL_PUBLISH_S = 3.0
GOAL_ADVANCE_S = 2.0


def bench_env() -> dict[str, str]:
    return {
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DB_NAME}",
        "REDIS_URL": REDIS_URL,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "CACHE_KEY_PREFIX": "bench-rounds",
        "CHANNEL_PREFIX": "bench-rounds-asgi",
        "LOG_LEVEL": "WARNING",
    }


def start_worker(log: str | None = None) -> subprocess.Popen[bytes]:
    """A Celery worker as production runs it; ``log``: its INFO log goes to that file (each
    task's received / succeeded-in lines, to see where an advance's time goes)."""
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 (the worker owns it)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config.celery_app",
            "worker",
            "--pool=prefork",
            "--concurrency=2",
            "--without-gossip",
            "--without-mingle",
            f"--loglevel={'INFO' if log else 'WARNING'}",
        ],
        cwd=BASE,
        env={**os.environ, **bench_env(), **({"LOG_LEVEL": "INFO"} if log else {})},
        stdout=out,
        stderr=out,
    )
    from config.celery_app import app

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        replies = app.control.ping(timeout=0.5)
        if replies:
            return proc
    proc.kill()
    raise SystemExit("the Celery worker did not start")


def build_tournament(n: int, label: str, *, auto_advance: bool) -> tuple[Any, Any, Any]:
    """A tournament of ``n`` checked-in players (bulk), a director, 25 referees, a stage."""
    from django.contrib.auth import get_user_model

    from brackets import services
    from scoring.engine import Ruleset
    from tournament.models import Entry, Player, Tournament, TournamentRole

    users = get_user_model()
    director = users.objects.create(username=f"director-{label}", is_superuser=True)
    tournament = Tournament.objects.create(
        name=f"Bench {label}",
        slug=f"bench-{label}",
        status=Tournament.Status.RUNNING,
        ruleset=Ruleset.from_preset("wsod", {}).to_json(),
    )
    TournamentRole.objects.create(
        tournament=tournament, user=director, role=TournamentRole.Role.DIRECTOR
    )
    refs = users.objects.bulk_create([users(username=f"ref-{label}-{i}") for i in range(25)])
    TournamentRole.objects.bulk_create(
        [
            TournamentRole(tournament=tournament, user=u, role=TournamentRole.Role.REFEREE)
            for u in refs
        ]
    )
    players = Player.objects.bulk_create(
        [Player(name=f"{label} {i:05d}", club=f"Club {i % 40}", rating=3000 - i) for i in range(n)]
    )
    Entry.objects.bulk_create(
        [Entry(tournament=tournament, player=p, checked_in=True) for p in players]
    )
    stage = services.stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=6,
        cut_size=64,
        auto_advance=auto_advance,
        rng_seed=7,
    )
    services.stage_seed(stage=stage, actor=director, method="rating")
    return tournament, director, stage


def finish_all_but_one(rnd: Any, rng: random.Random, *, keep_last: bool = True) -> Any:
    """Finish every match of the round (but the last), in bulk (setup, not timed)."""
    from django.utils import timezone

    from scoring.models import Match, Seat

    matches = list(
        Match.objects.select_related("tournament").filter(round_link__round=rnd).order_by("pk")
    )
    last, done = matches[-1], (matches[:-1] if keep_last else matches)
    now = timezone.now()
    seats = list(Seat.objects.filter(match__in=done).order_by("match_id", "seat"))
    by_match: dict[int, list[Any]] = {}
    for s in seats:
        by_match.setdefault(s.match_id, []).append(s)
    for m in done:
        places = list(range(1, m.n_players + 1))
        rng.shuffle(places)
        for s, place in zip(by_match[m.pk], places, strict=True):
            s.placing = place
            s.points = 6 if place == 1 else rng.randrange(0, 5)
            s.hands_won = s.points + rng.randrange(0, 3)
            s.six_love_given = 1 if place == 1 and rng.random() < 0.2 else 0
        m.status = Match.Status.FINISHED
        m.end_reason = Match.EndReason.NORMAL
        m.started_at = now
        m.finished_at = now
    Seat.objects.bulk_update(seats, ["placing", "points", "hands_won", "six_love_given"])
    Match.objects.bulk_update(done, ["status", "end_reason", "started_at", "finished_at"])
    return last


def time_advance(rnd: Any, director: Any, seed: int) -> float:
    """Play the round's last match through hand_record; seconds until the next round exists."""
    from brackets.models import Round
    from scoring.engine import Ruleset
    from scoring.engine.simulate import simulate_match
    from scoring.services import hand_record, match_start

    last = finish_all_but_one(rnd, random.Random(seed))
    sim = simulate_match(Ruleset.from_json(last.tournament.ruleset), last.n_players, seed)
    match_start(match_id=last.pk, actor=director, lot_winner=sim.lot_winner)
    records = [r.to_dict() for r in sim.records]
    for i, rec in enumerate(records[:-1], start=1):
        hand_record(match_id=last.pk, actor=director, expected_number=i, payload=rec)
    t0 = time.perf_counter()
    hand_record(match_id=last.pk, actor=director, expected_number=len(records), payload=records[-1])
    deadline = t0 + 30
    nxt = Round.objects.filter(stage_id=rnd.stage_id, number=rnd.number + 1)
    while not nxt.exists():
        if time.perf_counter() > deadline:
            raise SystemExit(f"round {rnd.number + 1} was not published within 30 s")
        time.sleep(0.002)
    return time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--worker-log", default=None, help="write the worker's INFO log here")
    args = parser.parse_args()

    os.environ.update(bench_env())
    print(f"Preparing database {DB_NAME!r} ...", flush=True)
    recreate_database(DB_NAME)
    flush_redis(REDIS_URL)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from brackets import services
    from brackets.models import Round
    from config.celery_app import app

    call_command("migrate", verbosity=0)
    app.conf.task_always_eager = False

    # -- publish: rounds 1 and 2 by the director (auto-advance off) ------------------------
    publish_1: list[float] = []
    publish_2: list[float] = []
    queries: list[int] = []
    tables = 0
    for k in range(args.repeats):
        _, director, stage = build_tournament(args.players, f"p{k}", auto_advance=False)
        with CaptureQueriesContext(connection) as ctx:
            t0 = time.perf_counter()
            r1 = services.round_publish(stage=stage, actor=director, expected_number=1)
            publish_1.append(time.perf_counter() - t0)
        queries.append(len(ctx.captured_queries))
        tables = r1.round_matches.count()
        finish_all_but_one(r1, random.Random(k), keep_last=False)
        t0 = time.perf_counter()
        services.round_publish(stage=stage, actor=director, expected_number=2)
        publish_2.append(time.perf_counter() - t0)
        print(
            f"  publish {k + 1}/{args.repeats}: round 1 {publish_1[-1]:.2f} s "
            f"({queries[-1]} queries), round 2 {publish_2[-1]:.2f} s",
            flush=True,
        )

    # -- advance: last match ends -> next round published by the worker ---------------------
    worker = start_worker(args.worker_log)
    advance: list[float] = []
    try:
        _, director, stage = build_tournament(args.players, "adv", auto_advance=True)
        rnd = services.round_publish(stage=stage, actor=director, expected_number=1)
        for k in range(args.repeats):
            seconds = time_advance(rnd, director, seed=100 + k)
            advance.append(seconds)
            rnd = Round.objects.get(stage=stage, number=rnd.number + 1)
            print(
                f"  advance {k + 1}/{args.repeats}: round {rnd.number - 1} -> {rnd.number} "
                f"in {seconds:.2f} s (ended {time.strftime('%H:%M:%S')})",
                flush=True,
            )
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
        flush_redis(REDIS_URL)

    rows = [
        (f"publish round 1 ({args.players} players, {tables} tables)", publish_1, GOAL_PUBLISH_S),
        (f"publish round 2, Swiss ({args.players} players)", publish_2, GOAL_PUBLISH_S),
        ("last match ends -> next round published (task)", advance, GOAL_ADVANCE_S),
        ("  of which the first after the worker started", advance[:1], GOAL_ADVANCE_S),
        ("  of which the later ones", advance[1:] or advance, GOAL_ADVANCE_S),
    ]
    print()
    print(
        f"bench-rounds: PostgreSQL + Redis on loopback, {os.cpu_count()} cores, real Celery "
        f"worker (prefork x2), {args.repeats} runs each; load (1 min) {load_average():.1f}"
    )
    print(f"| {'metric':<52} | {'median s':>8} | {'max s':>7} | {'goal s':>6} | pass |")
    print(f"|{'-' * 54}|{'-' * 10}|{'-' * 9}|{'-' * 8}|------|")
    ok = True
    for name, values, goal in rows:
        passed = max(values) < goal
        ok &= passed
        print(
            f"| {name:<52} | {statistics.median(values):>8.2f} | {max(values):>7.2f} | "
            f"{goal:>6.1f} | {'yes' if passed else 'NO':>4} |"
        )
        emit(
            "rounds",
            name.strip(),
            figure=f"{statistics.median(values):.2f} s (max {max(values):.2f})",
            floor="none (absolute goal)",
            goal=f"max < {goal:.1f} s (absolute)",
            passed=passed,
        )
    print(f"queries to publish round 1: {min(queries)}-{max(queries)} (constant: bulk inserts)")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
