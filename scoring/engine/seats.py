"""Seat names (RULES.md section 0).

Glossary:
    seat -- a player's place at the table, numbered ``0..n-1`` in play order; shown as a letter,
            ``0 -> "A"``, ``1 -> "B"``, ... (section 10).

Hands, match reports and the command line all name seats through :func:`seat_name`, so a seat
reads the same in every message.
"""

from __future__ import annotations

from typing import Final

_SEAT_NAMES: Final = "ABCDEFGH"


def seat_name(seat: int) -> str:
    """Seat letter in play order: 0 -> "A", 1 -> "B", ... (section 0)."""
    return _SEAT_NAMES[seat] if 0 <= seat < len(_SEAT_NAMES) else f"seat {seat}"


__all__ = ["seat_name"]
