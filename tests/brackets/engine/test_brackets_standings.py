"""Standings (T5, T4, T7, T1): every tiebreak level, head-to-head and unresolved ties."""

from __future__ import annotations

import pytest

from brackets.engine import (
    BracketError,
    ByePolicy,
    MatchRecord,
    Standings,
    Tiebreak,
    compute_standings,
)


def line(match_id: int, player_id: int, placing: int, hands: int = 0, slg: int = 0) -> MatchRecord:
    return MatchRecord(
        match_id=match_id,
        player_id=player_id,
        placing=placing,
        hands_won=hands,
        six_loves_given=slg,
        points=6 if placing == 1 else hands,
    )


def table(standings: Standings) -> list[tuple[int, int, tuple[int, ...], Tiebreak]]:
    """(rank, player, tied_with, decided_by) per row, the golden shape of these tests."""
    return [(r.rank, r.player_id, r.tied_with, r.decided_by) for r in standings]


def test_t5_match_wins_first() -> None:
    s = compute_standings([line(1, 10, 2, hands=5), line(1, 20, 1, hands=4)])
    assert table(s) == [
        (1, 20, (), Tiebreak.MATCH_WINS),
        (2, 10, (), Tiebreak.MATCH_WINS),
    ]
    assert s.row(20).match_wins == 1
    assert s.row(10).match_wins == 0


def test_t5_hands_won_second() -> None:
    records = [
        line(1, 1, 1, hands=6),
        line(1, 2, 2, hands=3),
        line(2, 2, 1, hands=6),
        line(2, 1, 2, hands=2),
    ]
    s = compute_standings(records)
    # Both won a match; 2 won 9 hands, 1 won 8.
    assert table(s) == [(1, 2, (), Tiebreak.HANDS_WON), (2, 1, (), Tiebreak.HANDS_WON)]
    assert (s.row(2).hands_won, s.row(1).hands_won) == (9, 8)


def test_t5_six_loves_given_third() -> None:
    records = [
        line(1, 1, 1, hands=6, slg=2),
        line(1, 2, 2, hands=0),
        line(2, 2, 1, hands=6, slg=3),
        line(2, 1, 2, hands=0),
    ]
    s = compute_standings(records)
    assert table(s) == [
        (1, 2, (), Tiebreak.SIX_LOVES_GIVEN),
        (2, 1, (), Tiebreak.SIX_LOVES_GIVEN),
    ]


def test_t5_head_to_head_fourth() -> None:
    # 1 and 2 both: one win, 6 hands, no six-love. They met in match 1: 1 finished ahead.
    records = [
        line(1, 1, 1, hands=6),
        line(1, 3, 2, hands=3),
        line(1, 2, 3, hands=0),
        line(2, 2, 1, hands=6),
        line(2, 4, 2, hands=1),
        line(2, 5, 3, hands=0),
    ]
    s = compute_standings(records)
    assert table(s)[:2] == [(1, 1, (), Tiebreak.HEAD_TO_HEAD), (2, 2, (), Tiebreak.HEAD_TO_HEAD)]
    assert (s.row(1).head_to_head, s.row(2).head_to_head) == (1, 0)
    assert s.row(3).head_to_head is None  # not level with anyone
    assert not s.row(1).needs_playoff


def test_t5_unresolved_tie_needs_playoff() -> None:
    # 1 and 2 are identical and never met: same rank, each names the other.
    records = [line(1, 1, 1, hands=6), line(1, 3, 2), line(2, 2, 1, hands=6), line(2, 4, 2)]
    s = compute_standings(records)
    assert table(s) == [
        (1, 1, (2,), Tiebreak.PLAYOFF),
        (1, 2, (1,), Tiebreak.PLAYOFF),
        (3, 3, (4,), Tiebreak.PLAYOFF),
        (3, 4, (3,), Tiebreak.PLAYOFF),
    ]
    assert s.row(1).needs_playoff
    assert s.row(1).head_to_head == 0


