"""Every table of a round recording at the same moment, through a live server: on PostgreSQL
and on the embedded default's SQLite (``make test`` runs this file in both).

Each referee's phone is a thread with its own HTTP connection, so the server answers from its
own threads, each with its own database connection, as ``make demo`` does. On SQLite a
transaction that read and then writes used to fail at once with "database is locked" (a 500)
when another table's hand was being written; the embedded settings make writers queue
(config.settings.base.embedded_sqlite).
"""

from __future__ import annotations

import random
import threading
from typing import Any

import httpx
import pytest

from scoring.engine import Ruleset
from scoring.engine.simulate import simulate_match
from scoring.models import Hand, Match
from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of
from tournament.services import referee_token_issue

pytestmark = [pytest.mark.django_db(transaction=True)]

TABLES = 8
HANDS = 4


def _table(tournament: Any, director: Any, seed: int) -> tuple[Match, str, list[dict[str, Any]]]:
    """A started match with its own referee credential and the first hands of a simulated
    match that starts as this one does (same lot winner)."""
    sim = simulate_match(Ruleset.from_json(tournament.ruleset), 4, seed)
    referee = referee_of(tournament)
    token = referee_token_issue(tournament=tournament, actor=director, user=referee)
    match = match_in_progress(tournament, referee=referee, lot_winner=sim.lot_winner)
    bodies = []
    for number, record in enumerate(sim.records[:HANDS], start=1):
        body = record.to_dict()
        body.pop("sporting", None)
        bodies.append({"number": number, **body})
    return match, token.key, bodies  # type: ignore[attr-defined]


def test_every_table_records_at_once_without_a_server_error(live_server: Any) -> None:
    tournament = TournamentFactory(status="running")
    director = director_of(tournament)
    rng = random.Random(19)
    tables = [_table(tournament, director, rng.randrange(2**31)) for _ in range(TABLES)]
    barrier = threading.Barrier(TABLES)
    answers: list[list[int]] = [[] for _ in range(TABLES)]

    def phone(i: int) -> None:
        match, key, bodies = tables[i]
        url = f"{live_server.url}/api/matches/{match.pk}/hands/"
        with httpx.Client(timeout=60, headers={"Authorization": f"Token {key}"}) as client:
            barrier.wait()
            for n, body in enumerate(bodies):
                r = client.post(url, json=body, headers={"Idempotency-Key": f"t{i}-h{n}"})
                answers[i].append(r.status_code)

    threads = [threading.Thread(target=phone, args=(i,)) for i in range(TABLES)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)

    assert answers == [[201] * HANDS] * TABLES
    for match, _key, _bodies in tables:
        numbers = list(
            Hand.objects.filter(match=match, void=False)
            .order_by("number")
            .values_list("number", flat=True)
        )
        assert numbers == list(range(1, HANDS + 1))
