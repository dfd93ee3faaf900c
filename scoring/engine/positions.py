"""Known positions: build a mid-hand :class:`~scoring.engine.hand.HandState` (R1, R2, R13).

Glossary:
    position -- a hand state in the middle of a hand, given as every seat's tiles, the line on
                the board and the stock, for known-position tests, puzzles and teaching (in the
                spirit of python-chess's FEN boards).
    line     -- the board from left to right as oriented pairs: ``[(6, 6), (6, 3)]`` has the
                open ends 6 | 3.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from scoring.engine.errors import InvalidRecord
from scoring.engine.hand import HandState, is_blocked, rules_for
from scoring.engine.moves import End, Move
from scoring.engine.rules import Ruleset
from scoring.engine.tiles import MAX_PIP, Tile, mask_of


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
    rules = rules_for(ruleset, n_players)
    hand_masks = tuple(mask_of(h) for h in hands)
    stock_mask = mask_of(stock)
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


__all__ = ["position"]