def test_t5_head_to_head_cycle_stays_tied() -> None:
    # 1 ahead of 2, 2 ahead of 3, 3 ahead of 1: everyone scores 1 in the mini-table.
    records = [
        line(1, 1, 1, hands=6),
        line(1, 2, 2),
        line(2, 2, 1, hands=6),
        line(2, 3, 2),
        line(3, 3, 1, hands=6),
        line(3, 1, 2),
    ]
    s = compute_standings(records)
    assert table(s) == [
        (1, 1, (2, 3), Tiebreak.PLAYOFF),
        (1, 2, (1, 3), Tiebreak.PLAYOFF),
        (1, 3, (1, 2), Tiebreak.PLAYOFF),
    ]
    assert {r.head_to_head for r in s} == {1}


def test_t5_head_to_head_applies_again_inside_a_smaller_level_group() -> None:
    # A=1, B=2, C=3 all on 0 wins, 2 hands. Mini-table: A ahead of B (m1), B ahead of C (m2):
    # A 1, B 1, C 0. Among A and B alone, A is ahead: A, B, C.
    a, b, c = 1, 2, 3
    records = [
        line(1, 101, 1, hands=6),
        line(1, a, 2, hands=1),
        line(1, b, 3, hands=1),
        line(2, 103, 1, hands=6),
        line(2, b, 2, hands=1),
        line(2, c, 3, hands=1),
        line(3, 105, 1, hands=6),
        line(3, a, 2, hands=1),
        line(3, 106, 3),
        line(4, 107, 1, hands=6),
        line(4, c, 2, hands=1),
        line(4, 108, 3),
    ]
    s = compute_standings(records)
    assert table(s) == [
        (1, 101, (103, 105, 107), Tiebreak.PLAYOFF),
        (1, 103, (101, 105, 107), Tiebreak.PLAYOFF),
        (1, 105, (101, 103, 107), Tiebreak.PLAYOFF),
        (1, 107, (101, 103, 105), Tiebreak.PLAYOFF),
        (5, a, (), Tiebreak.HEAD_TO_HEAD),
        (6, b, (), Tiebreak.HEAD_TO_HEAD),
        (7, c, (), Tiebreak.HEAD_TO_HEAD),
        (8, 106, (108,), Tiebreak.PLAYOFF),
        (8, 108, (106,), Tiebreak.PLAYOFF),
    ]
    assert [s.row(p).head_to_head for p in (a, b, c)] == [1, 1, 0]


@pytest.mark.parametrize(("policy", "wins"), [(ByePolicy.WIN, 1), (ByePolicy.NOTHING, 0)])
def test_t1_bye_is_worth_a_win_or_nothing(policy: ByePolicy, wins: int) -> None:
    s = compute_standings(
        [line(1, 1, 2, hands=2), line(1, 2, 1, hands=6)], byes=[7], bye_policy=policy
    )
    row = s.row(7)
    assert (row.match_wins, row.hands_won, row.byes, row.played) == (wins, 0, 1, 0)


def test_t7_forfeit_is_a_zero_six_loss() -> None:
    records = [
        line(1, 1, 1, hands=6, slg=1),
        line(1, 2, 2, hands=2),
        MatchRecord.forfeit_loss(1, 3, placing=3),
    ]
    s = compute_standings(records)
    row = s.row(3)
    assert (row.match_wins, row.hands_won, row.points, row.six_loves_received, row.forfeits) == (
        0,
        0,
        0,
        1,
        1,
    )
    assert s.order() == (1, 2, 3)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"placing": 1, "forfeit": True},
        {"placing": 2, "forfeit": True, "hands_won": 1},
        {"placing": 2, "forfeit": True, "points": 2},
    ],
)
def test_t7_inconsistent_forfeit_is_rejected(kwargs: dict[str, int]) -> None:
    with pytest.raises(BracketError) as info:
        MatchRecord(match_id=1, player_id=1, **kwargs)  # type: ignore[arg-type]
    assert (info.value.code, info.value.rule) == ("bad_forfeit", "T7")


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"placing": 0}, "bad_placing"),
        ({"placing": 5}, "bad_placing"),
        ({"placing": 2, "ties": -1}, "negative_count"),
    ],
)
def test_t4_bad_lines_are_rejected(kwargs: dict[str, int], code: str) -> None:
    with pytest.raises(BracketError) as info:
        MatchRecord(match_id=1, player_id=1, **kwargs)  # type: ignore[arg-type]
    assert info.value.code == code
    assert info.value.rule == "T4"


