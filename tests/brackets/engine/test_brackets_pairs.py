"""Pairs seating, Swiss reseating and standings (T9, T10): table-driven and Hypothesis."""

from __future__ import annotations

import random
from itertools import combinations, pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brackets.engine import BracketError, ByePolicy, Tiebreak, advance_cut
from brackets.engine.pairs import (
    Pair,
    PairHistory,
    PairLine,
    PairSwissOptions,
    pairing_cost,
    pairs_standings,
    reseat_pairs,
    seat_pairs_knockout,
    seat_pairs_seeded,
    seating_repeats,
)


def pairs(n: int, clubs: list[str | None] | None = None) -> list[Pair]:
    """Partnership k (1-based) has players 10k and 10k + 1."""
    return [
        Pair(
            k,
            (10 * k, 10 * k + 1),
            clubs=(clubs[k - 1], clubs[k - 1]) if clubs else (None, None),
        )
        for k in range(1, n + 1)
    ]


# -- round 1: snake by seed ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "tables", "bye"),
    [
        (2, [(1, 2)], ()),
        (4, [(1, 4), (2, 3)], ()),
        (5, [(1, 4), (2, 3)], (5,)),
        (8, [(1, 8), (2, 7), (3, 6), (4, 5)], ()),
        (7, [(1, 6), (2, 5), (3, 4)], (7,)),
    ],
)
def test_round_one_snake_seats_top_seeds_apart(
    n: int, tables: list[tuple[int, int]], bye: tuple[int, ...]
) -> None:
    seating = seat_pairs_seeded(pairs(n))
    assert [(t.ac, t.bd) for t in seating.tables] == tables
    assert seating.bye_pairs == bye
    assert seating.byes == tuple(p for b in bye for p in (10 * b, 10 * b + 1))


def test_partners_sit_opposite_and_the_second_partnership_swaps_in_even_rounds() -> None:
    odd = seat_pairs_seeded(pairs(2), round_number=1).tables[0]
    even = seat_pairs_seeded(pairs(2), round_number=2).tables[0]
    assert odd.seats == (10, 20, 11, 21)  # R42: seats 0/2 = AC, 1/3 = BD
    assert even.seats == (10, 21, 11, 20)  # who follows whom changes (T8)


@pytest.mark.parametrize(
    ("field", "code"),
    [
        ([Pair(1, (1, 2))], "field_too_small"),
        ([Pair(1, (1, 2)), Pair(1, (3, 4))], "duplicate_player"),
        ([Pair(1, (1, 2)), Pair(2, (2, 3))], "duplicate_player"),
    ],
)
def test_bad_fields_are_refused_naming_t9(field: list[Pair], code: str) -> None:
    with pytest.raises(BracketError) as exc:
        seat_pairs_seeded(field)
    assert exc.value.code == code
    assert exc.value.rule == "T9"


def test_a_partnership_is_two_different_players() -> None:
    with pytest.raises(BracketError) as exc:
        Pair(1, (5, 5))
    assert exc.value.rule == "T9"


# -- knockout -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "tables", "bye"),
    [
        (2, [(1, 2)], ()),
        (3, [(2, 3)], (1,)),
        (4, [(1, 4), (2, 3)], ()),
        (5, [(2, 5), (3, 4)], (1,)),
    ],
)
def test_knockout_gives_the_odd_bye_to_the_top_seed(
    n: int, tables: list[tuple[int, int]], bye: tuple[int, ...]
) -> None:
    seating = seat_pairs_knockout(pairs(n), round_number=1)
    assert [(t.ac, t.bd) for t in seating.tables] == tables
    assert seating.bye_pairs == bye


# -- Swiss reseating --------------------------------------------------------------------------


def test_swiss_avoids_a_repeat_when_records_would_pair_them_again() -> None:
    field = pairs(4)
    history = PairHistory.from_rounds([([(1, 2), (3, 4)], [])])
    wins = {1: 1, 2: 0, 3: 1, 4: 0}
    seating = reseat_pairs(field, wins=wins, history=history, rng=random.Random(1), round_number=2)
    assert seating_repeats(seating, history) == 0
    assert sorted(tuple(sorted((t.ac, t.bd))) for t in seating.tables) == [(1, 3), (2, 4)]


def test_swiss_avoids_same_club_tables_where_possible() -> None:
    field = pairs(4, clubs=["A", "A", "B", "B"])
    seating = reseat_pairs(
        field, wins={}, history=PairHistory(), rng=random.Random(3), round_number=2
    )
    for t in seating.tables:
        assert {t.ac, t.bd} not in ({1, 2}, {3, 4})


def test_swiss_pairs_similar_records_first() -> None:
    field = pairs(4)
    wins = {1: 2, 2: 2, 3: 0, 4: 0}
    seating = reseat_pairs(
        field, wins=wins, history=PairHistory(), rng=random.Random(0), round_number=3
    )
    assert sorted(tuple(sorted((t.ac, t.bd))) for t in seating.tables) == [(1, 2), (3, 4)]
    assert (seating.tables[0].ac, seating.tables[0].bd) in ((1, 2), (2, 1))


