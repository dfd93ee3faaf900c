"""Making a move: the position after one move of the seat to move (R5-R19).

Glossary:
    turn    -- the seat to move makes one move (R12); a play or pose passes the turn on, a draw
               keeps it (R16), a pass passes it on.
    placing -- a pose or a play: one tile more on the line and one fewer in a hand (R13).
    domino  -- a player placed their last tile and wins at once (R18).
    block   -- nobody can play and no draw is allowed (R19).

:func:`apply` checks the move itself (no need to call
:func:`~scoring.engine.hand.legal_moves` first) and raises :class:`IllegalMove` with a
machine-readable ``code``, the ``rule`` it enforces and a message a referee understands. A
``DRAW`` passed to :func:`apply` must name the tile drawn; the player does not choose it, so
:func:`~scoring.engine.hand.legal_moves` offers a draw without a tile.

Decisions (where RULES.md leaves something open; those on the pose and on equal ends are in
:mod:`scoring.engine.hand`):
    * A draw does not end the turn: the drawer keeps drawing until they can play or the
      boneyard is down to the reserve, then plays or passes (R16). Every draw is its own move.
    * A block is detected right after the move that causes it (R19) -- a play, a pose, or a
      draw that brings the boneyard down to the reserve -- so a blocked hand never waits for
      the passes that would follow; :func:`~scoring.engine.hand.is_blocked` is the "everybody
      would pass" test.
"""

from __future__ import annotations

from scoring.engine.errors import IllegalMove
from scoring.engine.hand import HandRules, HandState
from scoring.engine.llave import VALUE_MASK, is_llave
from scoring.engine.moves import PLAYS, POSES, End, Move, MoveKind
from scoring.engine.record import EndKind
from scoring.engine.seats import seat_name
from scoring.engine.tiles import DOUBLE_SIX, Tile


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
            f"It is seat {seat_name(seat)}'s turn, not seat {seat_name(move.seat)}'s (R12).",
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
            f"Seat {seat_name(seat)} must pose this hand ({how}), "
            f"not seat {seat_name(move.seat)} (R5-R10).",
        )
    if move.kind is not MoveKind.POSE or move.tile is None:
        raise _illegal(
            "pose_expected",
            "R12",
            f"The hand starts with a pose by seat {seat_name(seat)}, not with a "
            f"{move.kind.value} (R12).",
        )
    tile = move.tile
    bit = tile.mask
    hand = state.hands[seat]
    if not hand & bit:
        raise _illegal(
            "tile_not_held",
            "R13",
            f"Seat {seat_name(seat)} cannot pose {tile}: it is not in their hand (R13).",
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
                f"Seat {seat_name(seat)} must pose 6-6 (R5); posing another tile "
                '("sporting") is not allowed under this ruleset (R11).',
            )
        else:
            raise _illegal(
                "forced_pose_tile",
                "R5",
                f"6-6 was not dealt, so seat {seat_name(seat)} must pose {forced}, the "
                f"highest double or heaviest tile dealt, not {tile} (R5).",
            )
    on_board = list(state.on_board)
    on_board[tile.low] += 1
    on_board[tile.high] += 1
    return _after_placement(
        state,
        seat,
        hand ^ bit,
        POSES[seat][tile.index],
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
            f"Seat {seat_name(seat)} cannot play {tile}: it is not in their hand (R13).",
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
        move if move.end is not None else PLAYS[seat][bit.bit_length() - 1][end is End.RIGHT],
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
            f"Seat {seat_name(seat)} holds a tile that fits ({state.left} | {state.right}) "
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
            f"Seat {seat_name(seat)} holds a tile that fits ({state.left} | {state.right}) "
            "and must play; a pass is only allowed without a legal play (R14).",
        )
    if state.can_draw():
        raise _illegal(
            "must_draw",
            "R16",
            f"Seat {seat_name(seat)} cannot play and must draw from the boneyard before "
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


def _over_text(state: HandState) -> str:
    if state.result is EndKind.DOMINO and state.winner is not None:
        return f"seat {seat_name(state.winner)} dominoed (R18)"
    return "blocked (R19)"


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


__all__ = ["apply"]
