"""Play logs: a hand recorded move by move, replayed and checked (RULES.md section 9).

Glossary:
    play log -- the deal plus every pose, play, draw and pass in order. It is the second way a
                referee may record a hand (the first is the outcome record); the engine replays
                it, checks every move against the rules and derives the outcome, the counts
                and la llave from it.
    replay   -- here: re-running a play log through :func:`scoring.engine.turns.apply` (not the
                hand that follows a tie, R27).

JSON form (:meth:`PlayLog.to_dict` / :meth:`PlayLog.from_dict`)::

    {"deal": {"hands": [["6-6", "6-3", ...], ...], "stock": [], "boneyard": "none"},
     "moves": [{"seat": 2, "kind": "pose", "tile": "6-6"},
               {"seat": 3, "kind": "play", "tile": "6-3", "end": "right"},
               {"seat": 0, "kind": "draw", "tile": "2-1"},
               {"seat": 0, "kind": "pass"}, ...]}

Seats are 0..3 (A..D; a letter is accepted too). ``end`` may be left out when the tile fits
only one end value (R13). A draw names the tile drawn, so the log can be replayed (R16).

Every rejection is an :class:`InvalidRecord` or :class:`IllegalMove` whose ``field`` points at
the culprit (``"deal.hands[1]"``, ``"moves[12]"``) and whose message a referee understands.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from scoring.engine.deal import Deal, parse_tile
from scoring.engine.errors import IllegalMove, InvalidRecord, RuleViolation
from scoring.engine.hand import HandState, hand_outcome, hand_start
from scoring.engine.llave import VALUE_MASK, is_llave
from scoring.engine.moves import PLAYS, End, Move, MoveKind, PoseRequirement
from scoring.engine.record import EndKind, HandRecord
from scoring.engine.rules import Ruleset
from scoring.engine.seats import seat_name
from scoring.engine.tiles import ALL_TILES, Tile
from scoring.engine.turns import apply

if TYPE_CHECKING:
    from scoring.engine.match_state import NextHand

LOG_RULE = "§9"  # malformed play logs (RULES.md section 9)


@dataclass(frozen=True, slots=True)
class PlayLog:
    """A deal and the moves played from it, in order (section 9)."""

    deal: Deal
    moves: tuple[Move, ...]

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form; :meth:`from_dict` reads it back unchanged."""
        return {"deal": self.deal.to_dict(), "moves": [move_to_dict(m) for m in self.moves]}

    @classmethod
    def from_dict(cls, data: object) -> PlayLog:
        """Parse the JSON form; :class:`InvalidRecord` names the malformed field (section 9)."""
        if not isinstance(data, Mapping):
            raise _malformed("log", "A play log must be an object with a deal and moves (§9).")
        unknown = sorted(str(k) for k in data if k not in ("deal", "moves"))
        if unknown:
            raise _malformed(
                unknown[0], f"Unknown field {unknown[0]!r}; a play log has deal and moves (§9)."
            )
        deal = Deal.from_dict(data.get("deal"))
        raw_moves = data.get("moves")
        if not isinstance(raw_moves, list):
            raise _malformed("moves", "moves must be a list of moves (§9).")
        moves: list[Move] = []
        append = moves.append
        cache_get = _MOVE_CACHE.get
        keys = _MOVE_KEYS
        for i, m in enumerate(raw_moves):
            # Fast path: a canonical move ({"seat": 0-3, "kind", "tile", "end"}) is looked up
            # among the interned moves; anything else is parsed (and rejected) below.
            if type(m) is dict and m.keys() <= keys and type(m.get("seat")) is int:
                try:
                    move = cache_get((m.get("seat"), m.get("kind"), m.get("tile"), m.get("end")))
                except TypeError:  # an unhashable value: let the parser name it
                    move = None
                if move is not None:
                    append(move)
                    continue
            append(move_from_dict(m, f"moves[{i}]"))
        return cls(deal, tuple(moves))


