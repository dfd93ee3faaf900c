"""Fixtures of the live tests: tournaments in play built through the real services, isolated
cache and channel-layer namespaces, and a real ASGI server for browser tests.

Other engineers run their suites against the same Redis at the same time, and group names
(``tournament-<id>``) repeat between test databases: every test here gets its own cache key
prefix, and the session its own channel-layer prefix, so nobody's events reach anyone else.
"""

from __future__ import annotations

import copy
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.db.models import F
from django.utils import timezone

from brackets.models import Round, RoundMatch, Stage
from brackets.services import round_publish, stage_create, stage_seed
from scoring.engine import Ruleset
from scoring.engine.simulate import simulate_match
from scoring.models import Match, Seat
from scoring.services import hand_record, match_start
from tests.factories import TournamentFactory, director_of
from tournament.models import Entry, Player, Tournament

CHANNEL_PREFIX = f"ct-live-test-{os.getpid()}-{uuid.uuid4().hex[:6]}"


@pytest.fixture(autouse=True)
def _isolated_namespaces(settings: Any) -> None:
    from live.scope import RECENT

    RECENT.clear()  # ids and versions repeat between tests
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["KEY_PREFIX"] = f"ct-live-test-{uuid.uuid4().hex}"
    settings.CACHES = caches
    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    # Redis's layer only: the embedded run's InMemoryChannelLayer takes no ``prefix`` (it
    # raised TypeError on every broadcast, logged and dropped, so these tests never sent one
    # on SQLite as ``make demo`` does); its groups live in this process anyway.
    if "redis" in layers["default"]["BACKEND"].lower():
        layers["default"].setdefault("CONFIG", {})["prefix"] = CHANNEL_PREFIX
    settings.CHANNEL_LAYERS = layers


@dataclass
class LiveTournament:
    tournament: Tournament
    director: Any
    stage: Stage
    round: Round

    def matches(self, rnd: Round | None = None) -> list[Match]:
        ids = RoundMatch.objects.filter(round=rnd or self.round).values_list("match_id", flat=True)
        return list(Match.objects.filter(pk__in=ids).order_by("round_link__table_number"))

    def refresh(self) -> None:
        self.tournament.refresh_from_db()


def make_live_tournament(
    n_players: int,
    *,
    swiss_rounds: int = 3,
    cut_size: int | None = None,
    slug: str | None = None,
    round_time_limit: int | None = None,
) -> LiveTournament:
    """A running tournament with ``n_players`` entries, a seeded qualifying stage and round 1
    published (through the brackets services, so the version bumps and events are real)."""
    kwargs: dict[str, Any] = {"slug": slug} if slug else {}
    tournament = TournamentFactory(**kwargs)
    director = director_of(tournament)
    players = Player.objects.bulk_create(
        [
            Player(name=f"Player {i:04d}", club=f"Club {i % 7}", rating=3000 - i)
            for i in range(n_players)
        ]
    )
    Entry.objects.bulk_create(
        [Entry(tournament=tournament, player=p, checked_in=True) for p in players]
    )
    stage = stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind=Stage.Kind.QUALIFYING,
        swiss_rounds=swiss_rounds,
        cut_size=cut_size,
        rng_seed=7,
        round_time_limit=round_time_limit,
        auto_advance=True,
    )
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    tournament.refresh_from_db()
    return LiveTournament(tournament=tournament, director=director, stage=stage, round=rnd)


def start_match(match: Match, actor: Any, seed: int = 1) -> list[dict[str, Any]]:
    """Start ``match`` and return the simulator's hand records (payloads) for it."""
    ruleset = Ruleset.from_json(match.tournament.ruleset)
    sim = simulate_match(ruleset, match.n_players, seed)
    match_start(match_id=match.pk, actor=actor, lot_winner=sim.lot_winner)
    return [record.to_dict() for record in sim.records]


def play_hands(match: Match, actor: Any, payloads: list[dict[str, Any]], first: int = 1) -> None:
    for number, payload in enumerate(payloads, start=first):
        hand_record(match_id=match.pk, actor=actor, expected_number=number, payload=payload)


