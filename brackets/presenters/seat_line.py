"""One seat of a table as the director's pages list it (round preview, round page, bracket):
its own module so the presenters that draw seats (``director``, ``pairs``, ``bracket``) share it
without importing one another."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SeatLine:
    letter: str
    entry_id: int
    name: str
    club: str = ""
    seed: int | None = None
    rating: int | None = None
    points: int | None = None
    placing: int | None = None
    forfeited: bool = False
    played_on: bool = False
    """Played on at the forfeited match's continuation (T7): no line here, ``points`` None."""
    goes_on: bool = False
    won: bool = False
    """Placed first alone at the table: the match win (T4); a shared first is none (T3)."""
