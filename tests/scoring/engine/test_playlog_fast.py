"""The fast play-log replay equals the move-by-move reference (issue 19, section 9).

``replay`` replays plays and passes with local variables; for every simulated log, and for
logs damaged at random (a move dropped, swapped, moved to another seat, its end flipped or
removed, cut short), it must give the reference's final position or the reference's error
(code, rule, field, message).
"""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.engine.deal import deal_tiles
from scoring.engine.errors import IllegalMove, InvalidRecord
from scoring.engine.hand import hand_start, legal_moves
from scoring.engine.moves import End, Move, MoveKind, PoseRequirement
from scoring.engine.playlog import PlayLog, _replay_reference, replay, replay_play_log
from scoring.engine.rules import Ruleset
from scoring.engine.simulate import BOTS, simulate_hand
from scoring.engine.turns import apply

CONFIGS: list[tuple[str, dict[str, object], int]] = [
    ("wsod", {}, 4),
    ("wsod", {}, 3),
    ("wsod", {}, 2),
    ("jamaican", {}, 4),
    ("block", {}, 4),
    ("block", {}, 2),
    ("wsod", {"deal": "seven", "boneyard": "draw"}, 3),
    ("wsod_partners", {}, 4),
    ("partnership_block", {}, 4),
    ("wsod", {"sporting_allowed": True}, 4),
]


def damage(moves: list[Move], rng: random.Random) -> list[Move]:
    out = list(moves)
    how = rng.randrange(6)
    i = rng.randrange(len(out))
    m = out[i]
    if how == 0:
        del out[i]
    elif how == 1 and len(out) > 1:
        j = rng.randrange(len(out))
        out[i], out[j] = out[j], out[i]
    elif how == 2:
        out[i] = Move(m.seat ^ 1, m.kind, m.tile, m.end)
    elif how == 3 and m.kind is MoveKind.PLAY:
        out[i] = Move(m.seat, m.kind, m.tile, End.LEFT if m.end is End.RIGHT else End.RIGHT)
    elif how == 4 and m.kind is MoveKind.PLAY:
        out[i] = Move(m.seat, m.kind, m.tile, None)
    else:
        out = out[:i]
    return out


def outcome(call: object) -> object:
    try:
        return call()  # type: ignore[operator]
    except (InvalidRecord, IllegalMove) as exc:
        return (type(exc).__name__, exc.code, exc.rule, exc.field, exc.message)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CONFIGS), st.integers(0, 10**6), st.integers(0, 3))
def test_fast_replay_equals_the_reference(
    config: tuple[str, dict[str, object], int], seed: int, damages: int
) -> None:
    preset, overrides, n = config
    ruleset = Ruleset.from_preset(preset, overrides)
    rng = random.Random(seed)
    bot = BOTS["random" if seed % 2 else "heuristic"]
    forced = PoseRequirement(None, True)
    log, record = simulate_hand(ruleset, n, forced, rng, [bot] * n)
    moves = list(log.moves)
    for _ in range(damages):
        if moves:
            moves = damage(moves, rng)
    damaged = PlayLog(log.deal, tuple(moves))
    expected = outcome(lambda: _replay_reference(ruleset, n, forced, damaged))
    assert outcome(lambda: replay(ruleset, n, forced, damaged)) == expected
    if not damages:
        assert replay_play_log(ruleset, n, forced, log) == record


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([c for c in CONFIGS if "boneyard" not in c[1]]), st.integers(0, 10**6))
def test_a_pass_while_playable_mid_log_is_refused_like_the_reference(
    config: tuple[str, dict[str, object], int], seed: int
) -> None:
    """A log that passes once while holding a play (R14) and then plays on to the end."""
    preset, overrides, n = config
    ruleset = Ruleset.from_preset(preset, overrides)
    rng = random.Random(seed)
    forced = PoseRequirement(None, True)
    deal = deal_tiles(ruleset, n, rng)
    state = hand_start(ruleset, n, deal, forced)
    moves: list[Move] = []
    cheated = False
    while state.result is None:
        legal = legal_moves(state)
        if not cheated and state.left >= 0 and legal[0].kind is MoveKind.PLAY:
            cheated = rng.random() < 0.4
            if cheated:
                moves.append(Move.pass_(state.turn))
                state = replace(state, turn=(state.turn + 1) % n, passes=state.passes + 1)
                continue
        move = rng.choice(legal)
        moves.append(move)
        state = apply(state, move)
    log = PlayLog(deal, tuple(moves))
    expected = outcome(lambda: _replay_reference(ruleset, n, forced, log))
    assert outcome(lambda: replay(ruleset, n, forced, log)) == expected
    if cheated:
        assert isinstance(expected, tuple)
        assert expected[1] == "pass_while_playable"
