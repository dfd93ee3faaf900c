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
from typing import TYPE_CHECKING

from scoring.engine.deal import Deal, parse_tile
from scoring.engine.errors import IllegalMove, InvalidRecord, RuleViolation
from scoring.engine.hand import HandState, hand_outcome, hand_start
from scoring.engine.moves import End, Move, MoveKind, PoseRequirement
from scoring.engine.record import EndKind, HandRecord
from scoring.engine.rules import Ruleset
from scoring.engine.seats import seat_name
from scoring.engine.tiles import Tile
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
        return cls(deal, tuple(move_from_dict(m, f"moves[{i}]") for i, m in enumerate(raw_moves)))


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
