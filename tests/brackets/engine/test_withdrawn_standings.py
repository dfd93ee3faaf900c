"""Withdrawn players and partnerships in the standings (T5, T7, T10, T3), engine only.

A withdrawn or disqualified player (T7) ranks after everyone still in, and so does a withdrawn
partnership (T10 over T7): individual and pairs standings agree. Head-to-head is "among the
tied players" (T5, T10); a withdrawn player is never tied with one still in, so finishing
ahead of them earns no head-to-head point there (README, "Rule decisions"). Seed order never
decides a place (T3): level partnerships share a rank.
"""

from __future__ import annotations

from brackets.engine.pairs import PairLine, pairs_standings
from brackets.engine.standings import MatchRecord, Tiebreak, compute_standings

A, B, W, X, Y = 1, 2, 3, 8, 9


def test_a_withdrawn_player_with_a_win_ranks_after_everyone_still_in_t7() -> None:
    records = [
        MatchRecord(1, W, 1),
        MatchRecord(1, X, 2),
        MatchRecord(2, A, 1),
        MatchRecord(2, Y, 2),
    ]
    s = compute_standings(records, withdrawn={W: 1})
    assert s.order()[-1] == W
    assert s.row(W).rank == 4
    assert s.row(W).tied_with == ()
    assert s.row(W).decided_by is Tiebreak.MATCH_WINS  # a withdrawal, not a T5 key


def test_head_to_head_ignores_a_place_ahead_of_a_withdrawn_player_t5_t7() -> None:
    """A finished ahead of W; B never met A or W. A, B and W are level on every key, but W is
    withdrawn: A and B are the tied players (T5) and never met, so they stay level."""
    records = [
        MatchRecord(1, A, 1),
        MatchRecord(1, W, 2),
        MatchRecord(2, W, 1),
        MatchRecord(2, Y, 2),
        MatchRecord(3, B, 1),
        MatchRecord(3, X, 2),
    ]
    s = compute_standings(records, withdrawn={W: 1})
    assert (s.row(A).rank, s.row(B).rank) == (1, 1)
    assert s.row(A).tied_with == (B,)
    assert s.row(A).head_to_head == s.row(B).head_to_head == 0
    assert s.row(W).rank == 5  # after the four still in


def test_head_to_head_still_counts_a_table_shared_with_a_withdrawn_player_t7() -> None:
    """A and B sat at W's table: A ahead of B there still counts (T7: the match stands)."""
    records = [
        MatchRecord(1, W, 1),
        MatchRecord(1, A, 2),
        MatchRecord(1, B, 3),
        MatchRecord(2, A, 1),
        MatchRecord(2, X, 2),
        MatchRecord(3, B, 1),
        MatchRecord(3, Y, 2),
    ]
    s = compute_standings(records, withdrawn={W: 1})
    assert s.order()[:2] == (A, B)
    assert s.row(A).decided_by is Tiebreak.HEAD_TO_HEAD
    assert s.order()[-1] == W


def line(match: int, pair: int, opponent: int, won: bool) -> PairLine:
    return PairLine(match_id=match, pair_id=pair, opponent_id=opponent, won=won)


def test_a_withdrawn_partnership_ranks_after_every_partnership_still_in_t10_t7() -> None:
    lines = [line(1, W, X, True), line(1, X, W, False), line(2, A, Y, True), line(2, Y, A, False)]
    s = pairs_standings(lines, pairs=[W, A, X, Y], withdrawn={W: 1})
    assert s.order()[-1] == W
    assert [r.rank for r in s.rows] == [1, 2, 2, 4]
    assert s.rows[-1].decided_by is Tiebreak.MATCH_WINS
    assert s.rows[-1].tied_with == ()


def test_pairs_and_individual_standings_agree_on_withdrawn_last() -> None:
    """The same field as players and as partnerships: the same ranks, the withdrawn last."""
    records = [
        MatchRecord(1, W, 1),
        MatchRecord(1, X, 2),
        MatchRecord(2, A, 1),
        MatchRecord(2, Y, 2),
    ]
    lines = [line(1, W, X, True), line(1, X, W, False), line(2, A, Y, True), line(2, Y, A, False)]
    players = compute_standings(records, withdrawn={W: 1})
    pairs = pairs_standings(lines, pairs=[A, W, X, Y], withdrawn={W: 1})
    assert [(r.player_id, r.rank) for r in players] == [(r.pair_id, r.rank) for r in pairs.rows]


def test_pairs_head_to_head_ignores_a_win_over_a_withdrawn_partnership_t10() -> None:
    """A beat W, B beat X; W beat Y. A, B and W level on wins: W withdrawn, A and B never met."""
    lines = [
        line(1, A, W, True),
        line(1, W, A, False),
        line(2, B, X, True),
        line(2, X, B, False),
        line(3, W, Y, True),
        line(3, Y, W, False),
        line(4, A, Y, False),
        line(4, Y, A, True),
        line(5, B, Y, False),
        line(5, Y, B, True),
    ]
    s = pairs_standings(lines, pairs=[A, B, W, X, Y], withdrawn={W: 2})
    by_id = {r.pair_id: r for r in s.rows}
    assert by_id[A].rank == by_id[B].rank
    assert by_id[A].tied_with == (B,)
    assert s.order()[-1] == W


def test_withdrawn_partnerships_who_went_further_first_then_t10_never_seed_t3() -> None:
    lines = [line(1, X, Y, True), line(1, Y, X, False)]
    # Y out in round 2, X in round 1: Y went further. A and B (no lines) out in round 1 too.
    s = pairs_standings(lines, pairs=[A, B, X, Y, W], withdrawn={X: 1, Y: 2, A: 1, B: 1})
    assert s.order() == (W, Y, X, A, B)
    assert [r.rank for r in s.rows] == [1, 2, 3, 4, 4]  # A and B level: no seed decides
