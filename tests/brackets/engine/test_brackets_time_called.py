"""Placing when time is called (T3): score, then who reached it first, then hands won."""

from __future__ import annotations

import pytest

from brackets.engine import (
    BracketError,
    TimeCalledLine,
    TimeCalledPlacing,
    sudden_death_placings,
    time_called_placings,
)


def test_t3_reached_at_is_the_last_hand_that_changed_the_score() -> None:
    assert TimeCalledLine.from_scores(1, [1, 1, 2, 2], hands_won=2).reached_at == 3
    assert TimeCalledLine.from_scores(1, [0, 0, 0], hands_won=0).reached_at == 0
    # Reset to love at hand 5 (R31d), then scored again at hand 6.
    line = TimeCalledLine.from_scores(1, [1, 2, 2, 2, 0, 1], hands_won=3)
    assert (line.score, line.reached_at, line.hands_won) == (1, 6, 3)
    assert TimeCalledLine.from_scores(1, [], hands_won=0) == TimeCalledLine(1, 0, 0, 0)


def test_t3_order_by_score_then_reached_first_then_hands() -> None:
    lines = [
        TimeCalledLine(1, score=2, reached_at=7, hands_won=4),
        TimeCalledLine(2, score=3, reached_at=9, hands_won=3),
        TimeCalledLine(3, score=2, reached_at=5, hands_won=2),  # got to 2 before player 1
        TimeCalledLine(4, score=0, reached_at=8, hands_won=3),
    ]
    assert time_called_placings(lines) == (
        TimeCalledPlacing(2, 1),
        TimeCalledPlacing(3, 2),
        TimeCalledPlacing(1, 3),
        TimeCalledPlacing(4, 4),
    )


def test_t3_love_players_go_straight_to_hands_won() -> None:
    # Both on 0: "reached first" is meaningless on love (decision), hands won decide.
    lines = [
        TimeCalledLine(1, score=3, reached_at=4, hands_won=3),
        TimeCalledLine(2, score=0, reached_at=0, hands_won=0),
        TimeCalledLine(3, score=0, reached_at=6, hands_won=2),
    ]
    assert [p.player_id for p in time_called_placings(lines)] == [1, 3, 2]


def test_t3_still_level_shares_a_placing_for_sudden_death() -> None:
    lines = [
        TimeCalledLine(1, score=2, reached_at=5, hands_won=2),
        TimeCalledLine(2, score=2, reached_at=5, hands_won=2),
        TimeCalledLine(3, score=1, reached_at=3, hands_won=1),
    ]
    assert time_called_placings(lines) == (
        TimeCalledPlacing(1, 1, (2,)),
        TimeCalledPlacing(2, 1, (1,)),
        TimeCalledPlacing(3, 3),
    )


def test_t3_errors() -> None:
    with pytest.raises(BracketError) as info:
        time_called_placings([TimeCalledLine(1, 1, 1, 1), TimeCalledLine(1, 2, 2, 2)])
    assert (info.value.code, info.value.rule) == ("duplicate_player", "T3")
    with pytest.raises(BracketError) as info:
        TimeCalledLine(1, -1, 0, 0)
    assert info.value.code == "negative_count"


def test_the_sudden_death_hand_winner_is_placed_first_and_the_others_keep_t3_order() -> None:
    lines = [
        TimeCalledLine.from_scores(1, [1, 1], 1),  # reached 1 first
        TimeCalledLine.from_scores(2, [0, 1], 1),  # won the sudden-death hand
        TimeCalledLine.from_scores(3, [0, 0], 0),
        TimeCalledLine.from_scores(4, [0, 0], 0),
    ]
    placed = {p.player_id: p.placing for p in sudden_death_placings(lines, {2})}
    assert placed == {2: 1, 1: 2, 3: 3, 4: 3}
    assert sudden_death_placings(lines, set()) == time_called_placings(lines)