def test_t4_duplicate_lines_and_placings_are_rejected() -> None:
    with pytest.raises(BracketError) as info:
        compute_standings([line(1, 1, 1), line(1, 1, 2)])
    assert info.value.code == "duplicate_record"
    # T3: a shared placing covers the places after it (1, 1, 3): 1, 1, 2 is no ranking.
    with pytest.raises(BracketError) as info:
        compute_standings([line(1, 1, 1), line(1, 2, 1), line(1, 3, 2)])
    assert (info.value.code, info.value.rule) == ("duplicate_placing", "T3")


# T3: players level after every time-called key share the placing; a shared first is no
# match win (seed or seat order never decides). (lines of match 1, wins per player)
@pytest.mark.parametrize(
    ("placings", "wins"),
    [
        ({1: 1, 2: 2, 3: 3, 4: 4}, {1: 1, 2: 0, 3: 0, 4: 0}),  # a normal result
        ({1: 1, 2: 1, 3: 3, 4: 4}, {1: 0, 2: 0, 3: 0, 4: 0}),  # shared first: no winner
        ({1: 1, 2: 1, 3: 1, 4: 1}, {1: 0, 2: 0, 3: 0, 4: 0}),  # time before any hand
        ({1: 1, 2: 2, 3: 2, 4: 4}, {1: 1, 2: 0, 3: 0, 4: 0}),  # shared second: 1 still wins
        ({1: 1, 2: 1}, {1: 0, 2: 0}),  # a two-player table level
        ({1: 4}, {1: 0}),  # a forfeit's line alone (T7) is a valid partial table
    ],
)
def test_t3_shared_placings_and_no_shared_match_win(
    placings: dict[int, int], wins: dict[int, int]
) -> None:
    s = compute_standings([line(1, p, pl) for p, pl in placings.items()])
    assert {p: s.row(p).match_wins for p in placings} == wins


@pytest.mark.parametrize(
    "placings",
    [(1, 1, 2), (1, 2, 2, 3), (1, 1, 1, 3), (2, 2, 3)],
)
def test_t3_shared_placings_must_skip_the_places_they_cover(placings: tuple[int, ...]) -> None:
    with pytest.raises(BracketError) as info:
        compute_standings([line(1, p, pl) for p, pl in enumerate(placings, start=1)])
    assert (info.value.code, info.value.rule) == ("duplicate_placing", "T3")


def test_t5_players_without_records_are_listed_and_records_feed_swiss() -> None:
    s = compute_standings([line(1, 1, 1, hands=6), line(1, 2, 2, hands=1)], players=[1, 2, 3])
    assert s.order() == (1, 2, 3)
    assert s.row(3).played == 0
    recs = s.records()
    assert (recs[1].match_wins, recs[1].hands_won) == (1, 6)
    assert (recs[3].match_wins, recs[3].hands_won) == (0, 0)
    with pytest.raises(BracketError) as info:
        s.row(99)
    assert info.value.code == "unknown_player"


def test_t4_statistics_are_summed() -> None:
    records = [
        MatchRecord(
            1, 1, 1, points=6, hands_won=7, six_loves_given=2, llaves=1, ties=3, replays_won=1
        ),
        MatchRecord(2, 1, 2, points=4, hands_won=4, six_loves_received=1, ties=1),
    ]
    row = compute_standings(records).row(1)
    assert (row.played, row.match_wins, row.points, row.hands_won) == (2, 1, 10, 11)
    assert (row.six_loves_given, row.six_loves_received, row.llaves, row.ties, row.replays_won) == (
        2,
        1,
        1,
        4,
        1,
    )


