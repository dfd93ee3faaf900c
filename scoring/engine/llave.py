"""La llave, "the key" (R22-R24), decided from the board.

Glossary:
    occurrences -- how often value ``v`` shows on a set of tiles; a double counts 2 (R22).
    total(v)    -- occurrences of ``v`` in the set in use: 8, or 6 for ``v = 0`` when 0-0 is
                   removed (three players, standard deal, R2).
    onBoard(v)  -- occurrences of ``v`` on the board.
    hard end    -- an open end showing ``v`` with ``onBoard(v) = total(v) - 1``: the only ``v``
                   not yet on the board is on the tile that would close it.
    llave win   -- a domino whose winning tile is the non-double ``a-b`` laid on two different,
                   hard open ends ``a`` and ``b`` (R23). Blocked wins, a double as last tile and
                   equal ends never count.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from scoring.engine.tiles import ALL_TILES, MAX_PIP, Tile

VALUES: Final = range(MAX_PIP + 1)

VALUE_MASK: Final[tuple[int, ...]] = tuple(
    sum(t.mask for t in ALL_TILES if t.has(v)) for v in VALUES
)
"""``VALUE_MASK[v]``: mask of the tiles carrying ``v`` (including the double ``v-v``)."""

DOUBLE_MASK: Final[tuple[int, ...]] = tuple(Tile(v, v).mask for v in VALUES)
"""``DOUBLE_MASK[v]``: the bit of the double ``v-v``."""


def occurrences(mask: int, value: int) -> int:
    """How often ``value`` shows on the tiles of ``mask``; a double counts 2 (R22).

    >>> from scoring.engine.tiles import FULL_SET_MASK, DOUBLE_BLANK
    >>> occurrences(FULL_SET_MASK, 3), occurrences(FULL_SET_MASK & ~DOUBLE_BLANK.mask, 0)
    (8, 6)
    """
    return (mask & VALUE_MASK[value]).bit_count() + (1 if mask & DOUBLE_MASK[value] else 0)


def totals(set_mask: int) -> tuple[int, ...]:
    """``total(v)`` for v = 0..6 over the set in use (R22)."""
    return tuple(occurrences(set_mask, v) for v in VALUES)


def is_hard(value: int, on_board: Sequence[int], set_mask: int) -> bool:
    """True when an open end showing ``value`` is hard: onBoard(v) = total(v) - 1 (R22)."""
    return on_board[value] == occurrences(set_mask, value) - 1


def is_llave(
    ends_before: tuple[int, int],
    on_board_before: Sequence[int],
    winning_tile: Tile,
    set_mask: int,
) -> bool:
    """Whether a domino with ``winning_tile`` is a llave win (R23).

    ``ends_before`` are the open end values and ``on_board_before[v]`` the board occurrences of
    each value just before the winning tile was placed (R22); ``set_mask`` is the set in use.
    The caller decides that the hand was won by domino; a blocked hand is never a llave.

    X8 (RULES.md section 10): ends 3 | 6 with seven 3s and seven 6s on the board, last tile 3-6
    -- a llave. Ends 5 | 4 but 5-5 not yet played: the 5 end is not hard -- no llave.

    >>> from scoring.engine.tiles import FULL_SET_MASK
    >>> board = [0, 0, 0, 7, 0, 0, 7]
    >>> is_llave((3, 6), board, Tile(3, 6), FULL_SET_MASK)
    True
    >>> is_llave((5, 4), [0, 0, 0, 0, 7, 6, 0], Tile(4, 5), FULL_SET_MASK)
    False
    """
    a, b = ends_before
    if a == b or winning_tile.is_double:
        return False
    if winning_tile != Tile.of(a, b):
        return False
    return is_hard(a, on_board_before, set_mask) and is_hard(b, on_board_before, set_mask)


__all__ = [
    "DOUBLE_MASK",
    "VALUES",
    "VALUE_MASK",
    "is_hard",
    "is_llave",
    "occurrences",
    "totals",
]
