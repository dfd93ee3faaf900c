"""Advancement (T6): cut, per-table top k plus fill, play-offs on the line, eliminated places."""

from __future__ import annotations

import pytest

from brackets.engine import (
    Advancement,
    BracketError,
    ByePolicy,
    MatchRecord,
    Placement,
    Playoff,
    Standings,
    advance_cut,
    advance_per_table,
    compute_standings,
    resolve_playoff,
)


def standings_of(keys: dict[int, tuple[int, int]]) -> Standings:
    """Standings where player p has ``keys[p]`` = (match wins, hands won); nobody ever met,
    so equal keys stay level after T5 (play-off)."""
    records: list[MatchRecord] = []
    for p, (wins, hands) in keys.items():
        for i in range(wins):
            records.append(MatchRecord(p * 100 + i, p, 1, hands_won=hands if i == 0 else 0))
        if not wins:
            records.append(MatchRecord(p * 100, p, 2, hands_won=hands))
    return compute_standings(records)


LADDER = standings_of(
    {1: (3, 20), 2: (3, 18), 3: (2, 15), 4: (2, 12), 5: (2, 12), 6: (1, 9), 7: (1, 5), 8: (0, 2)}
)


def places(*pairs: tuple[int, int]) -> tuple[Placement, ...]:
    return tuple(Placement(p, place) for p, place in pairs)


@pytest.mark.parametrize(
    ("top", "expected"),
    [
        (
            3,
            Advancement(
                advanced=(1, 2, 3),
                playoff=None,
                eliminated=places((4, 4), (5, 4), (6, 6), (7, 7), (8, 8)),
            ),
        ),
        # 4 and 5 are level after every T5 key on the line: they play off for 1 spot.
        (
            4,
            Advancement(
                advanced=(1, 2, 3),
                playoff=Playoff(players=(4, 5), spots=1),
                eliminated=places((6, 6), (7, 7), (8, 8)),
            ),
        ),
        (
            5,
            Advancement(
                advanced=(1, 2, 3, 4, 5), playoff=None, eliminated=places((6, 6), (7, 7), (8, 8))
            ),
        ),
        (8, Advancement(advanced=(1, 2, 3, 4, 5, 6, 7, 8), playoff=None, eliminated=())),
        (20, Advancement(advanced=(1, 2, 3, 4, 5, 6, 7, 8), playoff=None, eliminated=())),
    ],
)
def test_t6_cut(top: int, expected: Advancement) -> None:
    result = advance_cut(LADDER, top)
    assert result == expected
    assert result.promised == min(top, 8)


def test_t6_cut_tie_broken_by_head_to_head_needs_no_playoff() -> None:
    # 1 and 2 level on wins, hands and six-loves; 1 finished ahead of 2 when they met (T5).
    records = [
        MatchRecord(1, 1, 1, hands_won=6),
        MatchRecord(1, 3, 2, hands_won=3),
        MatchRecord(1, 2, 3),
        MatchRecord(2, 2, 1, hands_won=6),
        MatchRecord(2, 4, 2, hands_won=1),
    ]
    result = advance_cut(compute_standings(records), 1)
    assert result.advanced == (1,)
    assert result.playoff is None


def test_t6_playoff_resolution_places_the_losers_next() -> None:
    contested = advance_cut(LADDER, 4)
    done = resolve_playoff(contested, [5, 4])
    assert done.advanced == (1, 2, 3, 5)
    assert done.playoff is None
    assert done.eliminated == places((4, 5), (6, 6), (7, 7), (8, 8))


def test_t6_playoff_resolution_errors() -> None:
    with pytest.raises(BracketError) as info:
        resolve_playoff(advance_cut(LADDER, 3), [4, 5])
    assert (info.value.code, info.value.rule) == ("no_playoff", "T6")
    for order in ([4], [4, 6], [4, 4]):
        with pytest.raises(BracketError) as info:
            resolve_playoff(advance_cut(LADDER, 4), order)
        assert info.value.code == "playoff_mismatch"


def test_t6_cut_must_be_positive() -> None:
    with pytest.raises(BracketError) as info:
        advance_cut(LADDER, 0)
    assert (info.value.code, info.value.rule) == ("bad_cut", "T6")


