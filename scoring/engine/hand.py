"""Playing one hand, move by move (R5-R20).

Glossary:
    hand state  -- an immutable position: every seat's tiles (28-bit masks), the stock, the two
                   open ends of the line, how often each value shows on the board, the tiles
                   placed so far, whose turn it is and who posed.
    move        -- one action of the seat to move: ``POSE`` (first tile), ``PLAY`` (a tile on
                   an open end), ``DRAW`` (one tile from a draw boneyard) or ``PASS`` (R12).
    ends        -- the open end values ``(left, right)``; the pose's high half is the left end.
    pose requirement -- who poses and whether the pose is forced (R5-R11), derived from the
                   match's ``NextHand``.
    domino      -- a player played their last tile and wins at once (R18).
    block       -- nobody can play and no draw is allowed (R19); the lowest count wins (R20).
    count       -- pip total of a seat's remaining tiles (R20); stock tiles never count.

Usage, in the style of python-chess::

    state = hand_start(ruleset, 4, deal, PoseRequirement(seat=None, forced=True))
    while not state.is_over:
        state = apply(state, legal_moves(state)[0])
    record = hand_outcome(state)

:func:`apply` checks the move itself (no need to call :func:`legal_moves` first) and raises
:class:`IllegalMove` with a machine-readable ``code``, the ``rule`` it enforces and a message a
referee understands. A ``DRAW`` passed to :func:`apply` must name the tile drawn; the player
does not choose it, so :func:`legal_moves` offers a draw without a tile.

Decisions (where RULES.md leaves something open):
    * A draw does not end the turn: the drawer keeps drawing until they can play or the
      boneyard is down to the reserve, then plays or passes (R16). Every draw is its own move.
    * A block is detected right after the move that causes it (R19) -- a play, a pose, or a
      draw that brings the boneyard down to the reserve -- so a blocked hand never waits for
      the passes that would follow; :func:`is_blocked` is the "everybody would pass" test.
    * A forced pose is always made by the holder of the forced tile of *this* deal (R5): the
      6-6, or the R5 fallback when 6-6 was not dealt.
    * Sporting (R11) applies only to a forced 6-6: with ``sporting_allowed`` its holder may pose
      any of their tiles; a forced fallback double or heaviest tile (R5) must be posed.
    * When the two open ends show the same value, a tile fitting them may go on either end;
      both placements are listed by :func:`legal_moves` (the line differs, the play does not).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Final, Protocol

from scoring.engine.deal import Deal, check_deal, forced_opener
from scoring.engine.errors import IllegalMove, InvalidRecord
from scoring.engine.llave import VALUE_MASK, is_llave
from scoring.engine.record import EndKind, HandRecord
from scoring.engine.rules import Boneyard, Llave, Ruleset
from scoring.engine.tiles import ALL_TILES, DOUBLE_SIX, MAX_PIP, Tile, tiles_from_mask

if TYPE_CHECKING:
    from scoring.engine.match import NextHand

MAX_SEATS: Final = 4
_SEAT_NAMES: Final = "ABCD"
_PIPS: Final[tuple[int, ...]] = tuple(t.pips for t in ALL_TILES)


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
    draw offered by :func:`legal_moves`); ``end`` is where a played tile goes.
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
        who = seat_label(self.seat)
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
        return _POSE[seat][tile.index]

    @staticmethod
    def play(seat: int, tile: Tile, end: End | None = None) -> Move:
        if end is None:
            return Move(seat, MoveKind.PLAY, tile)
        return _PLAY[seat][tile.index][end is End.RIGHT]

    @staticmethod
    def draw(seat: int, tile: Tile | None = None) -> Move:
        return _DRAW[seat] if tile is None else _DRAWN[seat][tile.index]

    @staticmethod
    def pass_(seat: int) -> Move:
        return _PASS[seat]


# Interned moves: legal_moves() hands out these instances instead of building new ones.
_POSE: Final = tuple(tuple(Move(s, MoveKind.POSE, t) for t in ALL_TILES) for s in range(MAX_SEATS))
_PLAY: Final = tuple(
    tuple(
        (Move(s, MoveKind.PLAY, t, End.LEFT), Move(s, MoveKind.PLAY, t, End.RIGHT))
        for t in ALL_TILES
    )
    for s in range(MAX_SEATS)
)
_DRAW: Final = tuple(Move(s, MoveKind.DRAW) for s in range(MAX_SEATS))
_DRAWN: Final = tuple(tuple(Move(s, MoveKind.DRAW, t) for t in ALL_TILES) for s in range(MAX_SEATS))
_PASS: Final = tuple(Move(s, MoveKind.PASS) for s in range(MAX_SEATS))


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
    """An immutable position in one hand. Build it with :func:`hand_start` or :func:`position`.

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


