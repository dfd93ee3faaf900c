"""La llave (R22-R24): X8 both ways, the 3-player blank case, and what never counts."""

from __future__ import annotations

import pytest

from scoring.engine.errors import IllegalMove
from scoring.engine.hand import HandState, hand_outcome
from scoring.engine.llave import VALUE_MASK, is_hard, is_llave, occurrences, totals
from scoring.engine.moves import End, Move
from scoring.engine.positions import position
from scoring.engine.record import EndKind
from scoring.engine.rules import Ruleset
from scoring.engine.tiles import DOUBLE_BLANK, FULL_SET_MASK, Tile
from scoring.engine.turns import apply

T = Tile.parse
WITHOUT_BLANK = FULL_SET_MASK & ~DOUBLE_BLANK.mask
WSOD = Ruleset.from_preset("wsod")
JAMAICAN = Ruleset.from_preset("jamaican")  # llave = plus_one


def board(**counts: int) -> list[int]:
    """onBoard per value, e.g. ``board(v3=7, v6=7)``."""
    out = [0] * 7
    for key, n in counts.items():
        out[int(key[1:])] = n
    return out


def test_totals_r22() -> None:
    assert totals(FULL_SET_MASK) == (8,) * 7
    assert totals(WITHOUT_BLANK) == (6, 8, 8, 8, 8, 8, 8)
    assert occurrences(T("6-6").mask, 6) == 2  # a double counts 2
    assert VALUE_MASK[6].bit_count() == 7


IS_LLAVE = [
    pytest.param((3, 6), board(v3=7, v6=7), "3-6", FULL_SET_MASK, True, id="X8: 3|6 hard, 3-6"),
    pytest.param((5, 4), board(v5=6, v4=7), "4-5", FULL_SET_MASK, False, id="X8: 5-5 out, 5 soft"),
    pytest.param((3, 6), board(v3=7, v6=6), "3-6", FULL_SET_MASK, False, id="one end soft"),
    pytest.param((3, 3), board(v3=7), "3-3", FULL_SET_MASK, False, id="equal ends never"),
    pytest.param((3, 6), board(v3=7, v6=7), "3-3", FULL_SET_MASK, False, id="double never"),
    pytest.param((3, 6), board(v3=7, v6=7), "6-2", FULL_SET_MASK, False, id="not the a-b tile"),
    pytest.param((0, 5), board(v0=5, v5=7), "0-5", WITHOUT_BLANK, True, id="3p blank: total 6"),
    pytest.param((0, 5), board(v0=5, v5=7), "0-5", FULL_SET_MASK, False, id="full set: 0 soft"),
    pytest.param((0, 5), board(v0=7, v5=7), "0-5", FULL_SET_MASK, True, id="full set blank"),
]


@pytest.mark.parametrize(("ends", "on_board", "tile", "set_mask", "expected"), IS_LLAVE)
def test_is_llave_r23(
    ends: tuple[int, int], on_board: list[int], tile: str, set_mask: int, expected: bool
) -> None:
    assert is_llave(ends, on_board, T(tile), set_mask) is expected


def test_hard_end_r22() -> None:
    assert is_hard(0, board(v0=5), WITHOUT_BLANK)
    assert not is_hard(0, board(v0=5), FULL_SET_MASK)


# -- through the hand engine: the engine decides from the board (R24) -------------------------

# X8a: ends 3 | 6, every 3 and every 6 but 3-6 on the board; D's last tile is 3-6.
X8A_LINE = [(3, 0), (0, 1), (1, 2), (2, 0), (0, 6), (6, 1), (1, 3), (3, 2), (2, 6), (6, 4),
            (4, 4), (4, 3), (3, 3), (3, 5), (5, 5), (5, 6), (6, 6)]  # fmt: skip
X8A_HANDS = ["0-0 0-4 0-5 1-1", "1-4 1-5 2-2", "2-4 2-5 4-5", "3-6"]

