"""What a referee records for one hand: the outcome record of RULES.md section 9.

Glossary:
    outcome record -- poser, pose tile, and either ``domino`` with the winner or ``block`` with
                      every seat's count (section 9).
    count          -- the pip total of a player's remaining tiles (R20).
    block result   -- the unique lowest count wins; a shared lowest count is a tie (R20).
    llave claim    -- the referee's statement that a domino was a llave win (R23, R24).

:meth:`HandRecord.from_dict` checks the *shape* of untrusted input (types, known fields) and
raises :class:`InvalidRecord` naming the field. Whether a record is legal *for a match* (the
right poser and pose tile, counts in range, llave allowed ...) is checked by
:func:`scoring.engine.match.match_apply`, which knows the ruleset and the state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from scoring.engine.errors import InvalidRecord, RuleViolation
from scoring.engine.tiles import Tile

RECORD_RULE: Final = "§9"  # rule reference for malformed records (RULES.md section 9)


class EndKind(StrEnum):
    """How a hand ended: a player dominoed (R18) or the hand blocked (R19)."""

    DOMINO = "domino"
    BLOCK = "block"


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand as the referee records it (section 9).

    ``winner`` is given for a domino only; a block names no winner (the engine derives it by
    R20). ``counts`` holds every seat's count for a block, and for a domino under pip scoring
    (the winner's count 0, R40); it is optional otherwise. ``llave`` is a llave claim (R24),
    ``sporting`` a sporting declaration (R11).

    >>> r = HandRecord.from_dict({"poser": 2, "pose_tile": "6-6", "end": "domino", "winner": 0})
    >>> r.to_dict()["pose_tile"], r.end
    ('6-6', <EndKind.DOMINO: 'domino'>)
    """

    poser: int
    pose_tile: Tile
    end: EndKind
    winner: int | None = None
    counts: tuple[int, ...] | None = None
    llave: bool = False
    sporting: bool = False

    @classmethod
    def domino(
        cls,
        poser: int,
        pose_tile: Tile | str,
        winner: int,
        *,
        counts: Sequence[int] | None = None,
        llave: bool = False,
        sporting: bool = False,
    ) -> HandRecord:
        """Shorthand for a domino record (R18)."""
        tile = Tile.parse(pose_tile) if isinstance(pose_tile, str) else pose_tile
        return cls(
            poser,
            tile,
            EndKind.DOMINO,
            winner,
            tuple(counts) if counts is not None else None,
            llave,
            sporting,
        )

    @classmethod
    def block(
        cls, poser: int, pose_tile: Tile | str, counts: Sequence[int], *, sporting: bool = False
    ) -> HandRecord:
        """Shorthand for a blocked hand with every seat's count (R19, R20)."""
        tile = Tile.parse(pose_tile) if isinstance(pose_tile, str) else pose_tile
        return cls(poser, tile, EndKind.BLOCK, None, tuple(counts), False, sporting)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> HandRecord:
        """Parse a JSON-ish mapping; :class:`InvalidRecord` names the malformed field (§9).

        Keys: ``poser`` (int), ``pose_tile`` ("6-6", or ``[6, 6]``), ``end`` ("domino" or
        "block"), ``winner`` (int or null), ``counts`` (list of ints or null), ``llave`` and
        ``sporting`` (bools, default false).
        """
        if not isinstance(data, Mapping):
            raise _malformed("record", "A hand record must be an object (§9).")
        unknown = sorted(str(k) for k in data if k not in _KEYS)
        if unknown:
            raise _malformed(
                unknown[0],
                f"Unknown field {unknown[0]!r}; a hand record has {', '.join(_KEYS)} (§9).",
                code="unknown_field",
            )
        for key in ("poser", "pose_tile", "end"):
            if data.get(key) is None:
                raise _malformed(key, f"{key} is required (§9).", code="missing_field")
        poser = _seat(data["poser"], "poser")
        pose_tile = _tile(data["pose_tile"])
        end_raw = data["end"]
        if isinstance(end_raw, EndKind):
            end = end_raw
        elif isinstance(end_raw, str) and end_raw in _END_VALUES:
            end = EndKind(end_raw)
        else:
            raise _malformed("end", f"end must be 'domino' or 'block', not {end_raw!r} (§9).")
        winner_raw = data.get("winner")
        winner = None if winner_raw is None else _seat(winner_raw, "winner")
        counts_raw = data.get("counts")
        counts: tuple[int, ...] | None = None
        if counts_raw is not None:
            if isinstance(counts_raw, str | bytes) or not isinstance(counts_raw, Sequence):
                raise _malformed("counts", "counts must be a list of integers, one per seat (§9).")
            items: list[int] = []
            for i, c in enumerate(counts_raw):
                if not isinstance(c, int) or isinstance(c, bool):
                    raise _malformed(f"counts[{i}]", f"counts[{i}]={c!r} is not an integer (§9).")
                items.append(c)
            counts = tuple(items)
        return cls(
            poser=poser,
            pose_tile=pose_tile,
            end=end,
            winner=winner,
            counts=counts,
            llave=_flag(data.get("llave", False), "llave"),
            sporting=_flag(data.get("sporting", False), "sporting"),
        )

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form; :meth:`from_dict` reads it back unchanged."""
        return {
            "poser": self.poser,
            "pose_tile": str(self.pose_tile),
            "end": self.end.value,
            "winner": self.winner,
            "counts": list(self.counts) if self.counts is not None else None,
            "llave": self.llave,
            "sporting": self.sporting,
        }


def block_result(counts: Sequence[int]) -> int | None:
    """R20: the seat with the unique lowest count, or ``None`` when the lowest is shared (tie).

    >>> block_result([22, 29, 15, 20]), block_result([13, 19, 8, 8])
    (2, None)
    """
    low = min(counts)
    seat = -1
    for i, c in enumerate(counts):
        if c == low:
            if seat >= 0:
                return None
            seat = i
    return seat


def lowest_seats(counts: Sequence[int]) -> tuple[int, ...]:
    """Every seat holding the lowest count (one seat: a win; several: a tie, R20)."""
    low = min(counts)
    return tuple(i for i, c in enumerate(counts) if c == low)


_KEYS: Final = ("poser", "pose_tile", "end", "winner", "counts", "llave", "sporting")
_END_VALUES: Final = frozenset(e.value for e in EndKind)


def _malformed(field: str, message: str, *, code: str = "malformed") -> InvalidRecord:
    return InvalidRecord(code=code, rule=RECORD_RULE, field=field, message=message)


def _seat(raw: object, field: str) -> int:
    if not isinstance(raw, int) or isinstance(raw, bool):
        raise _malformed(field, f"{field} must be a seat number (0 = A), not {raw!r} (§9).")
    return raw


def _flag(raw: object, field: str) -> bool:
    if not isinstance(raw, bool):
        raise _malformed(field, f"{field} must be true or false, not {raw!r} (§9).")
    return raw


def _tile(raw: object) -> Tile:
    if isinstance(raw, Tile):
        return raw
    try:
        if isinstance(raw, str):
            return Tile.parse(raw)
        if (
            isinstance(raw, Sequence)
            and len(raw) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in raw)
        ):
            return Tile.of(raw[0], raw[1])
    except RuleViolation as exc:
        raise InvalidRecord(
            code="invalid_tile", rule="R1", field="pose_tile", message=exc.message
        ) from exc
    raise InvalidRecord(
        code="invalid_tile",
        rule="R1",
        field="pose_tile",
        message=f"pose_tile {raw!r} is not a tile; write it like 6-6 or 5-3 (R1).",
    )