def seat_label(seat: int) -> str:
    """Seat letter A..D (RULES.md section 10)."""
    return _SEAT_NAMES[seat] if 0 <= seat < MAX_SEATS else f"#{seat}"


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
    rules = _rules_for(ruleset, n_players)
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


def _rules_for(ruleset: Ruleset, n_players: int) -> HandRules:
    key = (ruleset, n_players)
    rules = _RULES_CACHE.get(key)
    if rules is None:
        rules = HandRules.of(ruleset, n_players)
        if len(_RULES_CACHE) < 256:
            _RULES_CACHE[key] = rules
    return rules


def position(
    ruleset: Ruleset,
    n_players: int,
    *,
    hands: Sequence[Iterable[Tile]],
    line: Sequence[tuple[int, int]],
    turn: int,
    stock: Iterable[Tile] = (),
    poser: int = 0,
) -> HandState:
    """A mid-hand position, for known-position tests, puzzles and teaching.

    ``line`` is the board from left to right as oriented pairs (``[(6, 6), (6, 3)]`` has open
    ends 6 | 3); it must not be empty and neighbours must match (R13). Every tile of the set in
    use must be in exactly one of the hands, the line and the stock. The placements are
    recorded as a pose of the first pair by ``poser`` followed by plays on the right end, in
    line order. The position must not already be over (R18/R19); play a move to end it.
    Raises :class:`InvalidRecord` on an inconsistent position.
    """
    rules = _rules_for(ruleset, n_players)
    hand_masks = tuple(_mask(h) for h in hands)
    stock_mask = _mask(stock)
    if len(hand_masks) != n_players or not line:
        raise InvalidRecord(
            code="invalid_position",
            rule="R2",
            field="hands",
            message="A position needs one hand per seat and at least the pose on the board.",
        )
    on_board = [0] * (MAX_PIP + 1)
    board = 0
    placements: list[Move] = []
    for i, (a, b) in enumerate(line):
        tile = Tile.of(a, b)
        if i and line[i - 1][1] != a:
            raise InvalidRecord(
                code="invalid_position",
                rule="R13",
                field=f"line[{i}]",
                message=f"{a}-{b} does not match its neighbour's {line[i - 1][1]} (R13).",
            )
        if board & tile.mask:
            raise InvalidRecord(
                code="invalid_position",
                rule="R1",
                field=f"line[{i}]",
                message=f"{tile} is on the board twice (R1).",
            )
        board |= tile.mask
        on_board[a] += 1
        on_board[b] += 1
        seat = (poser + i) % n_players
        placements.append(Move.pose(seat, tile) if i == 0 else Move.play(seat, tile, End.RIGHT))
    everything = board | stock_mask
    for h in hand_masks:
        if everything & h:
            raise InvalidRecord(
                code="invalid_position",
                rule="R1",
                field="hands",
                message="A tile is in two places (R1).",
            )
        everything |= h
    if everything != rules.set_mask:
        raise InvalidRecord(
            code="invalid_position",
            rule="R2",
            field="hands",
            message="Hands, line and stock must hold exactly the set in use (R2).",
        )
    state = HandState(
        rules=rules,
        hands=hand_masks,
        stock=stock_mask,
        left=line[0][0],
        right=line[-1][1],
        on_board=tuple(on_board),
        placements=tuple(placements),
        turn=turn,
        passes=0,
        poser=poser,
        forced_tile=None,
    )
    if any(h == 0 for h in hand_masks) or is_blocked(state):
        raise InvalidRecord(
            code="invalid_position",
            rule="R19",
            field="hands",
            message="The position is already over (R18/R19).",
        )
    return state


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
        poses = _POSE[seat]
        if forced is not None and not (state.rules.sporting_allowed and forced == DOUBLE_SIX):
            return (poses[forced.index],)
        return tuple(poses[t.index] for t in _tiles(hand))
    right = state.right
    lmask = VALUE_MASK[left]
    rmask = VALUE_MASK[right]
    playable = hand & (lmask | rmask)
    rules = state.rules
    if playable:
        plays = _PLAY[seat]
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
            moves.append(_DRAW[seat])
        return tuple(moves)
    if rules.draw and state.stock.bit_count() > rules.reserve:
        return (_DRAW[seat],)
    return (_PASS[seat],)


