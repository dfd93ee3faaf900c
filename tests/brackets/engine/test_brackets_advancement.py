"""Advancement (T6): cut, per-table top k plus fill, play-offs on the line, eliminated places."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

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
    resolve_playoff_groups,
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


# A play-off of 4 players (10..13) for 2 spots behind 3 sure players; 2 players below them.
FOUR_FOR_TWO = Advancement(
    advanced=(1, 2, 3),
    playoff=Playoff(players=(10, 11, 12, 13), spots=2),
    eliminated=places((20, 8), (21, 9)),
)


@pytest.mark.parametrize(
    ("groups", "advanced", "playoff", "eliminated"),
    [
        # A strict order: the first two go on, the others take places 6 and 7.
        ([[12], [10], [13], [11]], (12, 10), None, ((13, 6), (11, 7))),
        # Two share first (T3): both go on; the two who share third share place 6.
        ([[10, 11], [12, 13]], (10, 11), None, ((12, 6), (13, 6))),
        # One clear winner, then three level (one placing at two tables, or a shared 2nd):
        # they are still level on the line for the last spot (T6), nobody decides by seed;
        # nobody is eliminated yet and the places after them are untouched.
        ([[13], [10, 11, 12]], (13,), Playoff(players=(10, 11, 12), spots=1), ()),
        # All four level (time called before a hand, T3): the play-off is played again.
        ([[10, 11, 12, 13]], (), Playoff(players=(10, 11, 12, 13), spots=2), ()),
        # Winner, two level for the second spot, a clear last: the last is out at place 7,
        # after the two still playing off.
        ([[11], [10, 13], [12]], (11,), Playoff(players=(10, 13), spots=1), ((12, 7),)),
    ],
)
def test_t6_players_still_level_after_a_playoff_play_off_again(
    groups: list[list[int]],
    advanced: tuple[int, ...],
    playoff: Playoff | None,
    eliminated: tuple[tuple[int, int], ...],
) -> None:
    done = resolve_playoff_groups(FOUR_FOR_TWO, groups)
    assert done.advanced == (1, 2, 3, *advanced)
    assert done.playoff == playoff
    assert done.eliminated == places(*eliminated) + places((20, 8), (21, 9))
    assert done.promised == FOUR_FOR_TWO.promised


def test_t6_a_second_playoff_settles_what_the_first_left_level() -> None:
    first = resolve_playoff_groups(FOUR_FOR_TWO, [[13], [10, 11, 12]])
    second = resolve_playoff_groups(first, [[11], [10], [12]])
    assert second.advanced == (1, 2, 3, 13, 11)
    assert second.playoff is None
    assert second.eliminated == places((10, 6), (12, 7), (20, 8), (21, 9))


def test_t6_playoff_groups_must_hold_exactly_the_players() -> None:
    for groups in ([[10, 11, 12]], [[10, 11], [12, 13, 13]], [[10, 11, 12, 13], []]):
        with pytest.raises(BracketError) as info:
            resolve_playoff_groups(FOUR_FOR_TWO, groups)
        assert (info.value.code, info.value.rule) == ("playoff_mismatch", "T6")


@given(
    labels=st.lists(st.integers(min_value=0, max_value=3), min_size=2, max_size=9),
    spots=st.integers(min_value=1, max_value=8),
    data=st.data(),
)
def test_t6_playoff_groups_property(labels: list[int], spots: int, data: st.DataObject) -> None:
    """Any play-off result: the promise holds, each spot goes to a player whose whole group
    is ahead of everyone not going on, the players left level are one group that straddles
    the line, and reordering players inside a group (their seeds) changes no one's fate."""
    players = tuple(range(100, 100 + len(labels)))
    spots = min(spots, len(players) - 1)
    adv = Advancement(advanced=(1,), playoff=Playoff(players, spots), eliminated=())
    keys = sorted(set(labels))
    groups = [[p for p, lab in zip(players, labels, strict=True) if lab == k] for k in keys]
    done = resolve_playoff_groups(adv, groups)
    assert done.promised == adv.promised
    shuffled = [data.draw(st.permutations(g)) for g in groups]
    again = resolve_playoff_groups(adv, shuffled)
    assert set(again.advanced) == set(done.advanced)
    assert (again.playoff is None) == (done.playoff is None)
    if done.playoff is not None:
        assert again.playoff is not None
        assert set(again.playoff.players) == set(done.playoff.players)
        assert done.playoff.players in {tuple(g) for g in groups}
        assert len(done.playoff.players) > done.playoff.spots >= 1
    assert {(p.player_id, p.place) for p in again.eliminated} == {
        (p.player_id, p.place) for p in done.eliminated
    }
    label = dict(zip(players, labels, strict=True))
    won = [label[p] for p in done.advanced[1:]]
    lost = [label[p.player_id] for p in done.eliminated]
    assert not won or not lost or max(won) < min(lost)
    # Places follow the advancing field and the players still level, groups sharing one.
    first = len(done.advanced) + (len(done.playoff.players) if done.playoff else 0) + 1
    assert min((p.place for p in done.eliminated), default=first) == first


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
