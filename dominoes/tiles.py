"""Tiles of the double-six set (R1).

Glossary:
    tile   -- an unordered pair ``a-b`` with ``0 <= a <= b <= 6``.
    pips   -- a tile's value ``a + b`` (R1); a double counts both halves, 0-0 is worth 0.
    double -- a tile whose halves are equal.

Tiles are frozen values that compare and hash by their halves, not by identity:
``Tile(6, 6) == Tile.parse("6-6")`` holds, though the two may be different objects. Each tile
has a stable ``index`` (0..27, its position in :data:`ALL_TILES`) so hands can be stored as
28-bit masks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from dominoes.digits import parse_int
from dominoes.errors import RuleViolation

MAX_PIP: Final = 6


@dataclass(frozen=True, slots=True, order=True)
class Tile:
    """One tile ``low-high`` of the double-six set (R1)."""

    low: int
    high: int

    def __post_init__(self) -> None:
        if not (0 <= self.low <= self.high <= MAX_PIP):
            raise RuleViolation(
                code="invalid_tile",
                rule="R1",
                field="tile",
                message=f"{self.low}-{self.high} is not a tile of the double-six set (R1).",
            )

    @property
    def pips(self) -> int:
        """Pip value a+b (R1)."""
        return self.low + self.high

    @property
    def is_double(self) -> bool:
        return self.low == self.high

    @property
    def index(self) -> int:
        """Stable position 0..27 in :data:`ALL_TILES` (ordered 0-0, 0-1, ..., 6-6)."""
        return _INDEX[(self.low, self.high)]

    @property
    def mask(self) -> int:
        return 1 << _INDEX[(self.low, self.high)]

    def has(self, value: int) -> bool:
        return self.low == value or self.high == value

    def other(self, value: int) -> int:
        """The half opposite ``value`` (which the tile must carry)."""
        if self.low == value:
            return self.high
        if self.high == value:
            return self.low
        raise ValueError(f"{self} does not carry {value}")

    def __str__(self) -> str:
        # Written high first, the way players say it ("six-three").
        return f"{self.high}-{self.low}"

    @staticmethod
    def of(a: int, b: int) -> Tile:
        """The tile with halves ``a`` and ``b`` in either order."""
        lo, hi = (a, b) if a <= b else (b, a)
        return Tile(lo, hi)

    @staticmethod
    def parse(text: str) -> Tile:
        """Parse ``"6-3"``, ``"3-6"`` or ``"36"``; raises :class:`RuleViolation` (R1)."""
        cleaned = text.strip().replace("|", "-").replace(":", "-")
        parts = cleaned.split("-") if "-" in cleaned else list(cleaned)
        # ASCII digits only: "²" passes str.isdigit() but not int() (dominoes.digits).
        a, b = (parse_int(p.strip()) for p in parts) if len(parts) == 2 else (None, None)
        if a is None or b is None:
            raise RuleViolation(
                code="invalid_tile",
                rule="R1",
                field="tile",
                message=f"{text!r} is not a tile; write it like 6-6 or 5-3 (R1).",
            )
        return Tile.of(a, b)


_INDEX: Final[dict[tuple[int, int], int]] = {}
ALL_TILES: Final[tuple[Tile, ...]] = tuple(
    Tile(a, b) for a in range(MAX_PIP + 1) for b in range(a, MAX_PIP + 1)
)
for _i, _t in enumerate(ALL_TILES):
    _INDEX[(_t.low, _t.high)] = _i

DOUBLE_SIX: Final = ALL_TILES[-1]
DOUBLE_BLANK: Final = ALL_TILES[0]
FULL_SET_MASK: Final = (1 << len(ALL_TILES)) - 1
TOTAL_PIPS: Final = sum(t.pips for t in ALL_TILES)  # 168 (R1)


def tiles_from_mask(mask: int) -> list[Tile]:
    """The tiles whose bits are set in ``mask``, in set order."""
    return [t for t in ALL_TILES if mask >> t.index & 1]


def mask_of(tiles: Iterable[Tile]) -> int:
    """Bit mask of an iterable of tiles."""
    m = 0
    for t in tiles:
        m |= t.mask
    return m