def apply(state: HandState, move: Move) -> HandState:
    """The position after ``move`` (R5-R20); ``state`` is unchanged.

    Raises :class:`IllegalMove` (``code``/``rule``): ``hand_over`` (R18/R19), ``not_your_turn``
    (R12), ``wrong_poser`` (R5-R10), ``pose_expected``/``already_posed`` (R12),
    ``tile_not_held`` (R13), ``forced_pose_tile`` (R5), ``sporting_not_allowed`` (R11),
    ``tile_does_not_match``/``end_ambiguous`` (R13), ``pass_while_playable`` (R14),
    ``must_draw``/``draw_while_playable``/``boneyard_reserve``/``tile_not_in_boneyard``/
    ``draw_tile_missing`` (R16), ``no_boneyard`` (R15).
    """
    if state.result is not None:
        raise _illegal(
            "hand_over",
            "R18" if state.result is EndKind.DOMINO else "R19",
            f"The hand is already over ({_over_text(state)}); no more moves are accepted.",
        )
    seat = state.turn
    if state.left < 0:
        return _apply_pose(state, move, seat)
    if move.seat != seat:
        raise _illegal(
            "not_your_turn",
            "R12",
            f"It is seat {seat_label(seat)}'s turn, not seat {seat_label(move.seat)}'s (R12).",
        )
    kind = move.kind
    if kind is MoveKind.PLAY:
        return _apply_play(state, move, seat)
    if kind is MoveKind.DRAW:
        return _apply_draw(state, move, seat)
    if kind is MoveKind.PASS:
        return _apply_pass(state, seat)
    raise _illegal("already_posed", "R12", "The hand has already been posed (R12).")


def _apply_pose(state: HandState, move: Move, seat: int) -> HandState:
    if move.seat != seat:
        how = (
            f"the forced pose of {state.forced_tile}"
            if state.forced_tile is not None
            else "a free pose"
        )
        raise _illegal(
            "wrong_poser",
            "R5" if state.forced_tile is not None else "R7",
            f"Seat {seat_label(seat)} must pose this hand ({how}), "
            f"not seat {seat_label(move.seat)} (R5-R10).",
        )
    if move.kind is not MoveKind.POSE or move.tile is None:
        raise _illegal(
            "pose_expected",
            "R12",
            f"The hand starts with a pose by seat {seat_label(seat)}, not with a "
            f"{move.kind.value} (R12).",
        )
    tile = move.tile
    bit = tile.mask
    hand = state.hands[seat]
    if not hand & bit:
        raise _illegal(
            "tile_not_held",
            "R13",
            f"Seat {seat_label(seat)} cannot pose {tile}: it is not in their hand (R13).",
        )
    forced = state.forced_tile
    sporting = False
    if forced is not None and tile != forced:
        if forced == DOUBLE_SIX and state.rules.sporting_allowed:
            sporting = True
        elif forced == DOUBLE_SIX:
            raise _illegal(
                "sporting_not_allowed",
                "R11",
                f"Seat {seat_label(seat)} must pose 6-6 (R5); posing another tile "
                '("sporting") is not allowed under this ruleset (R11).',
            )
        else:
            raise _illegal(
                "forced_pose_tile",
                "R5",
                f"6-6 was not dealt, so seat {seat_label(seat)} must pose {forced}, the "
                f"highest double or heaviest tile dealt, not {tile} (R5).",
            )
    on_board = list(state.on_board)
    on_board[tile.low] += 1
    on_board[tile.high] += 1
    return _after_placement(
        state,
        seat,
        hand ^ bit,
        _POSE[seat][tile.index],
        tile.high,
        tile.low,
        tuple(on_board),
        sporting=sporting,
    )


