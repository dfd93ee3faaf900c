"""Hypothesis properties of the hand engine, play logs and simulator (R2, R12-R20, section 9).

Every property runs over 2, 3 and 4 players, every preset and every deal option (R2, R16).
"""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.engine.deal import deal_tiles
from scoring.engine.errors import IllegalMove
from scoring.engine.hand import HandState, is_blocked, legal_moves
from scoring.engine.llave import occurrences
from scoring.engine.match import match_fold, match_start
from scoring.engine.moves import End, Move, MoveKind, PoseRequirement
from scoring.engine.playlog import PlayLog, replay_play_log
from scoring.engine.record import EndKind
from scoring.engine.rules import PRESETS, Ruleset
from scoring.engine.simulate import BOTS, simulate_hand, simulate_match
from scoring.engine.tiles import ALL_TILES
from scoring.engine.turns import apply

_DEAL_OPTIONS: list[tuple[str, dict[str, object], int]] = [
    (preset, {}, n)
    for preset in PRESETS
    for n in (2, 3, 4)
    if PRESETS[preset].teams == "none" or n == 4  # partnerships: 4 players (R42)
] + [
    ("wsod", {"deal": "seven", "boneyard": "sleeping"}, 2),
    ("wsod", {"deal": "seven", "boneyard": "sleeping"}, 3),
    ("wsod", {"deal": "seven", "boneyard": "draw"}, 2),
    ("wsod", {"deal": "seven", "boneyard": "draw"}, 3),
    ("jamaican", {"deal": "seven", "boneyard": "draw", "boneyard_reserve": 2}, 2),
    ("wsod", {"deal": "seven", "boneyard": "draw", "draw_when_playable": True}, 3),
    ("block", {"boneyard": "draw"}, 2),
    ("block", {"boneyard": "draw", "boneyard_reserve": 3}, 3),
    ("block", {"boneyard": "draw", "draw_when_playable": True}, 4),
    ("wsod", {"deal": "block", "boneyard": "sleeping"}, 4),
    ("wsod", {"sporting_allowed": True}, 4),
    ("jamaican", {"llave": "flat_two"}, 3),
    ("wsod", {"opening": "lot_then_rotate"}, 4),
    ("straight_six", {"tie_opener": "previous_opener"}, 3),
]
CONFIGS = [(Ruleset.from_preset(p, o), n) for p, o, n in _DEAL_OPTIONS]
CONFIG_IDS = [f"{p}{''.join(f',{k}={v}' for k, v in o.items())}-{n}p" for p, o, n in _DEAL_OPTIONS]

configs = st.sampled_from(CONFIGS)
seeds = st.integers(min_value=0, max_value=2**32 - 1)
bot_names = st.sampled_from(sorted(BOTS))
requirements = st.one_of(
    st.just(PoseRequirement(None, True)),
    st.integers(min_value=0, max_value=3).map(lambda s: PoseRequirement(s, False)),
)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _play(ruleset: Ruleset, n: int, seed: int, bot: str, req: PoseRequirement) -> list[HandState]:
    """Every position of one bot-played hand, the first before the pose."""
    if req.seat is not None and req.seat >= n:
        req = PoseRequirement(req.seat % n, False)
    rng = random.Random(seed)
    log, _ = simulate_hand(ruleset, n, req, rng, [BOTS[bot]] * n)
    from scoring.engine.playlog import replay_states

    return list(replay_states(ruleset, n, req, log))


def _seats_pass(state: HandState) -> bool:
    live = dataclasses.replace(state, result=None, winner=None)
    return all(
        legal_moves(dataclasses.replace(live, turn=s)) == (Move.pass_(s),)
        for s in range(state.n_players)
    )


@SETTINGS
@given(configs, seeds, bot_names, requirements)
def test_tiles_are_conserved_on_every_move(
    config: tuple[Ruleset, int], seed: int, bot: str, req: PoseRequirement
) -> None:
    ruleset, n = config
    set_mask = ruleset.set_mask(n)
    for state in _play(ruleset, n, seed, bot, req):
        board = state.board
        seen = board
        assert not seen & state.stock
        seen |= state.stock
        for hand in state.hands:
            assert not seen & hand
            seen |= hand
        assert seen == set_mask  # hands + board + stock = the set in use (R1, R2)
        assert len(state.placements) == board.bit_count()
        assert tuple(occurrences(board, v) for v in range(7)) == state.on_board  # R22
        if state.posed:
            line = state.line()
            assert (line[0][0], line[-1][1]) == state.ends
            assert all(a[1] == b[0] for a, b in itertools.pairwise(line))  # R13