def move_to_dict(move: Move) -> dict[str, object]:
    """``{"seat": 1, "kind": "play", "tile": "6-3", "end": "left"}``; absent parts left out."""
    out: dict[str, object] = {"seat": move.seat, "kind": move.kind.value}
    if move.tile is not None:
        out["tile"] = str(move.tile)
    if move.end is not None:
        out["end"] = move.end.value
    return out


def move_from_dict(data: object, field: str = "move") -> Move:
    """Parse one move of a play log; :class:`InvalidRecord` naming ``field`` on bad input."""
    if not isinstance(data, Mapping):
        raise _malformed(field, "A move must be an object with seat and kind (§9).")
    unknown = sorted(str(k) for k in data if k not in ("seat", "kind", "tile", "end"))
    if unknown:
        raise _malformed(
            f"{field}.{unknown[0]}",
            f"Unknown field {unknown[0]!r}; a move has seat, kind, tile and end (§9).",
        )
    seat = _parse_seat(data.get("seat"), f"{field}.seat")
    raw_kind = data.get("kind")
    try:
        kind = MoveKind(str(raw_kind))
    except ValueError:
        raise _malformed(
            f"{field}.kind", f"kind must be pose, play, draw or pass, not {raw_kind!r} (R12, §9)."
        ) from None
    raw_tile = data.get("tile")
    tile: Tile | None = None
    if raw_tile is not None:
        if not isinstance(raw_tile, str):
            raise _malformed(f"{field}.tile", f"{raw_tile!r} is not a tile; write it like 6-3.")
        try:
            tile = parse_tile(raw_tile)
        except RuleViolation as exc:
            raise InvalidRecord(
                code="invalid_tile", rule="R1", field=f"{field}.tile", message=exc.message
            ) from None
    elif kind in (MoveKind.POSE, MoveKind.PLAY):
        raise _malformed(f"{field}.tile", f"A {kind.value} must name its tile (R13).")
    if kind is MoveKind.PASS and tile is not None:
        raise _malformed(f"{field}.tile", "A pass has no tile (R15).")
    raw_end = data.get("end")
    end: End | None = None
    if raw_end is not None:
        if kind is not MoveKind.PLAY:
            raise _malformed(f"{field}.end", f"Only a play goes on an end, not a {kind.value}.")
        try:
            end = End(str(raw_end))
        except ValueError:
            raise _malformed(
                f"{field}.end", f"end must be left or right, not {raw_end!r} (R13)."
            ) from None
    if kind is MoveKind.POSE and tile is not None:
        return Move.pose(seat, tile)
    if kind is MoveKind.PLAY and tile is not None:
        return Move.play(seat, tile, end)
    if kind is MoveKind.DRAW:
        return Move.draw(seat, tile)
    return Move.pass_(seat)


def replay_states(
    ruleset: Ruleset,
    n_players: int,
    next_hand: NextHand | PoseRequirement,
    log: PlayLog,
) -> Iterator[HandState]:
    """Yield the position before the pose and after every move of ``log`` (section 9).

    Checks the deal against the ruleset (R2) and each move against the rules of the position
    it is played in (R5-R19). Raises :class:`InvalidRecord` (deal) or :class:`IllegalMove`
    whose ``field`` is ``"moves[i]"`` (0-based) and whose message says which move failed.
    Does not check that the log reaches the end of the hand; :func:`replay_play_log` does.
    """
    state = hand_start(ruleset, n_players, log.deal, next_hand)
    yield state
    for i, move in enumerate(log.moves):
        state = _step(state, move, i)
        yield state


def replay(
    ruleset: Ruleset,
    n_players: int,
    next_hand: NextHand | PoseRequirement,
    log: PlayLog,
) -> HandState:
    """The final position of ``log``, every move checked; see :func:`replay_play_log`."""
    fast = _replay_fast(ruleset, n_players, next_hand, log)
    return fast if fast is not None else _replay_reference(ruleset, n_players, next_hand, log)


