"""Fixtures for the brackets service tests: a tournament with N checked-in players, and a
helper that plays every match of a round through the scoring services with the rules engine's
simulator (``scoring.engine.simulate.simulate_match``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from brackets import services
from brackets.models import Round, RoundMatch, Stage
from scoring.engine import Ruleset
from scoring.engine.simulate import simulate_match
from scoring.models import Match
from scoring.services import hand_record, match_start
from tests.factories import TournamentFactory, UserFactory, director_of
from tournament.models import Entry, Player, Tournament


def make_tournament(
    n: int,
    *,
    clubs: int = 8,
    checked_in: bool = True,
    referees: int = 0,
    **kwargs: Any,
) -> tuple[Tournament, Any]:
    """A running tournament with ``n`` checked-in entries (bulk) and its director."""
    tournament = TournamentFactory(**kwargs)
    director = director_of(tournament)
    players = Player.objects.bulk_create(
        [
            Player(name=f"P{i:04d}", club=f"Club {i % clubs}" if clubs else "", rating=3000 - i)
            for i in range(n)
        ]
    )
    Entry.objects.bulk_create(
        [Entry(tournament=tournament, player=p, checked_in=checked_in) for p in players]
    )
    from tests.factories import RoleFactory
    from tournament.models import TournamentRole

    for _ in range(referees):
        RoleFactory(tournament=tournament, user=UserFactory(), role=TournamentRole.Role.REFEREE)
    return tournament, director


def play_match(match: Match, actor: Any, seed: int) -> None:
    """Start ``match`` and record every hand the simulator plays, through the services."""
    ruleset = Ruleset.from_json(match.tournament.ruleset)
    sim = simulate_match(ruleset, match.n_players, seed)
    if match.status == Match.Status.SCHEDULED:
        match_start(match_id=match.pk, actor=actor, lot_winner=sim.lot_winner)
    for i, record in enumerate(sim.records, start=1):
        hand_record(match_id=match.pk, actor=actor, expected_number=i, payload=record.to_dict())


def open_matches(rnd: Round) -> list[Match]:
    ids = RoundMatch.objects.filter(round=rnd).values_list("match_id", flat=True)
    return list(
        Match.objects.select_related("tournament")
        .filter(pk__in=ids, status__in=[Match.Status.SCHEDULED, Match.Status.IN_PROGRESS])
        .order_by("pk")
    )


def play_round(rnd: Round, actor: Any, seed: int = 0) -> int:
    """Play every open match of the round (continuations too); returns how many were played.

    Each match's simulator seed comes from ``seed``, the stage and round numbers and the table
    number (never from database ids), so a test replays the same games on every run.
    """
    played = 0
    while True:
        todo = open_matches(rnd)
        if not todo:
            return played
        table_of = dict(
            RoundMatch.objects.filter(round=rnd).values_list("match_id", "table_number")
        )
        for m in todo:
            key = [seed, rnd.stage.number, rnd.number, table_of[m.pk], played]
            play_match(m, actor, int("".join(f"{k:05d}" for k in key)) % 2_147_483_647)
            played += 1


@pytest.fixture
def tournament_factory() -> Callable[..., tuple[Tournament, Any]]:
    return make_tournament


def five_with_a_bye(**stage_kwargs: Any) -> tuple[Tournament, Any, Stage]:
    """Five players and a seeded two-round qualifying stage of tables of 4 only: round 1 seats
    one table and gives one bye (T1)."""
    t, d = make_tournament(5)
    q = services.stage_create(
        tournament=t,
        actor=d,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=2,
        cut_size=4,
        allow_three=False,
        rng_seed=3,
        **{"auto_advance": True, **stage_kwargs},
    )
    services.stage_seed(stage=q, actor=d)
    return t, d, q
