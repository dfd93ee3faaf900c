"""Knockout planner (T6, T1): rounds from the field down to the final table."""

from __future__ import annotations

import pytest

from brackets.engine import BracketError, KnockoutPlan, plan_knockout, plan_tables

# (players, tables, fill, advancing) per round.
Row = tuple[int, int, int, int]


def rows(plan: KnockoutPlan) -> list[Row]:
    return [(r.players, r.tables, r.fill, r.advancing) for r in plan.rounds]


@pytest.mark.parametrize(
    ("field", "per_table", "final_size", "allow_three", "expected"),
    [
        (64, 1, 4, True, [(64, 16, 0, 16), (16, 4, 0, 4)]),
        (64, 2, 4, True, [(64, 16, 0, 32), (32, 8, 0, 16), (16, 4, 0, 8), (8, 2, 0, 4)]),
        (64, 2, 4, False, [(64, 16, 0, 32), (32, 8, 0, 16), (16, 4, 0, 8), (8, 2, 0, 4)]),
        # 19 players → 5 tables → 5 winners cannot be seated without a bye (T1): fill to 6.
        (301, 1, 4, True, [(301, 76, 0, 76), (76, 19, 0, 19), (19, 5, 1, 6), (6, 2, 2, 4)]),
        (
            301,
            2,
            4,
            True,
            [
                (301, 76, 0, 152),
                (152, 38, 0, 76),
                (76, 19, 0, 38),
                (38, 10, 0, 20),
                (20, 5, 0, 10),
                (10, 3, 0, 6),
                (6, 2, 0, 4),
            ],
        ),
        # Without 3-tables every field must divide by 4: fill 2 whenever k·tables does not.
        (
            300,
            2,
            4,
            False,
            [
                (300, 75, 2, 152),
                (152, 38, 0, 76),
                (76, 19, 2, 40),
                (40, 10, 0, 20),
                (20, 5, 2, 12),
                (12, 3, 2, 8),
                (8, 2, 0, 4),
            ],
        ),
        (9, 1, 3, True, [(9, 3, 0, 3)]),
        (12, 1, 4, True, [(12, 3, 1, 4)]),
        (4, 1, 4, True, []),
        (3, 2, 3, True, []),
    ],
)
def test_t6_knockout_plans(
    field: int, per_table: int, final_size: int, allow_three: bool, expected: list[Row]
) -> None:
    plan = plan_knockout(field, per_table=per_table, final_size=final_size, allow_three=allow_three)
    assert rows(plan) == expected
    assert plan.field == field
    assert plan.final_size == final_size
    n = field
    for number, r in enumerate(plan.rounds, start=1):
        assert r.number == number
        assert r.players == n
        table_plan = plan_tables(n, allow_three=allow_three)
        assert table_plan.byes == 0  # knockout rounds never use byes (T1)
        assert r.table_sizes == table_plan.sizes
        assert 0 <= r.fill <= n - r.per_table * r.tables
        n = r.advancing
    assert n == final_size


@pytest.mark.parametrize(
    ("field", "kwargs", "code"),
    [
        (3, {"per_table": 1}, "field_too_small"),
        (5, {"per_table": 1}, "no_knockout_plan"),
        (301, {"per_table": 2, "allow_three": False}, "no_knockout_plan"),
        (7, {"per_table": 1, "allow_three": False}, "no_knockout_plan"),
        (64, {"per_table": 3}, "bad_per_table"),
        (64, {"per_table": 1, "final_size": 2}, "bad_final_size"),
        (64, {"per_table": 1, "final_size": 3, "allow_three": False}, "bad_final_size"),
    ],
)
def test_t6_knockout_errors(field: int, kwargs: dict[str, int], code: str) -> None:
    with pytest.raises(BracketError) as info:
        plan_knockout(field, **kwargs)  # type: ignore[arg-type]
    assert info.value.code == code
    assert info.value.rule == "T6"