def _apply_play(state: HandState, move: Move, seat: int) -> HandState:
    tile = move.tile
    if tile is None:
        raise _illegal("tile_missing", "R13", "A play must name the tile played (R13).")
    bit = move.bit
    hand = state.hands[seat]
    if not hand & bit:
        raise _illegal(
            "tile_not_held",
            "R13",
            f"Seat {seat_label(seat)} cannot play {tile}: it is not in their hand (R13).",
        )
    left, right = state.left, state.right
    end = move.end
    if end is None:
        fits_left, fits_right = tile.has(left), tile.has(right)
        if fits_left and fits_right and left != right:
            raise _illegal(
                "end_ambiguous",
                "R13",
                f"{tile} fits both ends ({left} and {right}); say which end it goes on (R13).",
            )
        end = End.LEFT if fits_left else End.RIGHT
    value = left if end is End.LEFT else right
    if not VALUE_MASK[value] & bit:
        raise _illegal(
            "tile_does_not_match",
            "R13",
            f"{tile} has no {value}, so it cannot go on the {end.value} end "
            f"(open ends {left} | {right}) (R13).",
        )
    other = tile.high if tile.low == value else tile.low
    on_board = list(state.on_board)
    on_board[tile.low] += 1
    on_board[tile.high] += 1
    new_hand = hand ^ bit
    llave = False
    if not new_hand:
        llave = is_llave((left, right), state.on_board, tile, state.rules.set_mask)
    if end is End.LEFT:
        left = other
    else:
        right = other
    return _after_placement(
        state,
        seat,
        new_hand,
        move if move.end is not None else _PLAY[seat][bit.bit_length() - 1][end is End.RIGHT],
        left,
        right,
        tuple(on_board),
        llave=llave,
    )


def _after_placement(
    state: HandState,
    seat: int,
    new_hand: int,
    placed: Move,
    left: int,
    right: int,
    on_board: tuple[int, ...],
    *,
    sporting: bool | None = None,
    llave: bool = False,
) -> HandState:
    hands = list(state.hands)
    hands[seat] = new_hand
    result: EndKind | None = None
    winner: int | None = None
    if not new_hand:
        result, winner = EndKind.DOMINO, seat  # R18
    else:
        fits = VALUE_MASK[left] | VALUE_MASK[right]
        held = 0
        for h in hands:
            held |= h
        rules = state.rules
        if not held & fits and not (rules.draw and state.stock.bit_count() > rules.reserve):
            result = EndKind.BLOCK  # R19
    return _state(
        state.rules,
        tuple(hands),
        state.stock,
        left,
        right,
        on_board,
        (*state.placements, placed),
        (seat + 1) % state.rules.n_players,
        0,
        state.poser,
        state.forced_tile,
        result,
        winner,
        llave,
        state.sporting if sporting is None else sporting,
    )


def _apply_draw(state: HandState, move: Move, seat: int) -> HandState:
    rules = state.rules
    if not rules.draw:
        raise _illegal(
            "no_boneyard",
            "R15",
            "This hand has no draw boneyard; a player who cannot play passes (R15).",
        )
    stock_size = state.stock.bit_count()
    if stock_size <= rules.reserve:
        raise _illegal(
            "boneyard_reserve",
            "R16",
            f"The boneyard holds {stock_size} tiles and {rules.reserve} must stay in it; "
            "no more draws (R16).",
        )
    hand = state.hands[seat]
    if hand & (VALUE_MASK[state.left] | VALUE_MASK[state.right]) and not rules.draw_when_playable:
        raise _illegal(
            "draw_while_playable",
            "R16",
            f"Seat {seat_label(seat)} holds a tile that fits ({state.left} | {state.right}) "
            "and must play it; drawing is only allowed without a legal play (R14, R16).",
        )
    tile = move.tile
    if tile is None:
        raise _illegal(
            "draw_tile_missing",
            "R16",
            "A draw must name the tile drawn so the hand can be replayed (R16).",
        )
    if not state.stock & tile.mask:
        raise _illegal(
            "tile_not_in_boneyard",
            "R16",
            f"{tile} cannot be drawn: it is not in the boneyard (R16).",
        )
    hands = list(state.hands)
    hands[seat] = hand | tile.mask
    stock = state.stock ^ tile.mask
    result: EndKind | None = None
    if stock.bit_count() <= rules.reserve:
        held = 0
        for h in hands:
            held |= h
        if not held & (VALUE_MASK[state.left] | VALUE_MASK[state.right]):
            result = EndKind.BLOCK  # R19: the last allowed draw did not unblock the line
    return _state(
        rules,
        tuple(hands),
        stock,
        state.left,
        state.right,
        state.on_board,
        state.placements,
        seat,  # the drawer keeps the turn until they play or pass (R16)
        0,
        state.poser,
        state.forced_tile,
        result,
        None,
        False,
        state.sporting,
    )


