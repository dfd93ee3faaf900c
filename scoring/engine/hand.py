"""Playing one hand: the position, its legal moves and its outcome (R5-R20).

Glossary:
    hand state  -- an immutable position: every seat's tiles (28-bit masks), the stock, the two
                   open ends of the line, how often each value shows on the board, the tiles
                   placed so far, whose turn it is and who posed.
    move        -- one action of the seat to move (:class:`~scoring.engine.moves.Move`):
                   ``POSE``, ``PLAY``, ``DRAW`` or ``PASS`` (R12).
    ends        -- the open end values ``(left, right)``; the pose's high half is the left end.
    pose requirement -- who poses and whether the pose is forced (R5-R11), derived from the
                   match's ``NextHand`` (:class:`~scoring.engine.moves.PoseRequirement`).
    domino      -- a player played their last tile and wins at once (R18).
    block       -- nobody can play and no draw is allowed (R19); the lowest count wins (R20).
    count       -- pip total of a seat's remaining tiles (R20); stock tiles never count.

Usage, in the style of python-chess::

    from scoring.engine import PoseRequirement, apply, hand_outcome, hand_start, legal_moves

    state = hand_start(ruleset, 4, deal, PoseRequirement(seat=None, forced=True))
    while not state.is_over:
        state = apply(state, legal_moves(state)[0])
    record = hand_outcome(state)

:func:`scoring.engine.turns.apply` checks a move and plays it, and
:func:`scoring.engine.positions.position` builds a mid-hand position for tests.
:func:`legal_moves` offers a draw without a tile: the player does not choose the tile drawn.

Decisions (where RULES.md leaves something open; those on draws and blocks are in
:mod:`scoring.engine.turns`):
    * A forced pose is always made by the holder of the forced tile of *this* deal (R5): the
      6-6, or the R5 fallback when 6-6 was not dealt.
    * Sporting (R11) applies only to a forced 6-6: with ``sporting_allowed`` its holder may pose
      any of their tiles; a forced fallback double or heaviest tile (R5) must be posed.
    * When the two open ends show the same value, a tile fitting them may go on either end;
      both placements are listed by :func:`legal_moves` (the line differs, the play does not).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from scoring.engine.deal import Deal, check_deal
from scoring.engine.errors import IllegalMove, InvalidRecord
from scoring.engine.llave import VALUE_MASK
from scoring.engine.moves import DRAWS, PASSES, PLAYS, POSES, End, Move, MoveKind, PoseRequirement
from scoring.engine.record import EndKind, HandRecord
from scoring.engine.rules import Boneyard, Llave, Ruleset
from scoring.engine.tiles import ALL_TILES, DOUBLE_SIX, MAX_PIP, Tile, tiles_from_mask

if TYPE_CHECKING:
    from scoring.engine.match_state import NextHand

_PIPS: Final[tuple[int, ...]] = tuple(t.pips for t in ALL_TILES)


@dataclass(frozen=True, slots=True)
class HandRules:
    """The parts of a ruleset that a hand needs, for one table size (R2, R11, R16)."""

    n_players: int
    set_mask: int
    draw: bool
    reserve: int
    draw_when_playable: bool
    sporting_allowed: bool
    llave: Llave

    @classmethod
    def of(cls, ruleset: Ruleset, n_players: int) -> HandRules:
        ruleset.validate_for_players(n_players)
        return cls(
            n_players=n_players,
            set_mask=ruleset.set_mask(n_players),
            draw=ruleset.boneyard_for(n_players) is Boneyard.DRAW,
            reserve=ruleset.boneyard_reserve,
            draw_when_playable=ruleset.draw_when_playable,
            sporting_allowed=ruleset.sporting_allowed,
            llave=ruleset.llave,
        )


@dataclass(frozen=True, slots=True)
class HandState:
    """An immutable position in one hand; build it with :func:`hand_start`.

    A mid-hand position for tests comes from :func:`scoring.engine.positions.position`.

    ``left``/``right`` are the open end values, both ``-1`` before the pose. ``on_board[v]``
    counts the occurrences of ``v`` on the board (a double counts 2, R22). ``placements`` are
    the pose and plays in the order they happened. ``passes`` counts consecutive passes.
    ``result`` is set once the hand is over (R18/R19), with ``winner`` for a domino and
    ``llave`` when that domino is a llave win (R23, whatever the ruleset's bonus).
    """

    rules: HandRules
    hands: tuple[int, ...]
    stock: int
    left: int
    right: int
    on_board: tuple[int, ...]
    placements: tuple[Move, ...]
    turn: int
    passes: int
    poser: int
    forced_tile: Tile | None
    result: EndKind | None = None
    winner: int | None = None
    llave: bool = False
    sporting: bool = False

    @property
    def n_players(self) -> int:
        return self.rules.n_players

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def posed(self) -> bool:
        return self.left >= 0

    @property
    def ends(self) -> tuple[int, int] | None:
        """The open end values, or ``None`` before the pose."""
        return (self.left, self.right) if self.left >= 0 else None

    @property
    def board(self) -> int:
        """Mask of the tiles on the board."""
        mask = 0
        for m in self.placements:
            assert m.tile is not None
            mask |= m.tile.mask
        return mask

    @property
    def pose_tile(self) -> Tile | None:
        return self.placements[0].tile if self.placements else None

    def counts(self) -> tuple[int, ...]:
        """Each seat's count: pips of their remaining tiles (R20)."""
        return tuple(pip_count(h) for h in self.hands)

    def can_draw(self) -> bool:
        """True while a draw boneyard holds more than ``boneyard_reserve`` tiles (R16)."""
        return self.rules.draw and self.stock.bit_count() > self.rules.reserve

    def line(self) -> list[tuple[int, int]]:
        """The board from left to right as oriented pairs, e.g. ``[(6, 6), (6, 3)]``."""
        out: list[tuple[int, int]] = []
        left = right = -1
        for m in self.placements:
            t = m.tile
            assert t is not None
            if m.kind is MoveKind.POSE:
                out.append((t.high, t.low))
                left, right = t.high, t.low
            elif m.end is End.LEFT:
                left = t.other(left)
                out.insert(0, (left, t.other(left)))
            else:
                out.append((right, t.other(right)))
                right = t.other(right)
        return out


def pip_count(mask: int) -> int:
    """Pip total of the tiles in ``mask`` (R20)."""
    total = 0
    while mask:
        low = mask & -mask
        total += _PIPS[low.bit_length() - 1]
        mask ^= low
    return total


def hand_start(
    ruleset: Ruleset,
    n_players: int,
    deal: Deal,
    requirement: PoseRequirement | NextHand,
) -> HandState:
    """The position before the pose: ``deal`` dealt, the poser to move (R5-R11).

    ``requirement`` is a :class:`PoseRequirement` or the match's ``NextHand``. Raises
    :class:`InvalidRecord` if the deal does not fit the ruleset (R2) and
    :class:`InvalidRuleset` if the ruleset cannot be played by ``n_players``.
    """
    rules = rules_for(ruleset, n_players)
    check_deal(ruleset, n_players, deal)
    req = (
        requirement
        if isinstance(requirement, PoseRequirement)
        else PoseRequirement.from_next_hand(requirement)
    )
    if req.seat is not None and not 0 <= req.seat < n_players:
        raise InvalidRecord(
            code="bad_seat",
            rule="R12",
            field="poser",
            message=f"Seat {req.seat} does not exist at a {n_players}-player table (R12).",
        )
    poser, forced_tile = req.resolve(deal)
    return HandState(
        rules=rules,
        hands=deal.hands,
        stock=deal.stock,
        left=-1,
        right=-1,
        on_board=(0,) * (MAX_PIP + 1),
        placements=(),
        turn=poser,
        passes=0,
        poser=poser,
        forced_tile=forced_tile,
    )


_RULES_CACHE: dict[tuple[Ruleset, int], HandRules] = {}


def rules_for(ruleset: Ruleset, n_players: int) -> HandRules:
    """``HandRules.of(ruleset, n_players)``, cached: rulesets are few and hands are many."""
    key = (ruleset, n_players)
    rules = _RULES_CACHE.get(key)
    if rules is None:
        rules = HandRules.of(ruleset, n_players)
        if len(_RULES_CACHE) < 256:
            _RULES_CACHE[key] = rules
    return rules


def is_blocked(state: HandState) -> bool:
    """R19: after the pose, no tile in any hand carries an open end value and no draw is allowed.

    Equivalent to every player passing in turn: then each seat's only legal move is ``PASS``.
    """
    if state.left < 0:
        return False
    fits = VALUE_MASK[state.left] | VALUE_MASK[state.right]
    held = 0
    for h in state.hands:
        held |= h
    return not held & fits and not state.can_draw()


def legal_moves(state: HandState) -> tuple[Move, ...]:
    """Every move the seat to move may make (R5-R16); empty once the hand is over.

    Before the pose: the forced tile (plus, under ``sporting_allowed`` and a forced 6-6, every
    other tile of the holder, R11), or any tile of the poser for a free pose. After it: every
    play on a matching end (R13); a tile-less ``DRAW`` when the seat cannot play and the draw
    boneyard holds more than the reserve (R16), or also when it can play and
    ``draw_when_playable``; otherwise ``PASS`` (R15).
    """
    if state.result is not None:
        return ()
    seat = state.turn
    hand = state.hands[seat]
    left = state.left
    if left < 0:
        forced = state.forced_tile
        poses = POSES[seat]
        if forced is not None and not (state.rules.sporting_allowed and forced == DOUBLE_SIX):
            return (poses[forced.index],)
        return tuple(poses[t.index] for t in tiles_from_mask(hand))
    right = state.right
    lmask = VALUE_MASK[left]
    rmask = VALUE_MASK[right]
    playable = hand & (lmask | rmask)
    rules = state.rules
    if playable:
        plays = PLAYS[seat]
        moves: list[Move] = []
        while playable:
            low = playable & -playable
            i = low.bit_length() - 1
            playable ^= low
            if low & lmask:
                moves.append(plays[i][0])
            if low & rmask:
                moves.append(plays[i][1])
        if rules.draw_when_playable and state.can_draw():
            moves.append(DRAWS[seat])
        return tuple(moves)
    if rules.draw and state.stock.bit_count() > rules.reserve:
        return (DRAWS[seat],)
    return (PASSES[seat],)


def hand_outcome(state: HandState) -> HandRecord:
    """The outcome record of a finished hand (R18-R20, R23, section 9).

    Carries the poser and pose tile, ``domino`` with the winner or ``block`` without one (the
    match derives winner or tie from the counts, R20), every seat's count, the llave flag
    (only when the ruleset has a llave bonus, R24) and whether the pose was sporting (R11).
    Raises :class:`IllegalMove` (``hand_not_over``) for an unfinished hand.
    """
    if state.result is None:
        raise IllegalMove(
            code="hand_not_over",
            rule="R18",
            field="move",
            message="The hand is not over: nobody has dominoed (R18) and it is not blocked (R19).",
        )
    pose = state.placements[0].tile
    assert pose is not None
    return HandRecord(
        poser=state.poser,
        pose_tile=pose,
        end=state.result,
        winner=state.winner,
        counts=state.counts(),
        llave=state.llave and state.rules.llave is not Llave.OFF,
        sporting=state.sporting,
    )


__all__ = [
    "HandRules",
    "HandState",
    "hand_outcome",
    "hand_start",
    "is_blocked",
    "legal_moves",
    "pip_count",
]
