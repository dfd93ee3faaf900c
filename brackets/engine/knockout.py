"""Planning a knockout stage down to the final table (T6, T1).

Glossary:
    knockout round -- one round of per-table advancement: the field is seated per T1 (with no
                      byes), the top ``per_table`` of every table go through, and ``fill`` more
                      of the best non-advancing players top the field up (T6).
    final table    -- the last stage: one table of 4 (or 3) playing to the target (T6).

The planner searches the field sizes each round can send on (the table qualifiers, plus up to
three fillers so the next field seats without byes) and keeps the plan with the fewest rounds,
then the fewest fillers in total. A round never uses byes: a knockout player without a table
would advance or drop out without playing. With 3-tables allowed only fields of 1, 2 and 5
cannot be seated that way; without them, the field must divide by 4.
"""

from __future__ import annotations

from dataclasses import dataclass

from brackets.engine.composition import plan_tables
from brackets.engine.errors import BracketError

_MAX_FILL = 3  # enough to reach the next byeless field size (multiple of 4, or not 5)


@dataclass(frozen=True, slots=True)
class KnockoutRound:
    """One knockout round: its field, tables, and how many go through (T6)."""

    number: int
    players: int
    table_sizes: tuple[int, ...]
    per_table: int
    fill: int
    """Best non-advancing players (by standings) added to the table qualifiers (T6)."""

    @property
    def tables(self) -> int:
        return len(self.table_sizes)

    @property
    def advancing(self) -> int:
        return self.per_table * self.tables + self.fill


@dataclass(frozen=True, slots=True)
class KnockoutPlan:
    """Rounds from the starting field to the final table of ``final_size`` (T6)."""

    field: int
    rounds: tuple[KnockoutRound, ...]
    final_size: int


def _seats_without_byes(players: int, allow_three: bool) -> bool:
    if allow_three:
        return players >= 3 and players != 5
    return players >= 4 and players % 4 == 0


def plan_knockout(
    field: int, *, per_table: int, final_size: int = 4, allow_three: bool = True
) -> KnockoutPlan:
    """Plan knockout rounds from ``field`` players to one final table (T6, T1).

    Each round seats its field per T1 without byes; the top ``per_table`` (1 or 2) of each table
    advance, plus the fewest fillers needed to make the next field seatable. A field of exactly
    ``final_size`` needs no round. Ties between plans: fewest rounds, then fewest fillers.

    Raises :class:`BracketError` ``bad_per_table``, ``bad_final_size`` (not 3 or 4, or 3 on a
    stage without 3-tables), ``field_too_small`` (fewer than ``final_size``) or
    ``no_knockout_plan`` (e.g. 5 players to a final of 4: no byeless seating exists).
    """
    if per_table not in (1, 2):
        raise BracketError(
            code="bad_per_table",
            rule="T6",
            field="per_table",
            message=f"A knockout round takes the top 1 or 2 of a table, not {per_table} (T6).",
        )
    if final_size not in (3, 4) or (final_size == 3 and not allow_three):
        raise BracketError(
            code="bad_final_size",
            rule="T6",
            field="final_size",
            message=f"The final table seats 4, or 3 where the stage allows, not {final_size} "
            "(T6, T1).",
        )
    if field < final_size:
        raise BracketError(
            code="field_too_small",
            rule="T6",
            field="field",
            message=f"{field} players cannot fill a final table of {final_size} (T6).",
        )

    # best[n] = (rounds, total fill, next field) for a field of n, None when no plan exists.
    best: dict[int, tuple[int, int, int] | None] = {final_size: (0, 0, 0)}

    def solve(n: int) -> tuple[int, int, int] | None:
        if n in best:
            return best[n]
        best[n] = None  # guards against cycles; fields strictly shrink anyway
        if not _seats_without_byes(n, allow_three):
            return None
        qualifiers = per_table * plan_tables(n, allow_three=allow_three).tables
        choice: tuple[int, int, int] | None = None
        for nxt in range(max(qualifiers, final_size), min(n - 1, qualifiers + _MAX_FILL) + 1):
            sub = solve(nxt)
            if sub is None:
                continue
            cand = (sub[0] + 1, sub[1] + nxt - qualifiers, nxt)
            if choice is None or cand[:2] < choice[:2]:
                choice = cand
        best[n] = choice
        return choice

    if solve(field) is None:
        raise BracketError(
            code="no_knockout_plan",
            rule="T6",
            field="field",
            message=f"{field} players cannot be reduced to a final table of {final_size} with "
            f"top-{per_table} knockout rounds: some round would need byes (T1, T6).",
        )
    rounds: list[KnockoutRound] = []
    n = field
    while n != final_size:
        step = best[n]
        assert step is not None
        sizes = plan_tables(n, allow_three=allow_three).sizes
        nxt = step[2]
        rounds.append(
            KnockoutRound(
                number=len(rounds) + 1,
                players=n,
                table_sizes=sizes,
                per_table=per_table,
                fill=nxt - per_table * len(sizes),
            )
        )
        n = nxt
    return KnockoutPlan(field=field, rounds=tuple(rounds), final_size=final_size)