def round_of_three_tables() -> list[MatchRecord]:
    """Deciding round: table 1 = 1..4, table 2 = 5..8, table 3 = 9..12, placings in id order."""
    return [
        MatchRecord(match_id=m, player_id=p, placing=i + 1)
        for m, players in enumerate(([1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]), start=1)
        for i, p in enumerate(players)
    ]


# Stage standings: table winners first, then 6 > 2 > 10 = 11 > 3 > 7 > 12 > 4 > 8.
STAGE = standings_of(
    {
        1: (3, 30),
        5: (3, 29),
        9: (3, 28),
        6: (2, 25),
        2: (2, 20),
        10: (1, 15),
        11: (1, 15),
        3: (1, 10),
        7: (1, 9),
        12: (0, 8),
        4: (0, 7),
        8: (0, 6),
    }
)


def test_t6_per_table_top_one_plus_fill() -> None:
    result = advance_per_table(round_of_three_tables(), STAGE, per_table=1, target=4)
    assert result == Advancement(
        advanced=(1, 5, 9, 6),
        playoff=None,
        eliminated=places((2, 5), (10, 6), (11, 6), (3, 8), (7, 9), (12, 10), (4, 11), (8, 12)),
    )


def test_t6_per_table_fill_line_tie_needs_playoff() -> None:
    # Qualifiers 1, 5, 9; fill 3 → 6, 2 sure; 10 and 11 level for the last spot.
    result = advance_per_table(round_of_three_tables(), STAGE, per_table=1, target=6)
    assert result.advanced == (1, 5, 9, 6, 2)
    assert result.playoff == Playoff(players=(10, 11), spots=1)
    assert result.promised == 6
    assert result.eliminated[0] == Placement(3, 8)


def test_t6_per_table_top_two_without_fill() -> None:
    result = advance_per_table(round_of_three_tables(), STAGE, per_table=2)
    assert sorted(result.advanced) == [1, 2, 5, 6, 9, 10]
    assert result.advanced == (1, 5, 9, 6, 2, 10)  # standings order
    assert result.playoff is None
    assert result.eliminated[:2] == places((11, 7), (3, 8))


def test_t6_per_table_forfeit_never_advances_by_placing() -> None:
    records = [
        MatchRecord(1, 1, 1, hands_won=6),
        MatchRecord.forfeit_loss(1, 2, placing=2),
        MatchRecord.forfeit_loss(1, 3, placing=3),
    ]
    standings = compute_standings(records)
    # Placing 2 is a forfeit (T7): only the winner qualifies from the table.
    assert advance_per_table(records, standings, per_table=2).advanced == (1,)
    # Filling one more spot goes by standings: 2 was placed ahead of 3 (head-to-head, T5).
    result = advance_per_table(records, standings, per_table=2, target=2)
    assert result.advanced == (1, 2)
    assert result.eliminated == places((3, 3))


@pytest.mark.parametrize(
    ("policy", "advances"), [(ByePolicy.WIN, True), (ByePolicy.NOTHING, False)]
)
def test_t1_t6_bye_advances_only_when_worth_a_win(policy: ByePolicy, advances: bool) -> None:
    stage = standings_of({1: (1, 6), 2: (0, 3), 3: (0, 2), 4: (0, 1), 5: (0, 0)})
    records = [MatchRecord(1, p, i + 1) for i, p in enumerate([1, 2, 3, 4])]
    result = advance_per_table(records, stage, per_table=1, byes=[5], bye_policy=policy)
    assert (5 in result.advanced) is advances


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"per_table": 3}, "bad_per_table"),
        ({"per_table": 0}, "bad_per_table"),
        ({"per_table": 2, "target": 5}, "target_too_small"),
    ],
)
def test_t6_per_table_errors(kwargs: dict[str, int], code: str) -> None:
    with pytest.raises(BracketError) as info:
        advance_per_table(round_of_three_tables(), STAGE, **kwargs)  # type: ignore[arg-type]
    assert info.value.code == code
    assert info.value.rule == "T6"


