"""Plain values the brackets engine reads and returns (T1, T8).

Glossary:
    entrant  -- one player entered in a stage: id, rating (for seeding) and club (for seating).
    record   -- a player's running record in a stage: match wins, then hands won (T5, T8).
    table    -- the players at one table *in seat order*; seat order is play order (T1), so
                ``seats[i + 1]`` plays right after ``seats[i]`` and seat 0 follows the last seat.
    seating  -- every table of a round plus the players given a bye (T1).
    bye      -- a player left without a table in a round; it counts as a match win or as
                nothing, per the stage's :class:`ByePolicy` (T1).

Player ids are the integers the service layer uses as primary keys. Everything here is a frozen
dataclass or an enum; the service builds them from the database and stores what comes back.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from brackets.engine.errors import BracketError

PlayerId = int


class ByePolicy(StrEnum):
    """What a bye is worth in the standings (T1)."""

    WIN = "win"
    """The bye counts as one match win (and nothing else: no hands, no six-loves)."""
    NOTHING = "nothing"
    """The bye counts for nothing."""


class SeatOrder(StrEnum):
    """How players are ordered round a table once the table is chosen (T1, T8)."""

    RANDOM = "random"
    """A random order drawn from the injected ``random.Random``."""
    BALANCED = "balanced"
    """The order that repeats the fewest "who sits directly after whom" pairs (T8)."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player entered in a stage. ``club`` ``None`` means "no club" (never a clash, T8)."""

    player_id: PlayerId
    rating: float = 0
    club: str | None = None


@dataclass(frozen=True, slots=True, order=True)
class Record:
    """A player's record for Swiss reseating: match wins, then hands won (T5, T8)."""

    match_wins: int = 0
    hands_won: int = 0


@dataclass(frozen=True, slots=True)
class StageConfig:
    """The stage settings the engine needs (T1).

    ``allow_three`` lets the stage use 3-player tables when the field does not divide by 4;
    ``bye_policy`` says what a bye is worth; ``seat_order`` how seats are ordered at a table.
    """

    allow_three: bool = True
    bye_policy: ByePolicy = ByePolicy.WIN
    seat_order: SeatOrder = SeatOrder.BALANCED


@dataclass(frozen=True, slots=True)
class Table:
    """One table of a round: ``number`` (1 = top table) and the players in seat order (T1)."""

    number: int
    seats: tuple[PlayerId, ...]

    def __post_init__(self) -> None:
        if not 3 <= len(self.seats) <= 4:
            raise BracketError(
                code="bad_table_size",
                rule="T1",
                field="seats",
                message=f"Table {self.number} seats {len(self.seats)} players; a table seats "
                "4 players, or 3 where the stage allows (T1).",
            )
        if len(set(self.seats)) != len(self.seats):
            raise BracketError(
                code="duplicate_seat",
                rule="T1",
                field="seats",
                message=f"Table {self.number} lists a player twice (T1).",
            )

    def successors(self) -> Iterator[tuple[PlayerId, PlayerId]]:
        """Every (player, the player who plays right after them) pair, cyclically (T8)."""
        n = len(self.seats)
        for i, p in enumerate(self.seats):
            yield p, self.seats[(i + 1) % n]


@dataclass(frozen=True, slots=True)
class Seating:
    """A round's tables (numbered 1..t, top table first) and its byes (T1)."""

    tables: tuple[Table, ...]
    byes: tuple[PlayerId, ...] = ()

    def players(self) -> list[PlayerId]:
        """Every seated player, table by table in seat order, then the byes."""
        return [p for t in self.tables for p in t.seats] + list(self.byes)

    def table_of(self, player_id: PlayerId) -> Table | None:
        """The table ``player_id`` sits at, ``None`` for a bye or an unknown player."""
        for t in self.tables:
            if player_id in t.seats:
                return t
        return None