def test_swiss_bye_goes_to_the_lowest_record_without_a_bye() -> None:
    field = pairs(5)
    wins = {1: 2, 2: 2, 3: 1, 4: 0, 5: 0}
    history = PairHistory.from_rounds([([], [5])])
    seating = reseat_pairs(field, wins=wins, history=history, rng=random.Random(0), round_number=2)
    assert seating.bye_pairs == (4,)


def test_cost_counts_repeats_clubs_and_record_gap() -> None:
    a = Pair(1, (1, 2), clubs=("X", "Y"))
    b = Pair(2, (3, 4), clubs=("X", "X"))
    history = PairHistory.from_rounds([([(1, 2)], []), ([(2, 1)], [])])
    cost = pairing_cost(a, b, history=history, wins={1: 3, 2: 1}, options=_opts())
    assert cost == 1000 * 2 + 30 * 2 + 10 * 2


def _opts() -> PairSwissOptions:
    return PairSwissOptions()


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=40),
    seed=st.integers(min_value=0, max_value=10_000),
    clubs=st.integers(min_value=1, max_value=6),
)
def test_property_every_partnership_once_partners_opposite(n: int, seed: int, clubs: int) -> None:
    rng = random.Random(seed)
    field = pairs(n, clubs=[f"C{rng.randrange(clubs)}" for _ in range(n)])
    wins = {p.pair_id: rng.randrange(4) for p in field}
    seating = reseat_pairs(
        field, wins=wins, history=PairHistory(), rng=random.Random(seed), round_number=2
    )
    seated = [x for t in seating.tables for x in (t.ac, t.bd)] + list(seating.bye_pairs)
    assert sorted(seated) == list(range(1, n + 1))
    assert len(seating.bye_pairs) == n % 2
    owner = {x: p.pair_id for p in field for x in p.players}
    for t in seating.tables:
        assert owner[t.seats[0]] == owner[t.seats[2]] == t.ac
        assert owner[t.seats[1]] == owner[t.seats[3]] == t.bd
    # Replays from the same seed (STYLE.md §1).
    again = reseat_pairs(
        field, wins=wins, history=PairHistory(), rng=random.Random(seed), round_number=2
    )
    assert again == seating


@settings(max_examples=60, deadline=None)
@given(n=st.integers(min_value=2, max_value=30), seed=st.integers(min_value=0, max_value=10_000))
def test_property_no_repeat_after_one_round_with_four_or_more_tables_worth(
    n: int, seed: int
) -> None:
    """After one round (a perfect pairing), a field of 4+ partnerships always has a second
    round without a repeat meeting, and the reseating finds it (T9 puts repeats first)."""
    field = pairs(2 * n)
    rng = random.Random(seed)
    first = seat_pairs_seeded(field)
    history = PairHistory.from_rounds([([(t.ac, t.bd) for t in first.tables], [])])
    wins = {t.ac if rng.random() < 0.5 else t.bd: 1 for t in first.tables}
    second = reseat_pairs(field, wins=wins, history=history, rng=rng, round_number=2)
    if 2 * n >= 4:
        assert seating_repeats(second, history) == 0


# -- standings (T10) --------------------------------------------------------------------------


def line(
    m: int, p: int, o: int, won: bool, hands: int = 0, pf: int = 0, pa: int = 0, slg: int = 0
) -> PairLine:
    return PairLine(m, p, o, won, hands, pf, pa, slg)


def test_standings_rank_by_wins_then_hands() -> None:
    lines = [
        line(1, 1, 2, True, 5),
        line(1, 2, 1, False, 7),
        line(2, 3, 4, True, 4),
        line(2, 4, 3, False, 1),
    ]
    s = pairs_standings(lines, pairs=[1, 2, 3, 4])
    assert s.order() == (1, 3, 2, 4)
    assert [r.rank for r in s.rows] == [1, 2, 3, 4]
    assert s.rows[0].decided_by == Tiebreak.HANDS_WON


def test_pip_scoring_third_key_is_points_difference() -> None:
    lines = [
        line(1, 1, 2, True, 3, pf=100, pa=40),
        line(1, 2, 1, False, 2, pf=40, pa=100),
        line(2, 3, 4, True, 3, pf=100, pa=90),
        line(2, 4, 3, False, 2, pf=90, pa=100),
    ]
    s = pairs_standings(lines, pairs=[1, 2, 3, 4], pip_scoring=True)
    assert s.order()[:2] == (1, 3)
    assert s.rows[0].third == 60
    assert s.rows[1].third == 10


def test_win_count_third_key_is_six_loves_given() -> None:
    lines = [
        line(1, 1, 2, True, 3, slg=0),
        line(1, 2, 1, False, 0),
        line(2, 3, 4, True, 3, slg=1),
        line(2, 4, 3, False, 0),
    ]
    assert pairs_standings(lines, pairs=[1, 2, 3, 4]).order()[:2] == (3, 1)


