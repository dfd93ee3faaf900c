"""T3 (RULES.md): players still level after score, reached-first and hands won share the
placing, and a shared first place is no match win; seat or seed order never decides."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from core.exceptions import ApplicationError
from scoring import services
from scoring.models import Match, Seat
from tests.factories import TournamentFactory, director_of, match_in_progress

# (scores, score history, hands won, winner) -> placings
CASES: list[tuple[list[int], list[list[int]], list[int], int | None, list[int]]] = [
    # A normal end: the winner first, then by score.
    ([6, 2, 1, 0], [[6, 2, 1, 0]], [3, 1, 1, 0], 0, [1, 2, 3, 4]),
    # Time called before any hand: everybody level, everybody shares first (T3 regression:
    # seat 0 used to be placed first and given the match win).
    ([0, 0, 0, 0], [], [0, 0, 0, 0], None, [1, 1, 1, 1]),
    # Level on score: who reached it first is ahead (T3).
    ([2, 2, 0, 0], [[0, 2, 0, 0], [2, 2, 0, 0]], [1, 1, 0, 0], None, [2, 1, 3, 3]),
    # Level on score and reached at the same hand: hands won decide (T3).
    ([2, 2, 0, 0], [[2, 2, 0, 0]], [2, 1, 0, 1], None, [1, 2, 4, 3]),
    # Level on every key at the top: shared first, no winner.
    ([3, 3, 1, 0], [[3, 3, 1, 0]], [2, 2, 1, 0], None, [1, 1, 3, 4]),
    # A winner ahead of a level pair: the pair share second, seat order does not split them.
    ([6, 1, 1, 0], [[6, 1, 1, 0]], [3, 1, 1, 0], 0, [1, 2, 2, 4]),
]


@pytest.mark.parametrize(("scores", "history", "hands_won", "winner", "expected"), CASES)
def test_t3_placings_by_score(
    scores: list[int],
    history: list[list[int]],
    hands_won: list[int],
    winner: int | None,
    expected: list[int],
) -> None:
    assert services.placings_by_score(scores, history, hands_won, winner) == expected


@pytest.mark.parametrize(
    ("placings", "valid", "winner"),
    [
        ([1, 2, 3, 4], True, 0),
        ([3, 1, 1, 4], True, None),
        ([1, 1, 1, 1], True, None),
        ([4, 1, 2, 2], True, 1),
        ([1, 1, 2, 3], False, None),
        ([1, 2, 2, 3], False, None),
        ([0, 1, 2, 3], False, None),
    ],
)
def test_t3_shared_placings_are_competition_ranks(
    placings: Sequence[int], valid: bool, winner: int | None
) -> None:
    assert services.shared_placings_valid(placings) is valid
    if valid:
        assert services.sole_first(placings) == winner


@pytest.mark.django_db
def test_t3_override_with_a_shared_first_stores_no_winner() -> None:
    tournament = TournamentFactory()  # type: ignore[no-untyped-call]
    director: Any = director_of(tournament)
    match = match_in_progress(tournament)
    m = services.match_result_override(
        match_id=match.pk,
        actor=director,
        scores=[0, 0, 0, 0],
        placings=[1, 1, 1, 1],
        reason="time before any hand (T3)",
    )
    assert (m.status, m.winner_seat) == (Match.Status.FINISHED, None)
    assert list(Seat.objects.filter(match=m).values_list("placing", flat=True)) == [1, 1, 1, 1]
    with pytest.raises(ApplicationError) as exc:
        services.match_result_override(
            match_id=match.pk,
            actor=director,
            scores=[0, 0, 0, 0],
            placings=[1, 1, 2, 3],
            reason="not a ranking",
        )
    assert (exc.value.code, exc.value.rule) == ("bad_placings", "T3")