def finish_round_fast(rnd: Round, seed: int = 0) -> None:
    """Mark every match of ``rnd`` finished with plausible T4 lines, in bulk, bypassing the
    services (for the query-count tests: what matters there is the shape of the data)."""
    rng = random.Random(seed)
    now = timezone.now()
    matches = list(Match.objects.filter(round_link__round=rnd))
    seats = list(Seat.objects.filter(match__in=matches).order_by("match_id", "seat"))
    by_match: dict[int, list[Seat]] = {}
    for s in seats:
        by_match.setdefault(s.match_id, []).append(s)
    for m in matches:
        table = by_match[m.pk]
        order = list(range(len(table)))
        rng.shuffle(order)
        scores = [0] * len(table)
        for place, seat_index in enumerate(order, start=1):
            s = table[seat_index]
            s.placing = place
            s.points = 6 if place == 1 else rng.randint(0, 5)
            s.hands_won = s.points + rng.randint(0, 3)
            s.six_love_given = 1 if place == 1 and rng.random() < 0.3 else 0
            scores[s.seat] = s.points
        m.status = Match.Status.FINISHED
        m.started_at = m.started_at or now
        m.finished_at = now
        m.end_reason = Match.EndReason.NORMAL
        m.winner_seat = table[order[0]].seat
        m.scores = scores
        m.version = F("version") + 1
    Seat.objects.bulk_update(seats, ["placing", "points", "hands_won", "six_love_given"])
    Match.objects.bulk_update(
        matches,
        ["status", "started_at", "finished_at", "end_reason", "winner_seat", "scores", "version"],
    )
    Tournament.objects.filter(pk=rnd.stage.tournament_id).update(version=F("version") + 1)


def add_knockout(
    lt: LiveTournament,
    *,
    name: str = "Knockout",
    final_table_size: int = 4,
    auto_advance: bool = True,
    rng_seed: int | None = 3,
    **options: Any,
) -> Stage:
    """Append the knockout stage that ends at the final table (T6) to ``lt``'s tournament
    (one winner per table goes on unless ``options`` say otherwise)."""
    return stage_create(
        tournament=lt.tournament,
        actor=lt.director,
        name=name,
        kind=Stage.Kind.KNOCKOUT,
        final_table_size=final_table_size,
        rng_seed=rng_seed,
        auto_advance=auto_advance,
        **options,
    )


@pytest.fixture
def live_tournament(db: Any) -> LiveTournament:
    """Eight players, two tables of round 1 published; nothing played yet."""
    return make_live_tournament(8, cut_size=4, slug="spring-open")


# --- a real ASGI server (HTTP + websockets) for browser tests ------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class AsgiServer:
    """uvicorn serving ``config.asgi`` on loopback against the test database, in a child
    process; ``stop()`` / ``start()`` cut and restore every socket, as a server restart does."""

    port: int
    env: dict[str, str]
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "uvicorn"),
                "config.asgi:application",
                "--host=127.0.0.1",
                f"--port={self.port}",
                "--ws-per-message-deflate=false",
                "--lifespan=off",
                "--log-level=warning",
            ],
            env=self.env,
            cwd=str(settings.BASE_DIR),
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                code, self.proc = self.proc.returncode, None
                raise RuntimeError(f"the ASGI server exited with {code}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("the ASGI server did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None


def _server_env() -> dict[str, str]:
    db = connection.settings_dict
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        REDIS_URL=str(settings.REDIS_URL),
        CHANNEL_PREFIX=CHANNEL_PREFIX,
        DATABASE_CONN_MAX_AGE="0",
    )
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    return env


@pytest.fixture
def asgi_server(transactional_db: Any) -> Iterator[AsgiServer]:
    """The spectators' web process."""
    server = AsgiServer(port=_free_port(), env=_server_env())
    server.start()
    yield server
    server.stop()


@pytest.fixture
def api_server(transactional_db: Any) -> Iterator[AsgiServer]:
    """Another web process, the one the referees' phones happen to reach."""
    server = AsgiServer(port=_free_port(), env=_server_env())
    server.start()
    yield server
    server.stop()