# -- withdrawn players (T7): after everyone still in, never by seed (T3) ----------------------

# 1 and 2 win a match each with 6 hands in all, 1 ahead of 2 at match 1 (head-to-head); 3
# finishes ahead of 4 twice (head-to-head); 5 and 6 win one 2-seat match each with 1 hand:
# level after every key.
WITHDRAWN_RECORDS = [
    line(1, 1, 1, hands=6),
    line(1, 2, 2, hands=2),
    line(1, 3, 3),
    line(1, 4, 4),
    line(2, 2, 1, hands=4),
    line(2, 3, 2),
    line(2, 4, 3),
    line(3, 5, 1, hands=1),
    line(3, 6, 2),
    line(4, 6, 1, hands=1),
    line(4, 5, 2),
]
H, W, P, M = Tiebreak.HEAD_TO_HEAD, Tiebreak.HANDS_WON, Tiebreak.PLAYOFF, Tiebreak.MATCH_WINS


@pytest.mark.parametrize(
    ("withdrawn", "expected"),
    [
        # Nobody withdrawn: T5 alone.
        (
            {},
            [
                (1, 1, (), H),
                (2, 2, (), H),
                (3, 5, (6,), P),
                (3, 6, (5,), P),
                (5, 3, (), H),
                (6, 4, (), H),
            ],
        ),
        # The leader withdraws (T7): last, whatever their record, set apart by the withdrawal
        # rather than a T5 key; the others move up, ranked among themselves.
        (
            {1: 2},
            [
                (1, 2, (), W),
                (2, 5, (6,), P),
                (2, 6, (5,), P),
                (4, 3, (), H),
                (5, 4, (), H),
                (6, 1, (), M),
            ],
        ),
        # One of two players level after every key withdraws: the other is no longer level
        # (no play-off, T5), and the withdrawn one is never level with a player still in.
        (
            {6: 2},
            [
                (1, 1, (), H),
                (2, 2, (), H),
                (3, 5, (), W),
                (4, 3, (), H),
                (5, 4, (), H),
                (6, 6, (), M),
            ],
        ),
        # Two withdrawn in the same round and level on every key share a rank: seed order
        # never decides (T3).
        (
            {5: 2, 6: 2},
            [
                (1, 1, (), H),
                (2, 2, (), H),
                (3, 3, (), H),
                (4, 4, (), H),
                (5, 5, (6,), P),
                (5, 6, (5,), P),
            ],
        ),
        # Who went further first: out in round 2 before out in round 1, whatever the record.
        (
            {1: 1, 4: 2},
            [
                (1, 2, (), W),
                (2, 5, (6,), P),
                (2, 6, (5,), P),
                (4, 3, (), M),
                (5, 4, (), M),
                (6, 1, (), M),
            ],
        ),
        # Out in the same round: the stage's standings (T5) order them.
        (
            {1: 2, 4: 2},
            [
                (1, 2, (), W),
                (2, 5, (6,), P),
                (2, 6, (5,), P),
                (4, 3, (), M),
                (5, 1, (), M),
                (6, 4, (), M),
            ],
        ),
    ],
)
def test_t7_withdrawn_players_rank_after_everyone_still_in(
    withdrawn: dict[int, int], expected: list[tuple[int, int, tuple[int, ...], Tiebreak]]
) -> None:
    s = compute_standings(WITHDRAWN_RECORDS, withdrawn=withdrawn)
    assert table(s) == expected
    # Their matches still count for everyone (T7): only the order changes.
    plain = compute_standings(WITHDRAWN_RECORDS)
    assert {r.player_id: r.match_wins for r in s} == {r.player_id: r.match_wins for r in plain}