@SETTINGS
@given(configs, seeds, bot_names, requirements)
def test_unfinished_hand_offers_a_legal_action_that_apply_accepts(
    config: tuple[Ruleset, int], seed: int, bot: str, req: PoseRequirement
) -> None:
    ruleset, n = config
    for state in _play(ruleset, n, seed, bot, req):
        moves = legal_moves(state)
        if state.is_over:
            assert moves == ()
            continue
        assert moves
        for move in moves:
            if move.kind is MoveKind.DRAW:
                tile = next(t for t in ALL_TILES if state.stock & t.mask)
                move = Move.draw(move.seat, tile)
            apply(state, move)  # never raises


@SETTINGS
@given(configs, seeds, bot_names)
def test_block_test_agrees_with_all_players_passing(
    config: tuple[Ruleset, int], seed: int, bot: str
) -> None:
    ruleset, n = config
    for state in _play(ruleset, n, seed, bot, PoseRequirement(None, True)):
        if not state.posed or state.result is EndKind.DOMINO:
            continue
        # R19: blocked exactly when every seat in turn would have nothing but a pass.
        assert is_blocked(state) == _seats_pass(state)
        assert (state.result is EndKind.BLOCK) == is_blocked(state)


def _candidates(state: HandState) -> list[Move]:
    seat = state.turn
    out = [Move.pass_(seat)]
    for t in ALL_TILES:
        out += [
            Move.pose(seat, t),
            Move.play(seat, t, End.LEFT),
            Move.play(seat, t, End.RIGHT),
            Move.draw(seat, t),
        ]
    return out


@settings(max_examples=60, deadline=None)
@given(configs, seeds, bot_names)
def test_apply_accepts_exactly_the_legal_moves(
    config: tuple[Ruleset, int], seed: int, bot: str
) -> None:
    ruleset, n = config
    for state in _play(ruleset, n, seed, bot, PoseRequirement(None, True)):
        legal = set(legal_moves(state))
        can_draw = Move.draw(state.turn) in legal
        has_play = any(m.kind is MoveKind.PLAY for m in legal)
        for move in _candidates(state):
            expected = move in legal or (
                can_draw and move.kind is MoveKind.DRAW and bool(state.stock & move.tile.mask)  # type: ignore[union-attr]
            )
            if expected:
                apply(state, move)
                continue
            with pytest.raises(IllegalMove) as exc:
                apply(state, move)
            assert exc.value.rule, move
            # R14: a pass is never accepted while a legal play exists.
            if move.kind is MoveKind.PASS and has_play:
                assert exc.value.code == "pass_while_playable"


@SETTINGS
@given(configs, seeds, bot_names, requirements)
def test_replaying_a_simulated_log_reproduces_its_outcome(
    config: tuple[Ruleset, int], seed: int, bot: str, req: PoseRequirement
) -> None:
    ruleset, n = config
    if req.seat is not None:
        req = PoseRequirement(req.seat % n, False)
    log, record = simulate_hand(ruleset, n, req, random.Random(seed), [BOTS[bot]] * n)
    assert replay_play_log(ruleset, n, req, log) == record
    assert replay_play_log(ruleset, n, req, PlayLog.from_dict(log.to_dict())) == record


FOLD_PARAMS = [pytest.param(cfg, id=cid) for cfg, cid in zip(CONFIGS, CONFIG_IDS, strict=True)]


@pytest.mark.parametrize("config", FOLD_PARAMS)
@settings(max_examples=8, deadline=None)
@given(seed=seeds, bot=bot_names)
def test_folding_a_simulated_match_reproduces_its_final_state(
    config: tuple[Ruleset, int], seed: int, bot: str
) -> None:
    ruleset, n = config
    sim = simulate_match(ruleset, n, seed, bot=bot, max_hands=60)
    assert match_fold(ruleset, n, sim.records, lot_winner=sim.lot_winner) == sim.final
    state = match_start(ruleset, n, lot_winner=sim.lot_winner)
    assert sim.next_hands[0] == state.next


@SETTINGS
@given(configs, seeds)
def test_deals_are_replayable_and_sized_per_r2(config: tuple[Ruleset, int], seed: int) -> None:
    ruleset, n = config
    deal = deal_tiles(ruleset, n, random.Random(seed))
    assert deal == deal_tiles(ruleset, n, random.Random(seed))
    size = ruleset.hand_size(n)
    assert all(h.bit_count() == size for h in deal.hands)
    assert deal.stock.bit_count() == ruleset.set_mask(n).bit_count() - n * size