def _replay_reference(
    ruleset: Ruleset,
    n_players: int,
    next_hand: NextHand | PoseRequirement,
    log: PlayLog,
) -> HandState:
    """:func:`replay` move by move through :func:`~scoring.engine.turns.apply` (the reference:
    it raises the exact error of the first bad move)."""
    state = hand_start(ruleset, n_players, log.deal, next_hand)
    for i, move in enumerate(log.moves):
        state = _step(state, move, i)
    if state.result is None:
        raise InvalidRecord(
            code="log_incomplete",
            rule="R18",
            field="moves",
            message=(
                f"The log stops after {len(log.moves)} moves with seat "
                f"{seat_name(state.turn)} to move; a hand ends only by a domino (R18) or a "
                "block (R19)."
            ),
        )
    return state


def replay_play_log(
    ruleset: Ruleset,
    n_players: int,
    next_hand: NextHand | PoseRequirement,
    log: PlayLog,
) -> HandRecord:
    """Replay ``log`` move by move and derive the hand's outcome record (section 9).

    ``next_hand`` is the match's :class:`NextHand` (who poses, forced or free, R5-R11). The
    record carries the poser and pose tile, ``domino`` with the winner or ``block`` (R18-R20),
    every seat's count and the llave decided from the board (R23, only when the ruleset pays
    a llave bonus) -- the engine decides, no claim needed (R24).

    Raises :class:`InvalidRecord` for a deal that does not fit the ruleset (``deal.*``, R2),
    a malformed or unfinished log (``moves``), and :class:`IllegalMove` for the first move
    that breaks a rule (``moves[i]``): a tile not in that seat's hand, a tile that does not
    match, a pass while holding a play (R14), a draw not allowed (R16), the wrong poser or
    pose tile (R5-R11), a move after the hand ended (R18/R19).
    """
    return hand_outcome(replay(ruleset, n_players, next_hand, log))


def _replay_fast(
    ruleset: Ruleset,
    n_players: int,
    next_hand: NextHand | PoseRequirement,
    log: PlayLog,
) -> HandState | None:
    """The final position of a complete, legal log without a draw boneyard, or ``None``.

    Why: validating a recorded log is on the referee's request path (issue 19: <= 100 us from
    JSON). After the pose (checked by :func:`~scoring.engine.turns.apply`) the plays and passes
    are replayed with local variables and one :class:`HandState` is built at the end, instead
    of one per move. It mirrors ``turns._apply_play``/``turns._apply_pass`` and returns
    ``None`` at the first thing it does not accept (any illegal or unusual move, a draw
    boneyard, an unfinished log); :func:`replay` then replays the log move by move, which
    raises the exact error. A property test checks both agree.
    """
    moves = log.moves
    if not moves:
        return None
    try:
        state = apply(hand_start(ruleset, n_players, log.deal, next_hand), moves[0])
    except (IllegalMove, InvalidRecord):
        return None
    rules = state.rules
    if rules.draw or state.result is not None:
        return None
    hands = list(state.hands)
    left, right = state.left, state.right
    on_board = list(state.on_board)
    placements = list(state.placements)
    turn, passes = state.turn, 0
    result: EndKind | None = None
    winner: int | None = None
    llave = False
    value_mask = VALUE_MASK
    plays = PLAYS
    for move in moves[1:]:
        if result is not None or move.seat != turn:
            return None
        kind = move.kind
        if kind is MoveKind.PLAY:
            tile = move.tile
            bit = move.bit
            hand = hands[turn]
            if tile is None or not hand & bit:
                return None
            lo, hi = tile.low, tile.high
            end = move.end
            if end is None:
                fits_left = lo == left or hi == left
                if fits_left and (lo == right or hi == right) and left != right:
                    return None  # end_ambiguous (R13)
                end = End.LEFT if fits_left else End.RIGHT
            value = left if end is End.LEFT else right
            if not value_mask[value] & bit:
                return None
            other = hi if lo == value else lo
            new_hand = hand ^ bit
            if not new_hand:
                llave = is_llave((left, right), tuple(on_board), tile, rules.set_mask)
            on_board[lo] += 1
            on_board[hi] += 1
            if end is End.LEFT:
                left = other
            else:
                right = other
            hands[turn] = new_hand
            placements.append(
                move
                if move.end is not None
                else plays[turn][bit.bit_length() - 1][end is End.RIGHT]
            )
            passes = 0
            if not new_hand:
                result, winner = EndKind.DOMINO, turn  # R18
            else:
                held = 0
                for h in hands:
                    held |= h
                if not held & (value_mask[left] | value_mask[right]):
                    result = EndKind.BLOCK  # R19
        elif kind is MoveKind.PASS:
            if hands[turn] & (value_mask[left] | value_mask[right]):
                return None  # pass_while_playable (R14)
            passes += 1
            if passes >= n_players:
                result = EndKind.BLOCK
        else:
            return None
        turn = (turn + 1) % n_players
    if result is None:
        return None
    return HandState(
        rules=rules,
        hands=tuple(hands),
        stock=state.stock,
        left=left,
        right=right,
        on_board=tuple(on_board),
        placements=tuple(placements),
        turn=turn,
        passes=passes,
        poser=state.poser,
        forced_tile=state.forced_tile,
        result=result,
        winner=winner,
        llave=llave,
        sporting=state.sporting,
    )


