"""The points race of a circuit: pure Python, no Django (like the engines, STYLE.md §1).

A circuit awards each player, per member tournament, the points of their final place
(``points_table[place - 1]``; a place beyond the table earns nothing) plus the bonus of every
configured stage they reached (``stage_bonus`` maps a stage number to points, cumulative: a
player who reached stage 3 earns the bonuses of stages 2 and 3). A disqualified entry earns
nothing (its result stands in the tournament but not in the race); a withdrawn entry keeps the
place the brackets gave it (T7) and its points.

Standings order (README "Circuits"):
1. most points;
2. most best finishes: the counts of 1st places compared, then of 2nd places, and so on
   (only places inside the points table count);
3. fewest events played (the same points from fewer events);
4. still equal: the same rank, listed by name then player id (a stable display order only).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from dominoes.digits import parse_int

MAX_PLACES = 256
MAX_POINTS = 100_000
MAX_STAGE = 32
_NO_PLACE = 1 << 62


class PointsConfigError(ValueError):
    """An invalid points table or stage bonus; ``field`` names the offending setting."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name
        self.message = message


def validate_points_table(value: object) -> list[int]:
    """A list of 1..256 non-negative whole numbers, never increasing (1st earns the most)."""
    if not isinstance(value, list) or not value:
        raise PointsConfigError("points_table", "Give a non-empty list of points, 1st place first.")
    if len(value) > MAX_PLACES:
        raise PointsConfigError("points_table", f"At most {MAX_PLACES} places.")
    out: list[int] = []
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_POINTS:
            raise PointsConfigError(
                "points_table", f"Place {i + 1}: points must be a whole number 0..{MAX_POINTS}."
            )
        if out and v > out[-1]:
            raise PointsConfigError(
                "points_table", f"Place {i + 1} earns more than place {i}: points never increase."
            )
        out.append(v)
    return out


def validate_stage_bonus(value: object) -> dict[str, int]:
    """An object mapping a stage number ("2") to the bonus for reaching it."""
    if not isinstance(value, dict):
        raise PointsConfigError("stage_bonus", 'Give an object such as {"2": 20}.')
    out: dict[str, int] = {}
    for k, v in value.items():
        stage = parse_int(k)
        if stage is None or not 1 <= stage <= MAX_STAGE:
            raise PointsConfigError("stage_bonus", f"Stage {k!r}: a stage number 1..{MAX_STAGE}.")
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_POINTS:
            raise PointsConfigError(
                "stage_bonus", f"Stage {k}: the bonus must be a whole number 0..{MAX_POINTS}."
            )
        out[str(stage)] = v
    return out


@dataclass(frozen=True, slots=True)
class Result:
    """One player's final result in one member tournament."""

    player_id: int
    name: str
    tournament_id: int
    place: int
    stage_reached: int
    disqualified: bool = False


@dataclass(frozen=True, slots=True)
class Award:
    tournament_id: int
    place: int
    points: int
    bonus: int
    disqualified: bool = False

    @property
    def total(self) -> int:
        return self.points + self.bonus


@dataclass(slots=True)
class CircuitRow:
    rank: int
    player_id: int
    name: str
    points: int
    events: int
    best_place: int | None
    awards: list[Award] = field(default_factory=list)


def award(result: Result, points_table: Sequence[int], stage_bonus: Mapping[str, int]) -> Award:
    if result.disqualified:
        return Award(result.tournament_id, result.place, 0, 0, disqualified=True)
    points = points_table[result.place - 1] if 1 <= result.place <= len(points_table) else 0
    bonus = sum(b for s, b in stage_bonus.items() if int(s) <= result.stage_reached)
    return Award(result.tournament_id, result.place, points, bonus)


def circuit_standings(
    results: Iterable[Result], points_table: Sequence[int], stage_bonus: Mapping[str, int]
) -> list[CircuitRow]:
    """The circuit's standings, ranked by the rules in the module docstring."""
    rows: dict[int, CircuitRow] = {}
    for r in results:
        row = rows.get(r.player_id)
        if row is None:
            row = rows[r.player_id] = CircuitRow(0, r.player_id, r.name, 0, 0, None)
        a = award(r, points_table, stage_bonus)
        row.awards.append(a)
        row.points += a.total
        row.events += 1
        if not r.disqualified and (row.best_place is None or r.place < row.best_place):
            row.best_place = r.place

    # Most best finishes: the counts of 1st places compared, then of 2nd places, ... is the
    # same order as the sorted places compared element by element, ended by a sentinel that
    # loses to any real place (so [1, 3] beats [1]: one more 3rd place). Only places in the
    # points table count as finishes, so a 0-point result never outweighs "fewest events".
    countback = {
        pid: (
            *sorted(
                a.place for a in row.awards if not a.disqualified and a.place <= len(points_table)
            ),
            _NO_PLACE,
        )
        for pid, row in rows.items()
    }

    def tie_key(row: CircuitRow) -> tuple[object, ...]:
        return (-row.points, countback[row.player_id], row.events)

    ordered = sorted(rows.values(), key=lambda r: (*tie_key(r), r.name, r.player_id))
    previous: tuple[object, ...] | None = None
    for i, row in enumerate(ordered, start=1):
        key = tie_key(row)
        row.rank = ordered[i - 2].rank if key == previous else i
        row.awards.sort(key=lambda a: a.tournament_id)
        previous = key
    return ordered
