"""A pairs match's result is the partnership's (R42, R43, R46, T4, T10): its standings line
counts the partnership's own hands won, both partners hold its placing, and every reader
(standings, profile, ratings) sees the same result."""

from __future__ import annotations

from typing import Any

import pytest

from brackets import services
from brackets.models import RoundMatch
from brackets.selectors.pairs import pairs_standings_table
from scoring.models import Match, Seat
from scoring.services import hand_record, match_start
from tests.brackets.pairs_helpers import make_pairs_tournament, pairs_stages
from tournament.models import PartnershipMember

pytestmark = pytest.mark.django_db

# AC wins 6-0 (wsod_partners): a block whose lowest count A and C share (R43: both partners
# are credited with it, the partnership once, R46), then C dominoes once and A four times.
# Seat hands_won: A 5, C 2; the partnership won 6 hands (T10), neither 5 (the better partner)
# nor 7 (the sum).
AC_SIX_LOVE: list[dict[str, Any]] = [
    {"poser": 1, "pose_tile": "6-6", "end": "block", "counts": [5, 10, 5, 12]},
    # R44: of A and C, the first from the seat after the poser (B) is C.
    {"poser": 2, "pose_tile": "3-4", "end": "domino", "winner": 2},
    {"poser": 2, "pose_tile": "2-5", "end": "domino", "winner": 0},
    {"poser": 0, "pose_tile": "1-1", "end": "domino", "winner": 0},
    {"poser": 0, "pose_tile": "0-4", "end": "domino", "winner": 0},
    {"poser": 0, "pose_tile": "5-5", "end": "domino", "winner": 0},
]


def play_pairs_match(records: list[dict[str, Any]]) -> tuple[Any, Any, Match]:
    """A two-partnership pairs event; its one round-1 table plays ``records``."""
    t, d, _ = make_pairs_tournament(2)
    q, _ = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    rnd = services.round_publish(stage=q, actor=d)
    link = RoundMatch.objects.get(round=rnd)
    match_start(match_id=link.match_id, actor=d, lot_winner=0)
    for number, payload in enumerate(records, start=1):
        hand_record(match_id=link.match_id, actor=d, expected_number=number, payload=payload)
    match = Match.objects.get(pk=link.match_id)
    assert match.status == Match.Status.FINISHED
    return t, q, match


def pair_hands_won(stage_id: int) -> dict[int, int]:
    table = pairs_standings_table(stage_id=stage_id)
    assert table is not None
    return {line.pair.pair_id: line.row.hands_won for line in table}


def side_pairs(match: Match) -> tuple[int, int]:
    owner = dict(
        PartnershipMember.objects.filter(
            partnership__tournament_id=match.tournament_id
        ).values_list("entry_id", "partnership_id")
    )
    seats = dict(Seat.objects.filter(match=match).values_list("seat", "entry_id"))
    return owner[seats[0]], owner[seats[1]]


def test_pairs_standings_count_the_partnerships_hands_won_once_t10_r46() -> None:
    _, q, match = play_pairs_match(AC_SIX_LOVE)
    seats = dict(Seat.objects.filter(match=match).values_list("seat", "hands_won"))
    assert (seats[0], seats[2]) == (5, 2)  # R35 per player: the shared block credits both
    ac, bd = side_pairs(match)
    assert pair_hands_won(q.pk) == {ac: 6, bd: 0}


def test_pairs_standings_do_not_trust_a_retired_snapshot_t10() -> None:
    """The engine snapshot is a cache: a finished match whose snapshot is gone (an override
    clears it) or stale (another version) still gives the partnership's count."""
    _, q, match = play_pairs_match(AC_SIX_LOVE)
    ac, bd = side_pairs(match)
    stale = dict(match.engine_state)
    stale["match_version"] = match.version - 1
    stale["state"] = {**stale["state"], "team_stats": [[0] * 10, [9] * 10]}
    Match.objects.filter(pk=match.pk).update(engine_state=stale, version=match.version + 1)
    assert pair_hands_won(q.pk) == {ac: 6, bd: 0}
    Match.objects.filter(pk=match.pk).update(engine_state=None)
    assert pair_hands_won(q.pk) == {ac: 6, bd: 0}
