"""Moves of a hand and who must pose it (R5-R16).

Glossary:
    move        -- one action of the seat to move: ``POSE`` (first tile), ``PLAY`` (a tile on
                   an open end), ``DRAW`` (one tile from a draw boneyard) or ``PASS`` (R12).
    end         -- which open end a played tile goes on; the pose's high half is the left end.
    pose requirement -- who poses and whether the pose is forced (R5-R11), derived from the
                   match's ``NextHand``.

Moves are immutable values that compare by seat, kind, tile and end. For seats 0..3 the
constructors :meth:`Move.pose`, :meth:`Move.play` (with an end), :meth:`Move.draw` and
:meth:`Move.pass_` return shared instances from the tables below, which
:func:`~scoring.engine.hand.legal_moves` and :func:`~scoring.engine.turns.apply` also hand out
instead of building new moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Final, Protocol

from scoring.engine.deal import Deal, forced_opener
from scoring.engine.seats import seat_name
from scoring.engine.tiles import ALL_TILES, Tile

if TYPE_CHECKING:
    from scoring.engine.match_state import NextHand

MAX_SEATS: Final = 4


class MoveKind(StrEnum):
    """What a turn does (R12)."""

    POSE = "pose"
    PLAY = "play"
    DRAW = "draw"
    PASS = "pass"


class End(StrEnum):
    """Which open end a tile goes on (R13)."""

    LEFT = "left"
    RIGHT = "right"


@dataclass(frozen=True, slots=True)
class Move:
    """One action by ``seat`` (R12).

    ``tile`` is the tile posed, played or drawn (``None`` for a pass, and for the tile-less
    draw offered by :func:`~scoring.engine.hand.legal_moves`); ``end`` is where a played tile goes.
    """

    seat: int
    kind: MoveKind
    tile: Tile | None = None
    end: End | None = None
    # The tile's bit (0 without a tile), derived once so the hot paths skip Tile.mask.
    bit: int = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "bit", 0 if self.tile is None else self.tile.mask)

    def __str__(self) -> str:
        who = seat_name(self.seat)
        if self.kind is MoveKind.POSE:
            return f"{who} poses {self.tile}"
        if self.kind is MoveKind.PLAY:
            where = f" on the {self.end.value} end" if self.end is not None else ""
            return f"{who} plays {self.tile}{where}"
        if self.kind is MoveKind.DRAW:
            return f"{who} draws" + (f" {self.tile}" if self.tile is not None else "")
        return f"{who} passes"

    @staticmethod
    def pose(seat: int, tile: Tile) -> Move:
        return POSES[seat][tile.index]

    @staticmethod
    def play(seat: int, tile: Tile, end: End | None = None) -> Move:
        if end is None:
            return Move(seat, MoveKind.PLAY, tile)
        return PLAYS[seat][tile.index][end is End.RIGHT]

    @staticmethod
    def draw(seat: int, tile: Tile | None = None) -> Move:
        return DRAWS[seat] if tile is None else _DRAWN[seat][tile.index]

    @staticmethod
    def pass_(seat: int) -> Move:
        return PASSES[seat]


# Interned moves: legal_moves() and apply() hand out these instances instead of building new
# ones. Engine-internal, hence not in __all__.
POSES: Final = tuple(tuple(Move(s, MoveKind.POSE, t) for t in ALL_TILES) for s in range(MAX_SEATS))
PLAYS: Final = tuple(
    tuple(
        (Move(s, MoveKind.PLAY, t, End.LEFT), Move(s, MoveKind.PLAY, t, End.RIGHT))
        for t in ALL_TILES
    )
    for s in range(MAX_SEATS)
)
DRAWS: Final = tuple(Move(s, MoveKind.DRAW) for s in range(MAX_SEATS))
_DRAWN: Final = tuple(tuple(Move(s, MoveKind.DRAW, t) for t in ALL_TILES) for s in range(MAX_SEATS))
PASSES: Final = tuple(Move(s, MoveKind.PASS) for s in range(MAX_SEATS))


class _NextHandLike(Protocol):
    @property
    def poser(self) -> int | None: ...

    @property
    def forced(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class PoseRequirement:
    """Who poses a hand and whether the pose is forced (R5-R11).

    ``seat=None`` means "the holder of the forced tile of this deal" (R5); ``forced=True`` means
    the forced tile must be posed (the 6-6, or the R5 fallback when 6-6 was not dealt), so a
    forced pose is always made by its holder. ``forced=False`` with a seat is a free pose by
    that seat (R6-R8, R10). ``rule`` names the rule that decided it, for error messages.
    """

    seat: int | None
    forced: bool
    rule: str = "R5"

    def __post_init__(self) -> None:
        if not self.forced and self.seat is None:
            raise ValueError("a free pose needs a seat (R6-R8, R10)")

    @classmethod
    def from_next_hand(cls, next_hand: _NextHandLike | NextHand) -> PoseRequirement:
        """The requirement described by a match's ``NextHand`` (R5-R10)."""
        rule = getattr(next_hand, "rule", None)
        if next_hand.forced or next_hand.poser is None:
            # A free pose needs a seat; a NextHand without one can only mean the forced opener.
            return cls(None, True, rule if isinstance(rule, str) else "R5")
        return cls(next_hand.poser, False, rule if isinstance(rule, str) else "R7")

    def resolve(self, deal: Deal) -> tuple[int, Tile | None]:
        """The seat that poses and the tile it must pose (``None`` for a free pose)."""
        if self.forced:
            return forced_opener(deal)
        assert self.seat is not None
        return self.seat, None


__all__ = ["End", "Move", "MoveKind", "PoseRequirement"]
