"""Matches start without a separate step: the first hand recorded starts a scheduled match.

README (Rule decisions, Stages, rounds and advancement): the ruleset is frozen then (§1),
checked for the player count (R2), and under ``lot_then_rotate`` the first poser is the lot
winner (R6). A refused first hand leaves the match scheduled (one transaction).
"""

from __future__ import annotations

import pytest

from core.exceptions import ApplicationError
from scoring.models import Hand, Match
from scoring.services import hand_record
from tests.factories import TournamentFactory, referee_of, scheduled_match
from tournament.services import _ruleset_effective

pytestmark = pytest.mark.django_db


def test_first_hand_starts_the_match_and_freezes_the_ruleset() -> None:
    tournament = TournamentFactory()
    referee = referee_of(tournament)
    match = scheduled_match(tournament, referee=referee)
    assert match.status == Match.Status.SCHEDULED
    assert not match.ruleset
    payload = {"poser": 2, "pose_tile": "6-6", "end": "domino", "winner": 2}
    result = hand_record(match_id=match.pk, actor=referee, expected_number=1, payload=payload)
    assert result.status == 201
    match.refresh_from_db()
    assert match.status == Match.Status.IN_PROGRESS
    assert match.started_at is not None
    assert match.ruleset["preset"] == tournament.ruleset_preset
    assert match.hands_count == 1
    assert match.lot_winner == 0  # forced_six_six: the lot plays no part (R5, R6)


def test_refused_first_hand_leaves_the_match_scheduled() -> None:
    tournament = TournamentFactory()
    referee = referee_of(tournament)
    match = scheduled_match(tournament, referee=referee)
    bad = {"poser": 0, "pose_tile": "5-5", "end": "domino", "winner": 0}  # not the 6-6 (R5)
    with pytest.raises(ApplicationError):
        hand_record(match_id=match.pk, actor=referee, expected_number=1, payload=bad)
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED
    assert match.started_at is None
    assert not match.ruleset
    assert not Hand.objects.filter(match=match).exists()


def test_lot_then_rotate_first_poser_is_the_lot_winner() -> None:
    tournament = TournamentFactory(ruleset_preset="block", ruleset=_ruleset_effective("block", {}))
    referee = referee_of(tournament)
    match = scheduled_match(tournament, n_players=3, referee=referee)
    payload = {
        "poser": 2,
        "pose_tile": "4-3",
        "end": "domino",
        "winner": 2,
        "counts": [10, 12, 0],
    }
    hand_record(match_id=match.pk, actor=referee, expected_number=1, payload=payload)
    match.refresh_from_db()
    assert match.status == Match.Status.IN_PROGRESS
    assert match.lot_winner == 2  # R6: the seat that won the draw for the lead posed hand 1
    assert match.next_hand is not None
    assert match.next_hand["poser"] == 0
