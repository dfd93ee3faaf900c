"""Tiles and sets; they live in :mod:`dominoes.tiles`. Re-exported so ``scoring.engine.tiles``
keeps working."""

from __future__ import annotations

from dominoes.tiles import (
    _INDEX,
    ALL_TILES,
    DOUBLE_BLANK,
    DOUBLE_SIX,
    FULL_SET_MASK,
    MAX_PIP,
    TOTAL_PIPS,
    Tile,
    mask_of,
    tiles_from_mask,
)

__all__ = [
    "ALL_TILES",
    "DOUBLE_BLANK",
    "DOUBLE_SIX",
    "FULL_SET_MASK",
    "MAX_PIP",
    "TOTAL_PIPS",
    "_INDEX",
    "Tile",
    "mask_of",
    "tiles_from_mask",
]
