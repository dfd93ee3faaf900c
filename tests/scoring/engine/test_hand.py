"""Playing a hand (R5-R20): known positions, every kind of illegal move, draws, blocks."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable, Sequence

import pytest

from scoring.engine.deal import Deal
from scoring.engine.errors import IllegalMove, InvalidRecord
from scoring.engine.hand import HandState, hand_outcome, hand_start, is_blocked, legal_moves
from scoring.engine.moves import End, Move, MoveKind, PoseRequirement
from scoring.engine.positions import position
from scoring.engine.record import EndKind, block_result
from scoring.engine.rules import Ruleset
from scoring.engine.tiles import ALL_TILES, Tile, mask_of
from scoring.engine.turns import apply

T = Tile.parse
WSOD = Ruleset.from_preset("wsod")
SEVEN_DRAW = Ruleset.from_preset("wsod", {"deal": "seven", "boneyard": "draw"})
SEVEN_SLEEP = Ruleset.from_preset("wsod", {"deal": "seven", "boneyard": "sleeping"})
RESERVE_1 = Ruleset.from_preset(
    "wsod", {"deal": "seven", "boneyard": "draw", "boneyard_reserve": 1}
)
FORCED = PoseRequirement(seat=None, forced=True)
# Open ends 6 | 6 with every 6 but 6-6 on the board (6 occurrences, R22).
CHAIN_66 = [(6, 0), (0, 1), (1, 6), (6, 2), (2, 3), (3, 6), (6, 4), (4, 5), (5, 6)]
NO_SIX_A = "0-0 0-2 0-5 1-1 1-2 1-3 1-4 1-5"  # 27 pips
NO_SIX_B = "2-2 2-4 2-5 3-3 3-4 3-5 4-4 5-5"  # 56 pips


def tiles(text: str) -> list[Tile]:
    return [T(t) for t in text.split()]


def make(
    ruleset: Ruleset,
    hands: Sequence[str],
    line: Sequence[tuple[int, int]],
    turn: int,
    stock: str | None = None,
) -> HandState:
    """A position; ``stock=None`` puts every other tile of the set in the stock."""
    hand_tiles = [tiles(h) for h in hands]
    if stock is None:
        used = mask_of(t for h in hand_tiles for t in h) | mask_of(Tile.of(a, b) for a, b in line)
        in_use = ruleset.set_mask(len(hands))
        stock_tiles: Iterable[Tile] = [
            t for t in ALL_TILES if in_use & t.mask and not used & t.mask
        ]
    else:
        stock_tiles = tiles(stock)
    return position(ruleset, len(hands), hands=hand_tiles, line=line, turn=turn, stock=stock_tiles)


def all_seats_pass(state: HandState) -> bool:
    """Would every seat, in turn, have nothing but a pass? (the R19 definition)"""
    live = dataclasses.replace(state, result=None, winner=None)
    return all(
        legal_moves(dataclasses.replace(live, turn=s)) == (Move.pass_(s),)
        for s in range(state.n_players)
    )


# -- X7: block results through the hand engine (R19, R20) -------------------------------------

X7_BLOCKS = [
    pytest.param(
        [
            (0, 1),
            (1, 2),
            (2, 2),
            (2, 0),
            (0, 0),
            (0, 3),
            (3, 3),
            (3, 4),
            (4, 4),
            (4, 0),
            (0, 5),
            (5, 5),
            (5, 6),
            (6, 6),
        ],
        ["1-3 4-6 3-5", "2-3 2-4 3-6 4-5", "1-1 1-4 2-6", "1-5 1-6 2-5 6-0"],
        Move.play(3, T("6-0"), End.RIGHT),
        (22, 29, 15, 20),
        2,
        id="X7a: A 22 B 29 C 15 D 20, C wins",
    ),
    pytest.param(
        [
            (0, 0),
            (0, 1),
            (1, 1),
            (1, 3),
            (3, 0),
            (0, 2),
            (2, 3),
            (3, 6),
            (6, 0),
            (0, 4),
            (4, 1),
            (1, 6),
            (6, 2),
            (2, 5),
            (5, 4),
            (4, 6),
            (6, 6),
            (6, 5),
            (5, 5),
        ],
        ["4-3 5-1 5-0", "3-3 4-2 2-2 2-1", "5-3", "4-4"],
        Move.play(0, T("5-0"), End.RIGHT),
        (13, 19, 8, 8),
        None,
        id="X7b: A 13 B 19 C 8 D 8, tie C=D",
    ),
]


@pytest.mark.parametrize(("line", "hands", "last", "counts", "winner"), X7_BLOCKS)
def test_x7_block_counts_and_result(
    line: list[tuple[int, int]],
    hands: list[str],
    last: Move,
    counts: tuple[int, ...],
    winner: int | None,
) -> None:
    before = make(WSOD, hands, line, turn=last.seat, stock="")
    assert not before.is_over
    assert not is_blocked(before)
    after = apply(before, last)
    # R19: detected right after the last tile, no passes needed.
    assert after.result is EndKind.BLOCK
    assert is_blocked(after)
    assert all_seats_pass(after)
    record = hand_outcome(after)
    assert record.end is EndKind.BLOCK
    assert record.winner is None  # a block names no winner; R20 derives it
    assert record.counts == counts
    assert block_result(counts) == winner
    assert legal_moves(after) == ()


# -- Every kind of illegal move ----------------------------------------------------------------


def _start_4p() -> HandState:
    """A fixed 4-player deal: A holds 6-6 (forced pose)."""
    rng = random.Random(11)
    order = list(ALL_TILES)
    rng.shuffle(order)
    six = order.index(T("6-6"))
    order[0], order[six] = order[six], order[0]
    deal = Deal.from_tiles([order[i * 7 : (i + 1) * 7] for i in range(4)])
    return hand_start(WSOD, 4, deal, FORCED)


DEALT_2P = "4-4 6-5 6-4 1-2 1-3 0-2 0-3 5-5 6-3 5-4 1-4 2-3 0-4 0-5"


def _fallback_start() -> HandState:
    """2 players, 7 each, 6-6 sleeping: B holds 5-5, the highest double dealt (R5)."""
    deal = Deal.from_tiles(
        [tiles("4-4 6-5 6-4 1-2 1-3 0-2 0-3"), tiles("5-5 6-3 5-4 1-4 2-3 0-4 0-5")],
        stock=[t for t in ALL_TILES if not t.mask & mask_of(tiles(DEALT_2P))],
        boneyard=SEVEN_SLEEP.boneyard_for(2),
    )
    return hand_start(SEVEN_SLEEP, 2, deal, FORCED)


def _over() -> HandState:
    line, hands, last, _, _ = X7_BLOCKS[0].values
    return apply(make(WSOD, hands, line, turn=3, stock=""), last)  # type: ignore[arg-type]


ILLEGAL = [
    pytest.param(
        lambda: make(WSOD, ["6-1 2-2", "3-3 1-1 0-0", "4-4 2-3", "5-5"], [(6, 4)], 0),
        Move.pass_(0),
        "pass_while_playable",
        "R14",
        id="pass while holding a play (R14)",
    ),
    pytest.param(
        lambda: make(SEVEN_DRAW, ["6-1 2-2", "3-3 1-1"], [(6, 4)], 0),
        Move.draw(0, T("0-0")),
        "draw_while_playable",
        "R16",
        id="draw while holding a play (R16)",
    ),
    pytest.param(
        lambda: make(
            RESERVE_1,
            ["0-0 0-2 0-5 1-1 1-2 1-3 1-4 1-5", "2-2 2-4 2-5 3-3 3-4 3-5 4-4 5-5 6-6 0-4"],
            CHAIN_66,
            0,
            "0-3",
        ),
        Move.draw(0, T("0-3")),
        "boneyard_reserve",
        "R16",
        id="draw beyond the reserve (R16)",
    ),
    pytest.param(
        lambda: make(WSOD, ["1-2", "3-3 1-1 0-0", "4-4 2-3", "5-5"], [(6, 4)], 0),
        Move.draw(0, T("0-1")),
        "no_boneyard",
        "R15",
        id="draw without a draw boneyard (R15)",
    ),
    pytest.param(
        lambda: make(SEVEN_DRAW, ["1-2 2-2", "3-3 1-1"], [(6, 4)], 0),
        Move.pass_(0),
        "must_draw",
        "R16",
        id="pass while the boneyard allows a draw (R16)",
    ),
    pytest.param(
        lambda: make(SEVEN_DRAW, ["1-2 2-2", "3-3 1-1"], [(6, 4)], 0),
        Move.draw(0),
        "draw_tile_missing",
        "R16",
        id="draw without naming the tile",
    ),
    pytest.param(
        lambda: make(SEVEN_DRAW, ["1-2 2-2", "3-3 1-1"], [(6, 4)], 0),
        Move.draw(0, T("1-1")),
        "tile_not_in_boneyard",
        "R16",
        id="draw a tile that is not in the boneyard",
    ),
    pytest.param(
        lambda: make(WSOD, ["6-1 2-2", "3-3 1-1 0-0", "4-4 2-3", "5-5"], [(6, 4)], 0),
        Move.play(0, T("2-2"), End.LEFT),
        "tile_does_not_match",
        "R13",
        id="play a tile that does not match (R13)",
    ),
    pytest.param(
        lambda: make(WSOD, ["6-1 2-2", "3-3 1-1 0-0", "4-4 2-3", "5-5"], [(6, 4)], 0),
        Move.play(0, T("6-1"), End.RIGHT),
        "tile_does_not_match",
        "R13",
        id="play on the wrong end (R13)",
    ),
    pytest.param(
        lambda: make(WSOD, ["6-1 2-2", "3-3 1-1 0-0", "4-4 2-3", "5-5"], [(6, 4)], 0),
        Move.play(0, T("6-5"), End.LEFT),
        "tile_not_held",
        "R13",
        id="play a tile not held",
    ),
    pytest.param(
        lambda: make(WSOD, ["6-1 2-2", "3-3 1-1 0-0", "4-4 2-3", "5-5"], [(6, 4)], 0),
        Move.play(1, T("3-3"), End.LEFT),
        "not_your_turn",
        "R12",
        id="play out of turn (R12)",
    ),
    pytest.param(
        lambda: make(WSOD, ["4-3 2-2", "1-1 0-0", "4-4 2-3", "5-5"], [(3, 6), (6, 4)], 0),
        Move.play(0, T("4-3")),
        "end_ambiguous",
        "R13",
        id="tile fits both ends, no end named (R13)",
    ),
    pytest.param(
        _start_4p,
        Move.pose(1, T("6-6")),
        "wrong_poser",
        "R5",
        id="wrong poser",
    ),
    pytest.param(
        _start_4p,
        Move.play(0, T("6-6"), End.LEFT),
        "pose_expected",
        "R12",
        id="play before the pose",
    ),
    pytest.param(
        lambda: apply(_start_4p(), Move.pose(0, T("6-6"))),
        Move.pose(1, T("6-5")),
        "already_posed",
        "R12",
        id="a second pose",
    ),
    pytest.param(
        _fallback_start,
        Move.pose(1, T("6-3")),
        "forced_pose_tile",
        "R5",
        id="non-forced pose tile (R5 fallback 5-5)",
    ),
    pytest.param(
        _start_4p,
        None,  # any tile of the 6-6 holder but 6-6
        "sporting_not_allowed",
        "R11",
        id="sporting not allowed (R11)",
    ),
    pytest.param(
        _over,
        Move.pass_(0),
        "hand_over",
        "R19",
        id="move after the hand is over",
    ),
]


@pytest.mark.parametrize(("build", "move", "code", "rule"), ILLEGAL)
def test_illegal_moves_are_rejected_with_code_and_rule(
    build: Callable[[], HandState],
    move: Move | None,
    code: str,
    rule: str,
) -> None:
    state = build()
    if move is None:  # sporting: pose any tile of the 6-6 holder other than 6-6
        other = next(t for t in ALL_TILES if state.hands[0] & t.mask and t != T("6-6"))
        move = Move.pose(0, other)
    legal = legal_moves(state)
    if move.kind is not MoveKind.DRAW:  # a draw is offered without its tile
        assert move not in legal
    with pytest.raises(IllegalMove) as exc:
        apply(state, move)
    err = exc.value
    assert (err.code, err.rule) == (code, rule)
    assert rule in err.message
    assert err.field == "move"


def test_draw_while_playable_is_allowed_with_draw_when_playable() -> None:
    ruleset = Ruleset.from_preset(
        "wsod", {"deal": "seven", "boneyard": "draw", "draw_when_playable": True}
    )
    state = make(ruleset, ["6-1 2-2", "3-3 1-1"], [(6, 4)], 0)
    assert Move.draw(0) in legal_moves(state)
    after = apply(state, Move.draw(0, T("0-0")))
    assert after.turn == 0  # the drawer keeps the turn (R16)
    assert after.hands[0] & T("0-0").mask


# -- Poses (R5-R11) ----------------------------------------------------------------------------


def test_forced_pose_offers_only_the_forced_tile() -> None:
    state = _start_4p()
    assert state.turn == state.poser == 0
    assert legal_moves(state) == (Move.pose(0, T("6-6")),)


def test_fallback_forced_pose_when_6_6_sleeps() -> None:
    state = _fallback_start()
    assert (state.poser, state.forced_tile) == (1, T("5-5"))
    assert legal_moves(state) == (Move.pose(1, T("5-5")),)
    after = apply(state, Move.pose(1, T("5-5")))
    assert after.ends == (5, 5)
    assert after.turn == 0


def test_free_pose_offers_every_tile_of_the_poser() -> None:
    state = dataclasses.replace(_start_4p(), forced_tile=None, poser=2, turn=2)
    moves = legal_moves(state)
    assert {m.tile for m in moves} == {t for t in ALL_TILES if state.hands[2] & t.mask}
    assert all(m.kind is MoveKind.POSE and m.seat == 2 for m in moves)


def test_free_pose_by_a_named_seat_from_a_requirement() -> None:
    deal = _start_4p()
    state = hand_start(
        WSOD, 4, Deal(deal.hands, 0, WSOD.boneyard_for(4)), PoseRequirement(2, False)
    )
    assert (state.turn, state.poser, state.forced_tile) == (2, 2, None)
    with pytest.raises(IllegalMove) as exc:
        apply(state, Move.pose(0, T("6-6")))
    assert exc.value.code == "wrong_poser"
    assert "Seat C must pose" in exc.value.message


def test_sporting_pose_when_allowed_r11() -> None:
    sporting = Ruleset.from_preset("wsod", {"sporting_allowed": True})
    base = _start_4p()
    state = hand_start(sporting, 4, Deal(base.hands, 0, sporting.boneyard_for(4)), FORCED)
    moves = legal_moves(state)
    assert len(moves) == 7  # any tile of the 6-6 holder; who poses never changes (R11)
    other = next(m for m in moves if m.tile != T("6-6"))
    after = apply(state, other)
    assert after.sporting
    assert after.poser == 0
    # A normal forced pose is not sporting.
    assert not apply(state, Move.pose(0, T("6-6"))).sporting


def test_sporting_never_applies_to_a_fallback_forced_tile() -> None:
    ruleset = Ruleset.from_preset(
        "wsod", {"deal": "seven", "boneyard": "sleeping", "sporting_allowed": True}
    )
    base = _fallback_start()
    deal = Deal(base.hands, base.stock, ruleset.boneyard_for(2))
    state = hand_start(ruleset, 2, deal, FORCED)
    assert legal_moves(state) == (Move.pose(1, T("5-5")),)
    with pytest.raises(IllegalMove) as exc:
        apply(state, Move.pose(1, T("6-3")))
    assert exc.value.rule == "R5"


def test_hand_start_rejects_a_seat_that_does_not_exist() -> None:
    base = _start_4p()
    with pytest.raises(InvalidRecord) as exc:
        hand_start(WSOD, 4, Deal(base.hands, 0, WSOD.boneyard_for(4)), PoseRequirement(5, False))
    assert exc.value.field == "poser"


# -- Plays, draws, passes, domino --------------------------------------------------------------


def test_tile_fitting_both_ends_lets_the_player_choose() -> None:
    state = make(WSOD, ["4-3 2-2", "1-1 0-0", "4-4 2-3", "5-5"], [(3, 6), (6, 4)], 0)
    moves = legal_moves(state)
    assert Move.play(0, T("4-3"), End.LEFT) in moves
    assert Move.play(0, T("4-3"), End.RIGHT) in moves
    assert apply(state, Move.play(0, T("4-3"), End.LEFT)).ends == (4, 4)
    assert apply(state, Move.play(0, T("4-3"), End.RIGHT)).ends == (3, 3)


def test_end_may_be_left_out_when_only_one_end_fits() -> None:
    state = make(WSOD, ["6-1 2-2", "3-3 1-1 0-0", "4-4 2-3", "5-5"], [(6, 4)], 0)
    after = apply(state, Move.play(0, T("6-1")))
    assert after.ends == (1, 4)
    assert after.placements[-1] == Move.play(0, T("6-1"), End.LEFT)


def test_double_keeps_the_end_value() -> None:
    state = make(WSOD, ["4-4 2-2", "3-3 1-1 0-0", "6-1 2-3", "5-5"], [(6, 4)], 0)
    after = apply(state, Move.play(0, T("4-4"), End.RIGHT))
    assert after.ends == (6, 4)
    assert after.on_board[4] == 3  # 6-4 once, 4-4 twice (R22)


def test_no_play_and_no_boneyard_means_pass_r15() -> None:
    state = make(WSOD, ["1-2 2-2", "3-3 6-1 0-0", "4-4 2-3", "5-5"], [(6, 4)], 0)
    assert legal_moves(state) == (Move.pass_(0),)
    after = apply(state, Move.pass_(0))
    assert (after.turn, after.passes) == (1, 1)
    after = apply(after, Move.play(1, T("6-1"), End.LEFT))
    assert after.passes == 0


def test_draw_until_playable_then_play_r16() -> None:
    state = make(SEVEN_DRAW, ["1-2 2-2", "3-3 1-1"], [(6, 4)], 0)
    assert legal_moves(state) == (Move.draw(0),)
    state = apply(state, Move.draw(0, T("0-0")))
    assert state.turn == 0
    assert legal_moves(state) == (Move.draw(0),)
    state = apply(state, Move.draw(0, T("6-1")))
    assert state.turn == 0
    assert legal_moves(state) == (Move.play(0, T("6-1"), End.LEFT),)
    with pytest.raises(IllegalMove) as exc:
        apply(state, Move.draw(0, T("0-1")))
    assert exc.value.code == "draw_while_playable"


def test_draw_down_to_the_reserve_without_a_play_blocks_at_once_r19() -> None:
    # Ends 6 | 6, only 6-6 is missing from the board and it lies in the boneyard with two
    # other tiles; reserve 1 allows two draws.
    state = make(RESERVE_1, [NO_SIX_A, NO_SIX_B], CHAIN_66, 0, stock="6-6 0-3 0-4")
    assert legal_moves(state) == (Move.draw(0),)
    state = apply(state, Move.draw(0, T("0-3")))
    assert not state.is_over  # two tiles left, one more may be drawn
    assert legal_moves(state) == (Move.draw(0),)
    state = apply(state, Move.draw(0, T("0-4")))
    # Down to the reserve (6-6) and nobody holds a 6: blocked right away (R19).
    assert state.result is EndKind.BLOCK
    assert all_seats_pass(state)
    record = hand_outcome(state)
    assert record.counts == (27 + 3 + 4, 56)  # the boneyard never counts (R20)


def test_last_allowed_draw_that_fits_must_be_played_r16() -> None:
    state = make(RESERVE_1, [NO_SIX_A, NO_SIX_B], CHAIN_66, 0, stock="6-6 0-3 0-4")
    state = apply(state, Move.draw(0, T("0-3")))
    state = apply(state, Move.draw(0, T("6-6")))
    assert not state.is_over
    assert state.turn == 0
    assert {m.kind for m in legal_moves(state)} == {MoveKind.PLAY}
    with pytest.raises(IllegalMove) as exc:
        apply(state, Move.pass_(0))
    assert exc.value.code == "pass_while_playable"


def test_at_the_reserve_a_player_without_a_play_passes_r16() -> None:
    state = make(RESERVE_1, [NO_SIX_A, NO_SIX_B + " 6-6 0-4"], CHAIN_66, 0, stock="0-3")
    assert legal_moves(state) == (Move.pass_(0),)
    state = apply(state, Move.pass_(0))
    assert state.turn == 1


def test_position_that_is_already_blocked_is_refused() -> None:
    with pytest.raises(InvalidRecord) as exc:
        make(RESERVE_1, [NO_SIX_A + " 0-4 0-3", NO_SIX_B], CHAIN_66, 0, stock="6-6")
    assert exc.value.rule == "R19"


def test_domino_ends_the_hand_at_once_r18() -> None:
    state = make(WSOD, ["6-1", "3-3 1-1 0-0", "4-4 2-3", "5-5 2-2"], [(6, 4)], 0)
    after = apply(state, Move.play(0, T("6-1"), End.LEFT))
    assert after.result is EndKind.DOMINO
    assert after.winner == 0
    record = hand_outcome(after)
    assert (record.end, record.winner) == (EndKind.DOMINO, 0)
    assert record.counts is not None
    assert record.counts[0] == 0
    assert legal_moves(after) == ()
    with pytest.raises(IllegalMove) as exc:
        apply(after, Move.pass_(1))
    assert (exc.value.code, exc.value.rule) == ("hand_over", "R18")


def test_pose_can_block_at_once() -> None:
    # 2 players, 7 each, 6-6 is the only 6 dealt: after the pose nobody can play (R19).
    hands = [tiles("6-6 0-0 0-1 0-2 0-3 0-4 0-5"), tiles("1-1 1-2 1-3 1-4 1-5 2-2 2-3")]
    dealt = mask_of(hands[0] + hands[1])
    deal = Deal.from_tiles(
        hands, [t for t in ALL_TILES if not dealt & t.mask], SEVEN_SLEEP.boneyard_for(2)
    )
    state = apply(hand_start(SEVEN_SLEEP, 2, deal, FORCED), Move.pose(0, T("6-6")))
    assert state.result is EndKind.BLOCK
    assert hand_outcome(state).counts == (15, 29)


def test_hand_outcome_of_an_unfinished_hand_is_refused() -> None:
    with pytest.raises(IllegalMove) as exc:
        hand_outcome(_start_4p())
    assert exc.value.code == "hand_not_over"


def test_unfinished_hand_always_has_a_legal_move() -> None:
    rng = random.Random(3)
    for _ in range(50):
        state = _start_4p()
        while not state.is_over:
            moves = legal_moves(state)
            assert moves
            state = apply(state, rng.choice(moves))


def test_position_rejects_inconsistent_boards() -> None:
    with pytest.raises(InvalidRecord) as exc:
        make(WSOD, ["6-1", "3-3", "4-4", "5-5"], [(6, 4), (3, 2)], 0)
    assert exc.value.rule == "R13"
    with pytest.raises(InvalidRecord):
        make(WSOD, ["6-1", "3-3", "4-4", "6-1"], [(6, 4)], 0)
    with pytest.raises(InvalidRecord):
        position(WSOD, 4, hands=[[T("6-1")]] * 4, line=[], turn=0)


def test_line_reads_left_to_right() -> None:
    state = make(WSOD, ["6-1 2-2", "3-3 0-2 0-0", "4-4 2-3", "5-5 4-3"], [(6, 4)], 0)
    state = apply(state, Move.play(0, T("6-1"), End.LEFT))
    state = apply(state, Move.pass_(1))
    state = apply(state, Move.play(2, T("4-4"), End.RIGHT))
    state = apply(state, Move.play(3, T("4-3"), End.RIGHT))
    assert state.line() == [(1, 6), (6, 4), (4, 4), (4, 3)]
    assert state.ends == (1, 3)


def test_moves_read_like_a_referee_says_them() -> None:
    assert str(Move.pose(2, T("6-6"))) == "C poses 6-6"
    assert str(Move.play(3, T("3-6"), End.LEFT)) == "D plays 6-3 on the left end"
    assert str(Move.draw(0)) == "A draws"
    assert str(Move.draw(0, T("1-2"))) == "A draws 2-1"
    assert str(Move.pass_(1)) == "B passes"


def test_requirement_from_a_next_hand() -> None:
    class NH:
        def __init__(self, poser: int | None, forced: bool, rule: str) -> None:
            self.poser, self.forced, self.rule = poser, forced, rule

    assert PoseRequirement.from_next_hand(NH(None, True, "R8")) == PoseRequirement(None, True, "R8")
    assert PoseRequirement.from_next_hand(NH(2, False, "R7")) == PoseRequirement(2, False, "R7")
    with pytest.raises(ValueError, match="free pose needs a seat"):
        PoseRequirement(None, False)
