"""The points race (circuits.ranking): awards, tie-breaks and settings validation, table-driven."""

from __future__ import annotations

import pytest

from circuits.ranking import (
    PointsConfigError,
    Result,
    award,
    circuit_standings,
    validate_points_table,
    validate_stage_bonus,
)

TABLE = [100, 80, 65, 55]


def r(pid: int, tid: int, place: int, stage: int = 1, dq: bool = False) -> Result:
    return Result(pid, f"P{pid}", tid, place, stage, dq)


@pytest.mark.parametrize(
    ("result", "bonus", "points", "extra"),
    [
        (r(1, 1, 1), {}, 100, 0),
        (r(1, 1, 4), {}, 55, 0),
        (r(1, 1, 5), {}, 0, 0),  # beyond the table
        (r(1, 1, 2, stage=2), {"2": 20}, 80, 20),
        (r(1, 1, 2, stage=3), {"2": 20, "3": 30}, 80, 50),  # cumulative
        (r(1, 1, 9, stage=1), {"2": 20}, 0, 0),  # never reached stage 2
        (r(1, 1, 1, stage=3, dq=True), {"2": 20}, 0, 0),  # disqualified earns nothing
    ],
)
def test_award(result: Result, bonus: dict[str, int], points: int, extra: int) -> None:
    a = award(result, TABLE, bonus)
    assert (a.points, a.bonus) == (points, extra)


# Each case: results, then the expected (player, rank) order.
CASES = {
    "points decide": ([r(1, 1, 2), r(2, 1, 1)], [(2, 1), (1, 2)]),
    "summed over events": (
        [r(1, 1, 1), r(2, 1, 2), r(2, 2, 1), r(1, 2, 4)],  # 155 vs 180
        [(2, 1), (1, 2)],
    ),
    "equal points and best finishes: fewest events": (
        # both 100; P2 also played one event outside the points
        [r(1, 1, 1), r(2, 2, 1), r(2, 3, 9)],
        [(1, 1), (2, 2)],
    ),
    "all equal: shared rank, listed by name": (
        [r(2, 1, 1), r(1, 2, 1)],
        [(1, 1), (2, 1)],
    ),
    "disqualified: no points, no best place": (
        [r(1, 1, 1, dq=True), r(2, 1, 2)],
        [(2, 1), (1, 2)],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_standings_order(name: str) -> None:
    results, expected = CASES[name]
    rows = circuit_standings(results, TABLE, {})
    assert [(row.player_id, row.rank) for row in rows] == expected


COUNTBACK = [100, 60, 50, 40, 10]


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        # 100 each: a 1st place beats 2nd + 4th.
        ([r(1, 1, 1), r(2, 1, 2), r(2, 2, 4)], [(1, 1), (2, 2)]),
        # 150 each, one 1st each: then a 3rd beats a 4th and a 5th.
        ([r(1, 1, 1), r(1, 2, 3), r(2, 1, 1), r(2, 2, 4), r(2, 3, 5)], [(1, 1), (2, 2)]),
        # 120 each: two 2nd places beat one 2nd, a 3rd and a 5th (more events do not help).
        ([r(2, 1, 2), r(2, 2, 2), r(1, 1, 2), r(1, 2, 3), r(1, 3, 5)], [(2, 1), (1, 2)]),
        # 110 each, one 1st and one 5th each: equal finishes, then fewer events (P1 played a
        # third event outside the points).
        (
            [r(1, 1, 1), r(1, 2, 5), r(1, 3, 9), r(2, 1, 5), r(2, 2, 1)],
            [(2, 1), (1, 2)],
        ),
    ],
)
def test_countback(results: list[Result], expected: list[tuple[int, int]]) -> None:
    rows = circuit_standings(results, COUNTBACK, {})
    assert len({row.points for row in rows}) == 1
    assert [(row.player_id, row.rank) for row in rows] == expected


def test_row_totals_and_best_place() -> None:
    rows = circuit_standings([r(1, 1, 3, stage=2), r(1, 2, 1)], TABLE, {"2": 10})
    (row,) = rows
    assert (row.points, row.events, row.best_place) == (65 + 10 + 100, 2, 1)
    assert [a.tournament_id for a in row.awards] == [1, 2]


@pytest.mark.parametrize(
    "value",
    [[], "100", [100, -1], [50, 80], [1.5], [True], [0] * 257, None],
)
def test_points_table_rejected(value: object) -> None:
    with pytest.raises(PointsConfigError) as exc:
        validate_points_table(value)
    assert exc.value.field == "points_table"


@pytest.mark.parametrize(
    "value",
    # "²" passes str.isdigit() and then made int() raise (a 500 in the admin's form).
    [
        [],
        {"x": 1},
        {"0": 1},
        {"2": -5},
        {"2": "5"},
        {"99": 1},
        {"\u00b2": 1},
        {"\u0663": 1},
        {" 2": 1},
    ],
)
def test_stage_bonus_rejected(value: object) -> None:
    with pytest.raises(PointsConfigError) as exc:
        validate_stage_bonus(value)
    assert exc.value.field == "stage_bonus"


def test_valid_settings_pass() -> None:
    assert validate_points_table([100, 80, 80, 0]) == [100, 80, 80, 0]
    assert validate_stage_bonus({"2": 20, "3": 0}) == {"2": 20, "3": 0}
