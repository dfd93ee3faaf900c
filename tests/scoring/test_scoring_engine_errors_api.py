"""Every engine rejection surfaces through the API as a 400 with the engine's code and rule.

Simulated matches (seeded) are recorded through the API; at every hand a set of corrupted
records is first tried: the engine itself says what is wrong (``match_apply`` on the folded
state), and the API must answer 400 with exactly that code, rule and field, storing nothing.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from rest_framework.test import APIClient

from scoring.engine import Ruleset, RuleViolation, Tile
from scoring.engine.match import MatchState, match_apply, match_start
from scoring.engine.record import EndKind, HandRecord
from scoring.engine.simulate import simulate_match
from scoring.models import Hand
from tests.factories import TournamentFactory, match_in_progress, referee_of

pytestmark = pytest.mark.django_db


def corruptions(record: HandRecord, n: int, max_count: int) -> list[HandRecord]:
    """Records that break one rule each (some may happen to be legal; those are skipped)."""
    out = [
        replace(record, poser=(record.poser + 1) % n),
        replace(record, poser=n + 1),
        replace(record, pose_tile=Tile.of(1, 0)),
        replace(record, llave=True),
        replace(record, sporting=True),
        replace(record, end=EndKind.BLOCK, winner=None, counts=(max_count + 1,) * n),
        replace(record, end=EndKind.BLOCK, winner=0, counts=(1,) * n),
        replace(record, end=EndKind.BLOCK, winner=None, counts=None),
        replace(record, end=EndKind.DOMINO, winner=n + 2),
        replace(record, end=EndKind.DOMINO, winner=0, counts=(3,) * n),
        replace(record, counts=(0,) * (n + 1)),
        replace(record, counts=tuple(-1 for _ in range(n))),
    ]
    return [c for c in out if c != record]


def engine_verdict(state: MatchState, record: HandRecord) -> RuleViolation | None:
    try:
        match_apply(state, record)
    except RuleViolation as exc:
        return exc
    return None


@pytest.mark.parametrize(
    ("preset", "overrides", "players", "seed"),
    [
        ("wsod", {}, 4, 1),
        ("wsod_playoff", {}, 3, 2),
        ("jamaican", {}, 4, 3),
        ("straight_six", {}, 2, 4),
        ("block", {}, 3, 5),
    ],
)
def test_engine_rejections_map_one_to_one(
    preset: str, overrides: dict[str, Any], players: int, seed: int
) -> None:
    ruleset = Ruleset.from_preset(preset, overrides)
    sim = simulate_match(ruleset, players, seed, max_hands=12)
    tournament = TournamentFactory(ruleset_preset=preset, ruleset_overrides=overrides)
    referee = referee_of(tournament)
    match = match_in_progress(
        tournament, n_players=players, referee=referee, lot_winner=sim.lot_winner
    )
    api = APIClient()
    api.force_authenticate(referee)
    state = match_start(ruleset, players, lot_winner=sim.lot_winner)
    max_count = ruleset.max_count(players)
    checked = 0
    for number, record in enumerate(sim.records, start=1):
        for bad in corruptions(record, players, max_count):
            verdict = engine_verdict(state, bad)
            if verdict is None:
                continue
            body = {"number": number, **bad.to_dict()}
            r = api.post(
                f"/api/matches/{match.pk}/hands/",
                data=json.dumps(body),
                content_type="application/json",
            )
            assert r.status_code == 400, (bad, r.content)
            error = r.json()["error"]
            assert (error["code"], error["rule"]) == (verdict.code, verdict.rule), bad
            assert (verdict.field or "non_field_errors") in error["fields"], (bad, error)
            checked += 1
        assert Hand.objects.filter(match=match).count() == number - 1
        r = api.post(
            f"/api/matches/{match.pk}/hands/",
            data=json.dumps({"number": number, **record.to_dict()}),
            content_type="application/json",
        )
        assert r.status_code == 201, r.content
        state, _ = match_apply(state, record)
        assert r.json()["match"]["scores"] == list(state.scores)
    assert checked >= 10