def _step(state: HandState, move: Move, i: int) -> HandState:
    try:
        return apply(state, move)
    except IllegalMove as exc:
        if exc.code == "hand_over":
            ended = "by a domino" if state.result is EndKind.DOMINO else "blocked"
            message = f"Move {i + 1} ({move}) comes after the hand ended {ended}: {exc.message}"
        else:
            message = f"Move {i + 1} ({move}) is not allowed: {exc.message}"
        raise IllegalMove(
            code=exc.code, rule=exc.rule, field=f"moves[{i}]", message=message
        ) from exc


def _parse_seat(raw: object, field: str) -> int:
    if isinstance(raw, str) and len(raw) == 1 and raw.upper() in "ABCD":
        return "ABCD".index(raw.upper())
    if isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw < 4:
        return raw
    raise _malformed(field, f"seat must be 0-3 (or A-D), not {raw!r} (§9).")


_MOVE_KEYS: Final = frozenset(("seat", "kind", "tile", "end"))


def _move_cache() -> dict[tuple[object, object, object, object], Move]:
    """Every canonical JSON move (int seat, kind, tile in either spelling, end) -> its Move,
    exactly as :func:`move_from_dict` parses it."""
    cache: dict[tuple[object, object, object, object], Move] = {}
    for seat in range(4):
        cache[(seat, "pass", None, None)] = Move.pass_(seat)
        cache[(seat, "draw", None, None)] = Move.draw(seat)
        for tile in ALL_TILES:
            for text in {f"{tile.high}-{tile.low}", f"{tile.low}-{tile.high}"}:
                cache[(seat, "pose", text, None)] = Move.pose(seat, tile)
                cache[(seat, "draw", text, None)] = Move.draw(seat, tile)
                cache[(seat, "play", text, None)] = Move.play(seat, tile)
                for end in End:
                    cache[(seat, "play", text, end.value)] = Move.play(seat, tile, end)
    return cache


_MOVE_CACHE: Final = _move_cache()


def _malformed(field: str, message: str) -> InvalidRecord:
    return InvalidRecord(code="malformed", rule=LOG_RULE, field=field, message=message)


__all__ = [
    "PlayLog",
    "move_from_dict",
    "move_to_dict",
    "replay",
    "replay_play_log",
    "replay_states",
]
