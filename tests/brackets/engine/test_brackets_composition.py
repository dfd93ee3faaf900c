"""Table composition golden tests (T1): sizes and byes for n = 3..20, 64, 301."""

from __future__ import annotations

import random

import pytest

from brackets.engine import (
    BracketError,
    ByePolicy,
    History,
    Seating,
    StageConfig,
    Table,
    choose_byes,
    plan_tables,
    seat_seeded,
)


def sizes(text: str) -> tuple[int, ...]:
    """``"4x2+3"`` → (4, 4, 3)."""
    out: list[int] = []
    for part in text.split("+"):
        size, _, times = part.partition("x")
        out += [int(size)] * int(times or 1)
    return tuple(out)


# T1 with 3-tables allowed: fewest 3-tables, and 5 → one 4-table plus one bye (decision).
WITH_THREE = {
    3: ("3", 0),
    4: ("4", 0),
    5: ("4", 1),
    6: ("3x2", 0),
    7: ("4+3", 0),
    8: ("4x2", 0),
    9: ("3x3", 0),
    10: ("4+3x2", 0),
    11: ("4x2+3", 0),
    12: ("4x3", 0),
    13: ("4+3x3", 0),
    14: ("4x2+3x2", 0),
    15: ("4x3+3", 0),
    16: ("4x4", 0),
    17: ("4x2+3x3", 0),
    18: ("4x3+3x2", 0),
    19: ("4x4+3", 0),
    20: ("4x5", 0),
    64: ("4x16", 0),
    301: ("4x73+3x3", 0),
}

# T1 without 3-tables: 4-tables and n mod 4 byes.
WITHOUT_THREE = {
    4: ("4", 0),
    5: ("4", 1),
    6: ("4", 2),
    7: ("4", 3),
    8: ("4x2", 0),
    9: ("4x2", 1),
    10: ("4x2", 2),
    11: ("4x2", 3),
    12: ("4x3", 0),
    13: ("4x3", 1),
    14: ("4x3", 2),
    15: ("4x3", 3),
    16: ("4x4", 0),
    17: ("4x4", 1),
    18: ("4x4", 2),
    19: ("4x4", 3),
    20: ("4x5", 0),
    64: ("4x16", 0),
    301: ("4x75", 1),
}


@pytest.mark.parametrize(("n", "expected"), sorted(WITH_THREE.items()))
def test_t1_table_plan_with_three_tables(n: int, expected: tuple[str, int]) -> None:
    plan = plan_tables(n, allow_three=True)
    assert plan.sizes == sizes(expected[0])
    assert plan.byes == expected[1]
    assert plan.seated + plan.byes == n


@pytest.mark.parametrize(("n", "expected"), sorted(WITHOUT_THREE.items()))
def test_t1_table_plan_without_three_tables(n: int, expected: tuple[str, int]) -> None:
    plan = plan_tables(n, allow_three=False)
    assert plan.sizes == sizes(expected[0])
    assert plan.byes == expected[1]


@pytest.mark.parametrize(
    ("n", "allow_three"), [(0, True), (1, True), (2, True), (0, False), (2, False), (3, False)]
)
def test_t1_field_too_small_is_a_bracket_error(n: int, allow_three: bool) -> None:
    with pytest.raises(BracketError) as info:
        plan_tables(n, allow_three=allow_three)
    assert isinstance(info.value, ValueError)
    assert info.value.code == "field_too_small"
    assert info.value.rule == "T1"
    assert "T1" in info.value.message


@pytest.mark.parametrize("policy", list(ByePolicy))
@pytest.mark.parametrize("allow_three", [True, False])
@pytest.mark.parametrize("n", [*range(4, 21), 64, 301])
def test_t1_seat_seeded_follows_the_plan_under_every_bye_policy(
    n: int, allow_three: bool, policy: ByePolicy
) -> None:
    # The bye policy changes what a bye is worth (standings), never who sits where.
    config = StageConfig(allow_three=allow_three, bye_policy=policy)
    order = tuple(range(1, n + 1))
    seating = seat_seeded(order, config, rng=random.Random(n))
    plan = plan_tables(n, allow_three=allow_three)
    assert tuple(len(t.seats) for t in seating.tables) == plan.sizes
    # Round 1 byes go to the lowest seeds (T1 decision).
    assert seating.byes == order[n - plan.byes :]
    assert sorted(seating.players()) == list(order)


def test_t1_byes_go_to_players_without_an_earlier_bye_lowest_first() -> None:
    earlier = Seating(tables=(Table(1, (1, 2, 3, 4)),), byes=(7, 6))
    history = History.from_seatings([earlier])
    # 6 and 7 had byes: the next lowest without one are 5 and 4.
    assert choose_byes([1, 2, 3, 4, 5, 6, 7], 2, history) == (4, 5)
    # With everyone on one bye except 1..3, they come first regardless of order.
    assert choose_byes([1, 2, 3, 4, 5, 6, 7], 3) == (5, 6, 7)


def test_t1_bad_bye_count() -> None:
    with pytest.raises(BracketError, match="T1") as info:
        choose_byes([1, 2], 3)
    assert info.value.code == "bad_bye_count"


@pytest.mark.parametrize("bad", [(1, 2), (1, 2, 3, 4, 5), (1, 1, 2)])
def test_t1_table_rejects_bad_sizes_and_duplicates(bad: tuple[int, ...]) -> None:
    with pytest.raises(BracketError) as info:
        Table(1, bad)
    assert info.value.rule == "T1"