# X8b: ends 5 | 4; A's last tile is 4-5, but B still holds 5-5.
X8B_LINE = [(5, 0), (0, 2), (2, 2), (2, 4), (4, 0), (0, 3), (3, 1), (1, 1), (1, 4), (4, 3),
            (3, 3), (3, 6), (6, 1), (1, 5), (5, 6), (6, 6), (6, 4), (4, 4)]  # fmt: skip
X8B_HANDS = ["4-5", "5-5 0-0 0-1", "0-6 1-2 2-3", "2-5 2-6 3-5"]

# Three players without 0-0: ends 0 | 5, five 0s (of 6) and seven 5s on the board.
BLANK_LINE = [(0, 1), (1, 1), (1, 3), (3, 0), (0, 2), (2, 2), (2, 5), (5, 1), (1, 4), (4, 0),
              (0, 6), (6, 3), (3, 5), (5, 4), (4, 6), (6, 5), (5, 5)]  # fmt: skip
BLANK_HANDS = ["1-2 1-6 2-3 2-4", "2-6 3-3 3-4 4-4 6-6", "0-5"]


def _pos(ruleset: Ruleset, hands: list[str], line: list[tuple[int, int]], turn: int) -> HandState:
    return position(
        ruleset,
        len(hands),
        hands=[[T(t) for t in h.split()] for h in hands],
        line=line,
        turn=turn,
    )


def test_x8_llave_through_the_hand_engine() -> None:
    before = _pos(JAMAICAN, X8A_HANDS, X8A_LINE, 3)
    assert before.ends == (3, 6)
    assert (before.on_board[3], before.on_board[6]) == (7, 7)
    after = apply(before, Move.play(3, T("3-6"), End.LEFT))
    assert after.result is EndKind.DOMINO
    assert after.llave
    record = hand_outcome(after)
    assert record.winner == 3
    assert record.llave  # jamaican pays a llave bonus (R24)


def test_x8_llave_is_not_claimed_under_llave_off() -> None:
    after = apply(_pos(WSOD, X8A_HANDS, X8A_LINE, 3), Move.play(3, T("3-6"), End.RIGHT))
    assert after.llave  # the board says llave ...
    assert not hand_outcome(after).llave  # ... but llave=off records no claim (R24, section 9)


def test_x8_no_llave_when_an_end_is_not_hard() -> None:
    before = _pos(JAMAICAN, X8B_HANDS, X8B_LINE, 0)
    assert before.ends == (5, 4)
    after = apply(before, Move.play(0, T("4-5"), End.LEFT))
    assert after.result is EndKind.DOMINO
    assert not after.llave
    assert not hand_outcome(after).llave


def test_three_player_blank_llave() -> None:
    before = _pos(JAMAICAN, BLANK_HANDS, BLANK_LINE, 2)
    assert before.rules.set_mask == WITHOUT_BLANK
    assert before.ends == (0, 5)
    assert before.on_board[0] == 5  # total(0) = 6 without 0-0 (R22)
    after = apply(before, Move.play(2, T("0-5"), End.RIGHT))
    assert after.result is EndKind.DOMINO
    assert hand_outcome(after).llave


def test_a_blocked_hand_is_never_a_llave() -> None:
    # X7a blocks with ends 0 | 0: equal ends, and a block anyway.
    line = [(0, 1), (1, 2), (2, 2), (2, 0), (0, 0), (0, 3), (3, 3), (3, 4), (4, 4), (4, 0),
            (0, 5), (5, 5), (5, 6), (6, 6)]  # fmt: skip
    hands = ["1-3 4-6 3-5", "2-3 2-4 3-6 4-5", "1-1 1-4 2-6", "1-5 1-6 2-5 6-0"]
    after = apply(_pos(JAMAICAN, hands, line, 3), Move.play(3, T("6-0"), End.RIGHT))
    assert after.result is EndKind.BLOCK
    assert not after.llave
    assert not hand_outcome(after).llave


def test_llave_tile_must_still_be_legal() -> None:
    with pytest.raises(IllegalMove) as exc:
        apply(_pos(JAMAICAN, X8A_HANDS, X8A_LINE, 2), Move.play(2, T("2-4"), End.LEFT))
    assert exc.value.rule == "R13"