def test_t6_per_table_unknown_and_duplicate_placing() -> None:
    with pytest.raises(BracketError) as info:
        advance_per_table([MatchRecord(1, 99, 1)], STAGE, per_table=1)
    assert info.value.code == "unknown_player"
    with pytest.raises(BracketError) as info:
        advance_per_table(
            [MatchRecord(1, 1, 1), MatchRecord(1, 2, 1), MatchRecord(1, 3, 2)], STAGE, per_table=1
        )
    assert (info.value.code, info.value.rule) == ("duplicate_placing", "T3")


# T3: players sharing a placing at a time-called table go through on it only when the whole
# group fits in the top k; otherwise the standings decide them with the fill (T6).
@pytest.mark.parametrize(
    ("placings", "per_table", "qualified"),
    [
        ((1, 2, 3, 4), 1, {1}),
        ((1, 1, 3, 4), 1, set()),  # shared first, one spot: nobody by placing
        ((1, 1, 3, 4), 2, {1, 2}),  # shared first, two spots: both
        ((1, 2, 2, 4), 2, {1}),  # shared second on the line of two: only the first
        ((1, 1, 1, 1), 2, set()),  # time before any hand: nobody by placing
    ],
)
def test_t3_shared_placing_on_the_per_table_line(
    placings: tuple[int, ...], per_table: int, qualified: set[int]
) -> None:
    records = [MatchRecord(1, p, pl) for p, pl in enumerate(placings, start=1)]
    result = advance_per_table(records, STAGE, per_table=per_table)  # no fill target
    assert set(result.advanced) == qualified


def test_t6_a_tie_on_one_tables_line_is_played_off_by_that_table_only() -> None:
    """Knockout, top 2 of each table to a final of 4 (the demo event): table 1 ends 6-1-0-0
    (a clear top two; 3 and 4 share third), table 2 ends 6-0-0-0 (6, 7 and 8 share second).
    Table 2's second spot is played off by 6, 7 and 8 alone: 3 and 4 finished below their own
    table's line and are out, although the stage's standings (no wins, no hands won) cannot
    tell them from 6, 7 and 8 (T3, T5, T6)."""
    round_ = [
        MatchRecord(1, 1, 1, hands_won=6),
        MatchRecord(1, 2, 2, hands_won=1),
        MatchRecord(1, 3, 3),
        MatchRecord(1, 4, 3),
        MatchRecord(2, 5, 1, hands_won=6),
        MatchRecord(2, 6, 2),
        MatchRecord(2, 7, 2),
        MatchRecord(2, 8, 2),
    ]
    standings = compute_standings(round_, players=range(1, 9))
    assert {r.rank for r in standings if r.player_id in (3, 4, 6, 7, 8)} == {4}  # all level
    result = advance_per_table(round_, standings, per_table=2, target=4)
    assert set(result.advanced) == {1, 2, 5}
    assert result.playoff == Playoff(players=(6, 7, 8), spots=1)
    assert result.eliminated == places((3, 7), (4, 7))


@pytest.mark.parametrize(
    ("target", "advanced", "eliminated"),
    [
        (5, {1, 2, 5, 6, 7}, places((3, 6), (4, 7), (8, 7))),
        (6, {1, 2, 3, 5, 6, 7}, places((4, 7), (8, 7))),
    ],
)
def test_t6_players_sharing_a_tables_line_fill_before_the_rest(
    target: int, advanced: set[int], eliminated: tuple[Placement, ...]
) -> None:
    """With more spots than table qualifiers, players who shared a table's line (6 and 7 share
    second, one spot at their table) come before players placed below their line (3, 4, 8),
    although 3 is ahead of them in the standings (a hand won, T5); the rest of the fill is by
    standings."""
    round_ = [
        MatchRecord(1, 1, 1, hands_won=6),
        MatchRecord(1, 2, 2, hands_won=2),
        MatchRecord(1, 3, 3, hands_won=1),
        MatchRecord(1, 4, 4),
        MatchRecord(2, 5, 1, hands_won=6),
        MatchRecord(2, 6, 2),
        MatchRecord(2, 7, 2),
        MatchRecord(2, 8, 4),
    ]
    standings = compute_standings(round_, players=range(1, 9))
    result = advance_per_table(round_, standings, per_table=2, target=target)
    assert set(result.advanced) == advanced
    assert result.playoff is None
    assert result.eliminated == eliminated