def test_head_to_head_breaks_a_tie_then_level_partnerships_share_a_rank() -> None:
    # 1 and 2 are level on wins (1), hands (3) and six-loves (0); 2 beat 1 (T10 head-to-head).
    h2h = pairs_standings(
        [
            line(1, 2, 1, True, 2),
            line(1, 1, 2, False, 1),
            line(2, 1, 3, True, 2),
            line(2, 3, 1, False, 0),
            line(3, 3, 2, True, 5),
            line(3, 2, 3, False, 1),
        ],
        pairs=[1, 2, 3],
    )
    assert h2h.order() == (3, 2, 1)
    assert [r.rank for r in h2h.rows] == [1, 2, 3]
    assert h2h.rows[2].decided_by == Tiebreak.HEAD_TO_HEAD
    level = pairs_standings(
        [
            line(1, 1, 2, True, 1),
            line(1, 2, 1, False, 1),
            line(2, 3, 4, True, 1),
            line(2, 4, 3, False, 1),
        ],
        pairs=[1, 2, 3, 4],
    )
    assert [r.rank for r in level.rows] == [1, 1, 3, 3]
    assert level.rows[0].tied_with == (3,)
    assert level.rows[0].decided_by == Tiebreak.PLAYOFF


def test_bye_counts_per_policy_and_cut_offers_a_playoff_on_a_shared_line() -> None:
    lines = [line(1, 1, 2, True, 0), line(1, 2, 1, False, 0)]
    win = pairs_standings(lines, pairs=[1, 2, 3], byes=[3], bye_policy=ByePolicy.WIN)
    assert [r.match_wins for r in win.rows if r.pair_id == 3] == [1]
    nothing = pairs_standings(lines, pairs=[1, 2, 3], byes=[3], bye_policy=ByePolicy.NOTHING)
    assert [r.match_wins for r in nothing.rows if r.pair_id == 3] == [0]
    adv = advance_cut(win.as_standings(), 1)
    assert adv.playoff is not None  # 1 and 3: one win each, nothing else, never met (T6)
    assert set(adv.playoff.players) == {1, 3}


def test_a_forfeit_counts_as_a_loss_only() -> None:
    s = pairs_standings(
        [PairLine(1, 1, 2, False, 3, 50, 0, 1, forfeit=True), PairLine(1, 2, 1, True, 0, 0, 0, 0)],
        pairs=[1, 2],
    )
    assert s.rows[0].pair_id == 2
    assert s.rows[1].hands_won == 0
    assert s.rows[1].played == 1


def test_six_loves_received_and_forfeits_are_counted_beside_the_keys_r46_t7() -> None:
    """Bug: a partnership's standings line had no six-loves received nor forfeits, so the
    standings export left them empty. Now each is counted once per partnership (R46): a
    six-love received is the opponent's six-love given in the same match; a forfeit (T7) is
    the forfeiting partnership's 0-6 loss and one six-love received (README rule decision 6,
    as ``standings_line`` counts a forfeited seat), and no six-love given to the winners.
    (Before, a forfeit received nothing, and the Leaders page, which sums the seats, said 1.)"""
    s = pairs_standings(
        [
            line(1, 1, 2, True, 6, 6, 0, 1),
            line(1, 2, 1, False, 0, 0, 6, 0),
            line(2, 2, 3, False, 2, 3, 6, 0),
            line(2, 3, 2, True, 6, 6, 3, 0),
            PairLine(3, 3, 1, False, forfeit=True),
            line(3, 1, 3, True, 0, 0, 0, 0),
        ],
        pairs=[1, 2, 3],
    )
    by_pair = {r.pair_id: r for r in s.rows}
    assert [by_pair[p].six_loves_received for p in (1, 2, 3)] == [0, 1, 1]
    assert [by_pair[p].six_loves_given for p in (1, 2, 3)] == [1, 0, 0]
    assert [by_pair[p].forfeits for p in (1, 2, 3)] == [0, 0, 1]


def test_an_unknown_partnership_is_refused() -> None:
    with pytest.raises(BracketError) as exc:
        pairs_standings([line(1, 9, 1, True)], pairs=[1])
    assert exc.value.rule == "T10"


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 5),
            st.integers(0, 5),
            st.booleans(),
            st.integers(0, 9),
            st.integers(0, 9),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_property_standings_are_a_ranking_of_every_partnership(
    matches: list[tuple[int, int, bool, int, int]],
) -> None:
    lines = []
    for m, (a, b, a_won, ha, hb) in enumerate(matches):
        if a == b:
            continue
        lines += [line(m, a, b, a_won, ha), line(m, b, a, not a_won, hb)]
    s = pairs_standings(lines, pairs=range(6))
    assert sorted(s.order()) == list(range(6))
    keys = [(r.match_wins, r.hands_won, r.third) for r in s.rows]
    assert keys == sorted(keys, reverse=True)
    assert sum(r.match_wins for r in s.rows) == sum(1 for x in lines if x.won)
    ranks = [r.rank for r in s.rows]
    assert ranks[0] == 1
    assert all(r2 >= r1 for r1, r2 in pairwise(ranks))
    for x, y in combinations(s.rows, 2):
        if x.rank == y.rank:
            assert y.pair_id in x.tied_with