def _apply_pass(state: HandState, seat: int) -> HandState:
    hand = state.hands[seat]
    if hand & (VALUE_MASK[state.left] | VALUE_MASK[state.right]):
        raise _illegal(
            "pass_while_playable",
            "R14",
            f"Seat {seat_label(seat)} holds a tile that fits ({state.left} | {state.right}) "
            "and must play; a pass is only allowed without a legal play (R14).",
        )
    if state.can_draw():
        raise _illegal(
            "must_draw",
            "R16",
            f"Seat {seat_label(seat)} cannot play and must draw from the boneyard before "
            "passing (R16).",
        )
    passes = state.passes + 1
    # Unreachable in practice (R19 is detected as soon as it holds), kept as the definition.
    result = EndKind.BLOCK if passes >= state.rules.n_players else None
    return _state(
        state.rules,
        state.hands,
        state.stock,
        state.left,
        state.right,
        state.on_board,
        state.placements,
        (seat + 1) % state.rules.n_players,
        passes,
        state.poser,
        state.forced_tile,
        result,
        None,
        False,
        state.sporting,
    )


def hand_outcome(state: HandState) -> HandRecord:
    """The outcome record of a finished hand (R18-R20, R23, section 9).

    Carries the poser and pose tile, ``domino`` with the winner or ``block`` without one (the
    match derives winner or tie from the counts, R20), every seat's count, the llave flag
    (only when the ruleset has a llave bonus, R24) and whether the pose was sporting (R11).
    Raises :class:`IllegalMove` (``hand_not_over``) for an unfinished hand.
    """
    if state.result is None:
        raise _illegal(
            "hand_not_over",
            "R18",
            "The hand is not over: nobody has dominoed (R18) and it is not blocked (R19).",
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


def _over_text(state: HandState) -> str:
    if state.result is EndKind.DOMINO and state.winner is not None:
        return f"seat {seat_label(state.winner)} dominoed (R18)"
    return "blocked (R19)"


def _tiles(mask: int) -> list[Tile]:
    return tiles_from_mask(mask)


def _mask(tiles: Iterable[Tile]) -> int:
    m = 0
    for t in tiles:
        m |= t.mask
    return m


# Hot path: a frozen dataclass's __init__ sets each of the 15 fields through
# object.__setattr__; the slot descriptors' own setters do the same job in about half the
# time, which matters at ~27 new states per simulated hand. Field order = HandState's.
_new_state = object.__new__
_slot = HandState.__dict__
_set_rules = _slot["rules"].__set__
_set_hands = _slot["hands"].__set__
_set_stock = _slot["stock"].__set__
_set_left = _slot["left"].__set__
_set_right = _slot["right"].__set__
_set_on_board = _slot["on_board"].__set__
_set_placements = _slot["placements"].__set__
_set_turn = _slot["turn"].__set__
_set_passes = _slot["passes"].__set__
_set_poser = _slot["poser"].__set__
_set_forced_tile = _slot["forced_tile"].__set__
_set_result = _slot["result"].__set__
_set_winner = _slot["winner"].__set__
_set_llave = _slot["llave"].__set__
_set_sporting = _slot["sporting"].__set__


def _state(
    rules: HandRules,
    hands: tuple[int, ...],
    stock: int,
    left: int,
    right: int,
    on_board: tuple[int, ...],
    placements: tuple[Move, ...],
    turn: int,
    passes: int,
    poser: int,
    forced_tile: Tile | None,
    result: EndKind | None,
    winner: int | None,
    llave: bool,
    sporting: bool,
) -> HandState:
    """``HandState(...)`` without the frozen-dataclass overhead (same fields, same order)."""
    state: HandState = _new_state(HandState)
    _set_rules(state, rules)
    _set_hands(state, hands)
    _set_stock(state, stock)
    _set_left(state, left)
    _set_right(state, right)
    _set_on_board(state, on_board)
    _set_placements(state, placements)
    _set_turn(state, turn)
    _set_passes(state, passes)
    _set_poser(state, poser)
    _set_forced_tile(state, forced_tile)
    _set_result(state, result)
    _set_winner(state, winner)
    _set_llave(state, llave)
    _set_sporting(state, sporting)
    return state


def _illegal(code: str, rule: str, message: str) -> IllegalMove:
    return IllegalMove(code=code, rule=rule, message=message, field="move")


__all__ = [
    "End",
    "HandRules",
    "HandState",
    "Move",
    "MoveKind",
    "PoseRequirement",
    "apply",
    "hand_outcome",
    "hand_start",
    "is_blocked",
    "legal_moves",
    "pip_count",
    "position",
    "seat_label",
]
