"""A published round under confirmation at the table (issue 15) with tables in each state the
director's round page tells apart: a result disputed by a player, a result held for the
players' taps, and tables not started. Built through the services only (no row forged)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from brackets.models import Round, RoundMatch
from brackets.services import round_publish, stage_seed
from scoring import confirmation
from scoring.models import Match
from scoring.services import hand_record
from tests.brackets.factories_pages import tournament_with_stage
from tournament.models import Tournament

FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}
NEXT = {"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 0}
# R31c: seat 0 reaches the target with everyone else on love; hand 6 is a block A wins (R20).
LAST_BLOCK = {"poser": 0, "pose_tile": "5-4", "end": "block", "counts": [3, 10, 12, 9]}
# A player's version of hand 6 (an outcome record, RULES.md section 9).
CLAIMED_BLOCK = {"poser": 0, "pose_tile": "5-4", "end": "block", "counts": [2, 14, 12, 9]}


@dataclass
class DisputedRound:
    tournament: Tournament
    director: Any
    round: Round
    disputed: list[Match]
    held: list[Match]
    idle: list[Match]


def play_to_the_result(match: Match, actor: Any) -> None:
    """Hands 1-6: the last ends the match (R31c), so its result waits for the players."""
    for number, payload in enumerate([FIRST, NEXT, NEXT, NEXT, NEXT, LAST_BLOCK], start=1):
        hand_record(match_id=match.pk, actor=actor, expected_number=number, payload=payload)


def dispute_the_result(match: Match, actor: Any) -> None:
    confirmation.hand_dispute(
        match_id=match.pk, actor=actor, number=6, seat=2, claimed=CLAIMED_BLOCK, note="A had 2"
    )


def disputed_round(*, players: int = 12, disputed: int = 1, held: int = 1) -> DisputedRound:
    """Round 1 of a ``players``-player qualifying under ``match_end`` confirmation: the first
    ``disputed`` tables disputed, the next ``held`` waiting for the players' taps, the others
    not started."""
    tournament, director, stage = tournament_with_stage(
        players, auto_advance=False, confirmation="match_end"
    )
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    matches = [
        link.match
        for link in RoundMatch.objects.filter(round=rnd)
        .select_related("match")
        .order_by("table_number")
    ]
    assert len(matches) >= disputed + held
    for match in matches[: disputed + held]:
        play_to_the_result(match, director)
    for match in matches[:disputed]:
        dispute_the_result(match, director)
    for match in matches:
        match.refresh_from_db()
    return DisputedRound(
        tournament=tournament,
        director=director,
        round=rnd,
        disputed=matches[:disputed],
        held=matches[disputed : disputed + held],
        idle=matches[disputed + held :],
    )
