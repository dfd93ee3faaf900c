"""T3/T4 (RULES.md) placing at the table by score, table-driven: the winner first, then score,
then who reached it first, then hands won; players still level share the placing (1, 2, 2, 4),
and a shared first place is no match win; seat order never decides."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from scoring.engine.placing import placings_by_score, shared_placings_valid, sole_first

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
    # T4: the winner is first whatever the scores say (a match won on a partial total).
    ([4, 5, 0, 0], [[4, 5, 0, 0]], [2, 2, 0, 0], 0, [1, 2, 3, 3]),
    # T4: a three-player table ranks 1st..3rd.
    ([6, 3, 2], [[3, 3, 2], [6, 3, 2]], [2, 1, 1], 0, [1, 2, 3]),
    # T3: the reached-first key reads the final unchanged run, not the first time a score
    # was seen (seat 1 had 3 after hand 1, lost it to a reset, and got back to 3 at hand 3).
    ([3, 3, 0, 0], [[0, 3, 0, 0], [3, 0, 0, 0], [3, 3, 0, 0]], [1, 2, 0, 0], None, [1, 2, 3, 3]),
]


@pytest.mark.parametrize(("scores", "history", "hands_won", "winner", "expected"), CASES)
def test_t3_placings_by_score(
    scores: list[int],
    history: list[list[int]],
    hands_won: list[int],
    winner: int | None,
    expected: list[int],
) -> None:
    assert placings_by_score(scores, history, hands_won, winner) == expected


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
    assert shared_placings_valid(placings) is valid
    if valid:
        assert sole_first(placings) == winner
