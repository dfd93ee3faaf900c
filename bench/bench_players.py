"""Ratings and player profiles at scale (``make bench-players``).

1. **ratings**: a finished round of 1,000 players (250 tables of 4, placings from a seeded
   random draw) is rated by ``ratings.services.ratings_rebuild`` from the round's first match:
   fetch, openskill Plackett-Luce for every table, bulk insert of the history, upsert of the
   current ratings. Floor, in the same run: the same 250 ``rate_table`` calls with no database.
2. **profile**: the public profile page of a player with 500 rated matches, rendered through
   Django's test client (server time: the view, its three queries, the SVG chart and the
   template). Floor: ``/healthz`` through the same client.
3. **export**: the same 1,000-player event with every match played (26 hands each, from the
   engine's simulator: 6,500 hands): the eight public exports (players, matches, hands,
   standings as CSV and JSON, ``live/exports.py``) through the client with a cold cache, and the
   whole-tournament ZIP archive (``archive.services.archive_export``). Floor: the hands table
   read with ``values_list`` and ``json.dumps`` (what any export must at least do).

Each phase runs ``--repeats`` times (median and spread). It creates and uses its own PostgreSQL
database ``bench_players``; the test database is never touched.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

BASE = Path(__file__).resolve().parent.parent
if str(BASE) not in sys.path:
    sys.path.insert(0, str(BASE))

from bench.common import recreate_database  # noqa: E402
from bench.results import emit  # noqa: E402

DB_NAME = os.environ.get("BENCH_PLAYERS_DB", "bench_players")
GOAL_RATINGS_S = 1.0
GOAL_PROFILE_MS = 100.0
GOAL_EXPORT_S = 5.0


def _timed(fn, repeats: int) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def _spread(xs: list[float], scale: float = 1.0, unit: str = "s") -> str:
    return (
        f"{statistics.median(xs) * scale:.3g} {unit} ({min(xs) * scale:.3g}-{max(xs) * scale:.3g})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--history", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{DB_NAME}",
        REDIS_URL=os.environ.get("BENCH_PLAYERS_REDIS_URL", "redis://127.0.0.1:6379/10"),
    )
    load = os.getloadavg()[0]
    print(f"Preparing database {DB_NAME!r} ...", flush=True)
    recreate_database(DB_NAME)
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client
    from django.utils import timezone

    from brackets.models import Round, RoundMatch, Stage
    from ratings.model import Skill, rate_table
    from ratings.models import RatingChange
    from ratings.selectors import rated_matches
    from ratings.services import ratings_rebuild
    from scoring.models import Match, Seat
    from tournament.models import Entry, Player, Tournament

    call_command("migrate", verbosity=0)
    rng = random.Random(7)
    tournament = Tournament.objects.create(name="Bench", slug="bench", status="running")
    players = Player.objects.bulk_create(Player(name=f"P{i}") for i in range(args.players))
    entries = Entry.objects.bulk_create(Entry(tournament=tournament, player=p) for p in players)
    start = timezone.now()
    tables = args.players // 4
    matches = Match.objects.bulk_create(
        Match(
            tournament=tournament,
            n_players=4,
            status="finished",
            end_reason="normal",
            started_at=start,
            finished_at=start + timedelta(seconds=i),
            hands_count=10,
        )
        for i in range(tables)
    )
    placings = [rng.sample([1, 2, 3, 4], 4) for _ in range(tables)]
    Seat.objects.bulk_create(
        Seat(match=m, seat=s, entry=entries[4 * t + s], placing=placings[t][s])
        for t, m in enumerate(matches)
        for s in range(4)
    )
    # At a round's tables: only those matches are rated (ratings.selectors.rated_matches).
    stage = Stage.objects.create(
        tournament=tournament,
        number=1,
        name="Qualifying",
        kind=Stage.Kind.QUALIFYING,
        status=Stage.Status.RUNNING,
    )
    round_ = Round.objects.create(stage=stage, number=1, kind=Round.Kind.SWISS)

    def at_tables(ms: list[Match], first_table: int = 1) -> None:
        RoundMatch.objects.bulk_create(
            RoundMatch(round=round_, match=m, table_number=first_table + i)
            for i, m in enumerate(ms)
        )

    at_tables(matches)
    first = (start, matches[0].pk)

    # -- ratings of a finished round -------------------------------------------------------
    floor = _timed(lambda: [rate_table([Skill()] * 4, p) for p in placings], args.repeats)
    rated = _timed(lambda: ratings_rebuild(since=first), args.repeats)
    assert RatingChange.objects.count() == 4 * tables

    # -- exports of the 1,000-player event ---------------------------------------------------
    import json

    from django.core.cache import cache

    from archive.services import archive_export
    from scoring.engine.rules import PRESETS
    from scoring.engine.simulate import simulate_match
    from scoring.models import Hand

    sim = simulate_match(PRESETS["wsod"], 4, 7)
    records: list[dict[str, Any]] = [r.to_dict() for r in sim.records]
    Hand.objects.bulk_create(
        (
            Hand(
                match=m,
                number=n,
                poser=d["poser"],
                pose_tile=d["pose_tile"],
                end=d["end"],
                winner=d["winner"],
                counts=d["counts"],
                llave=bool(d["llave"]),
                sporting=bool(d["sporting"]),
                value=1,
                scores_after=[n % 7, 0, 0, 0],
                recorded_at=start + timedelta(seconds=n),
            )
            for m in matches
            for n, d in enumerate(records, start=1)
        ),
        batch_size=5000,
    )
    Match.objects.filter(tournament=tournament).update(hands_count=len(records))
    n_hands = Hand.objects.filter(match__tournament=tournament).count()
    export_client = Client(HTTP_HOST="127.0.0.1")
    export_urls = [
        f"/live/bench/export/{k}.{f}"
        for k in ("players", "matches", "hands", "standings")
        for f in ("csv", "json")
    ]

    def all_exports() -> None:
        cache.clear()
        for url in export_urls:
            response = export_client.get(url)
            assert response.status_code == 200, (url, response.status_code)
            _ = b"".join(response) if response.streaming else response.content

    def hands_floor() -> None:
        rows = list(
            Hand.objects.filter(match__tournament=tournament)
            .order_by("match_id", "number")
            .values_list("match_id", "number", "poser", "pose_tile", "end", "winner", "counts")
        )
        json.dumps(rows)

    all_exports()  # warm: templates, URL resolver, connection
    exports = _timed(all_exports, args.repeats)
    archive_size = len(archive_export(tournament))
    archives = _timed(lambda: archive_export(tournament), args.repeats)
    export_floor = _timed(hands_floor, args.repeats)

    # -- profile of a player with a long history -------------------------------------------
    hero = players[0]
    history_matches = Match.objects.bulk_create(
        Match(
            tournament=tournament,
            n_players=2,
            status="finished",
            end_reason="normal",
            started_at=start - timedelta(days=1, seconds=i),
            finished_at=start - timedelta(days=1, seconds=i),
            hands_count=10,
        )
        for i in range(args.history - 1)
    )
    # Rated matches as the profile counts them: at a round's table, the hero and one other
    # player placed (the page's statistics read them; its chart reads the rating changes).
    at_tables(history_matches, first_table=tables + 1)
    Seat.objects.bulk_create(
        Seat(
            match=m,
            seat=s,
            entry=entries[0 if s == 0 else 1 + i % (len(entries) - 1)],
            placing=(1 + i % 2) if s == 0 else (2 - i % 2),
        )
        for i, m in enumerate(history_matches)
        for s in range(2)
    )
    RatingChange.objects.bulk_create(
        RatingChange(
            player=hero,
            match=m,
            tournament=tournament,
            rated_at=m.finished_at,
            placing=1 + i % 2,
            table_size=2,
            mu_before=25,
            sigma_before=8,
            mu_after=25 + i % 7,
            sigma_after=8 - i / 1000,
        )
        for i, m in enumerate(history_matches)
    )
    from django.db import connection

    with connection.cursor() as cursor:  # as autovacuum would have: planner statistics
        cursor.execute("ANALYZE")
    n_history = RatingChange.objects.filter(player=hero).count()
    assert rated_matches().filter(seats__entry__player=hero).count() == n_history
    client = Client(HTTP_HOST="127.0.0.1")
    client.get(f"/players/{hero.pk}/")  # warm: templates, URL resolver, connection
    client.get("/healthz")
    page = _timed(lambda: client.get(f"/players/{hero.pk}/"), max(args.repeats, 5) * 4)
    health = _timed(lambda: client.get("/healthz"), max(args.repeats, 5) * 4)
    assert client.get(f"/players/{hero.pk}/").status_code == 200

    rows = [
        (
            f"ratings: finished round of {args.players} players ({tables} tables)",
            _spread(rated),
            f"floor (rate_table only) {_spread(floor)}",
            f"<= {GOAL_RATINGS_S} s",
            statistics.median(rated) <= GOAL_RATINGS_S,
        ),
        (
            f"profile page, {n_history} rated matches",
            _spread(page, 1000, "ms"),
            f"floor (/healthz) {_spread(health, 1000, 'ms')}",
            f"<= {GOAL_PROFILE_MS:g} ms",
            statistics.median(page) * 1000 <= GOAL_PROFILE_MS,
        ),
        (
            f"export: the 8 public exports (CSV + JSON) of the {args.players}-player event,"
            f" {n_hands:,} hands, cold cache",
            _spread(exports),
            f"floor (hands read + json.dumps) {_spread(export_floor)}",
            f"<= {GOAL_EXPORT_S:g} s",
            statistics.median(exports) <= GOAL_EXPORT_S,
        ),
        (
            f"export: ZIP archive of the same event ({archive_size / 1e6:.1f} MB)",
            _spread(archives),
            f"floor (hands read + json.dumps) {_spread(export_floor)}",
            f"<= {GOAL_EXPORT_S:g} s",
            statistics.median(archives) <= GOAL_EXPORT_S,
        ),
    ]
    ratios = {
        rows[0][0]: statistics.median(rated) / statistics.median(floor),
        rows[1][0]: statistics.median(page) / statistics.median(health),
        rows[2][0]: statistics.median(exports) / statistics.median(export_floor),
        rows[3][0]: statistics.median(archives) / statistics.median(export_floor),
    }
    print(
        f"\nbench-players: PostgreSQL on loopback, {args.repeats}+ trials each (median, min-max);"
        f" 1-min load average before the run {load:.2f}, after {os.getloadavg()[0]:.2f}"
    )
    print("| benchmark | figure | floor, same run | goal | result |")
    print("|---|---|---|---|---|")
    for name, fig, fl, goal, ok in rows:
        print(f"| {name} | {fig} | {fl} | {goal} | {'PASS' if ok else 'FAIL'} |")
        emit(
            "players",
            name,
            figure=fig,
            floor=fl,
            ratio=ratios[name],
            goal=f"{goal} (absolute)",
            passed=ok,
        )
    return 0 if all(r[-1] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
