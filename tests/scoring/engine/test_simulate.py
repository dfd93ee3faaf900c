"""The seeded simulator and the command line."""

from __future__ import annotations

import random

import pytest

from scoring.engine.__main__ import main, parse_override
from scoring.engine.deal import forced_opener
from scoring.engine.hand import legal_moves
from scoring.engine.match import match_fold, match_start
from scoring.engine.moves import End, Move, MoveKind, PoseRequirement
from scoring.engine.playlog import replay_play_log
from scoring.engine.positions import position
from scoring.engine.record import EndKind
from scoring.engine.rules import Ruleset
from scoring.engine.simulate import (
    BOTS,
    heuristic_bot,
    random_bot,
    simulate_hand,
    simulate_match,
)
from scoring.engine.tiles import Tile

T = Tile.parse

# Every preset at every table size, plus the deal options of R2 and the draw options of R16.
CONFIGS = [
    pytest.param(preset, {}, n, id=f"{preset}-{n}p")
    for preset in ("wsod", "wsod_playoff", "straight_six", "jamaican", "block")
    for n in (2, 3, 4)
] + [
    pytest.param("wsod", {"deal": "seven", "boneyard": "sleeping"}, 2, id="seven-sleeping-2p"),
    pytest.param("wsod", {"deal": "seven", "boneyard": "draw"}, 3, id="seven-draw-3p"),
    pytest.param(
        "jamaican",
        {"deal": "seven", "boneyard": "draw", "boneyard_reserve": 2, "draw_when_playable": True},
        2,
        id="seven-draw-reserve-dwp-2p",
    ),
    pytest.param("block", {"boneyard": "draw"}, 4, id="block-draw-4p"),
    pytest.param("wsod", {"sporting_allowed": True, "llave": "flat_two"}, 4, id="sporting-llave"),
    pytest.param("wsod", {"opening": "lot_then_rotate"}, 3, id="lot-then-rotate-3p"),
]


@pytest.mark.parametrize(("preset", "overrides", "n"), CONFIGS)
def test_simulated_match_folds_and_replays(
    preset: str, overrides: dict[str, object], n: int
) -> None:
    ruleset = Ruleset.from_preset(preset, overrides)
    for seed in range(3):
        sim = simulate_match(ruleset, n, seed, max_hands=200)
        assert len(sim.records) == len(sim.logs) == len(sim.scored) == len(sim.next_hands)
        assert sim.final.hands == len(sim.records)
        assert sim.final.over or len(sim.records) == 200
        # Folding the outcome records reproduces the simulator's final state.
        assert match_fold(ruleset, n, sim.records, lot_winner=sim.lot_winner) == sim.final
        # Every play log replays to its record under the NextHand the match announced.
        for nh, log, record in zip(sim.next_hands, sim.logs, sim.records, strict=True):
            assert replay_play_log(ruleset, n, nh, log) == record


def test_same_seed_same_match() -> None:
    ruleset = Ruleset.from_preset("wsod")
    a = simulate_match(ruleset, 4, 42)
    b = simulate_match(ruleset, 4, 42)
    c = simulate_match(ruleset, 4, 43)
    assert a == b
    assert a.logs != c.logs


def test_max_hands_stops_a_match() -> None:
    sim = simulate_match(Ruleset.from_preset("wsod"), 4, 1, max_hands=3)
    assert len(sim.records) == 3
    assert not sim.final.over


def test_lot_then_rotate_first_poser_is_the_lot_winner_r6() -> None:
    ruleset = Ruleset.from_preset("block")
    for seed in range(5):
        sim = simulate_match(ruleset, 4, seed)
        assert sim.records[0].poser == sim.lot_winner
        for prev, nxt in zip(sim.records, sim.records[1:], strict=False):
            assert nxt.poser == (prev.poser + 1) % 4


def test_forced_pose_falls_back_when_6_6_sleeps_r5() -> None:
    ruleset = Ruleset.from_preset("wsod", {"deal": "seven"})
    nh = match_start(ruleset, 2).next
    fallbacks = 0
    for seed in range(100):
        log, record = simulate_hand(ruleset, 2, nh, random.Random(seed), [random_bot] * 2)
        seat, tile = forced_opener(log.deal)
        assert (record.poser, record.pose_tile) == (seat, tile)
        fallbacks += tile != T("6-6")
    assert fallbacks > 10  # 6-6 sleeps in half of the 2-player 7-tile deals


def test_every_bot_finishes_a_hand() -> None:
    ruleset = Ruleset.from_preset("wsod")
    for name, bot in BOTS.items():
        _, record = simulate_hand(
            ruleset, 4, PoseRequirement(None, True), random.Random(5), [bot] * 4
        )
        assert record.end in (EndKind.DOMINO, EndKind.BLOCK), name


def test_heuristic_plays_the_heaviest_tile() -> None:
    # A may play 6-1 on the left, or 4-2, 4-5 or 4-4 on the right: 4-5 is the heaviest.
    ruleset = Ruleset.from_preset("wsod")
    hands = [
        [T("6-1"), T("4-2"), T("4-5"), T("4-4")],
        [T(t) for t in ["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6"]],
        [T(t) for t in ["1-1", "1-2", "1-3", "1-5", "2-2", "2-3", "2-5"]],
        [T(t) for t in ["1-4", "2-6", "3-3", "3-4", "3-5", "3-6", "5-5", "5-6", "6-6"]],
    ]
    state = position(ruleset, 4, hands=hands, line=[(6, 4)], turn=0)
    moves = legal_moves(state)
    assert heuristic_bot(state, moves, random.Random(0)) == Move.play(0, T("4-5"), End.RIGHT)
    assert random_bot(state, moves, random.Random(0)) in moves


def test_heuristic_prefers_keeping_ends_it_can_follow() -> None:
    # 6-3 (left, leaves 3 | 4) or 5-4 (right, leaves 6 | 5): both 9 pips; A keeps 3-3 and 3-1,
    # so 6-3 on the left keeps two of A's tiles playable.
    ruleset = Ruleset.from_preset("wsod")
    hands = [
        [T("6-3"), T("5-4"), T("3-3"), T("3-1")],
        [T(t) for t in ["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6"]],
        [T(t) for t in ["1-1", "1-2", "1-4", "1-5", "2-2", "2-3", "2-5"]],
        [T(t) for t in ["1-6", "2-4", "2-6", "3-4", "3-5", "4-4", "5-5", "5-6", "6-6"]],
    ]
    state = position(ruleset, 4, hands=hands, line=[(6, 4)], turn=0)
    assert heuristic_bot(state, legal_moves(state), random.Random(0)) == Move.play(
        0, T("6-3"), End.LEFT
    )


def test_heuristic_never_draws_while_it_can_play() -> None:
    ruleset = Ruleset.from_preset(
        "wsod", {"deal": "seven", "boneyard": "draw", "draw_when_playable": True}
    )
    for seed in range(20):
        log, _ = simulate_hand(
            ruleset, 2, PoseRequirement(None, True), random.Random(seed), [heuristic_bot] * 2
        )
        assert log.moves[0].kind is MoveKind.POSE


def test_unknown_bot_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        simulate_match(Ruleset.from_preset("wsod"), 4, 1, bot="genius")
    with pytest.raises(ValueError, match="one bot per seat"):
        simulate_match(Ruleset.from_preset("wsod"), 4, 1, bot=[random_bot])


# -- command line --------------------------------------------------------------------------------


def test_cli_prints_the_match_hand_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--preset", "wsod", "--players", "4", "--seed", "7"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("preset=wsod players=4 seed=7")
    assert out[1].split()[:6] == ["#", "poser", "value", "result", "scores", "notes"]
    sim = simulate_match(Ruleset.from_preset("wsod"), 4, 7)
    assert len(out) == 2 + len(sim.records) + 1
    assert out[2].split()[0] == "1"
    assert "forced 6-6" in out[2]
    assert out[-1].startswith("Match over:")


def test_cli_applies_overrides(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["simulate", "--preset", "jamaican", "--players", "3", "--seed", "1",
         "--set", "deal=seven", "--set", "boneyard=draw", "--moves"]
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "overrides: deal=seven, boneyard=draw" in out
    assert "hand 1: " in out


def test_cli_reports_a_bad_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--set", "colour=blue"]) == 2
    assert "Unknown ruleset key 'colour'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("llave=plus_one", ("llave", "plus_one")),
        ("sporting_allowed=true", ("sporting_allowed", True)),
        ("target=7", ("target", 7)),
        ("tie_value_cap=null", ("tie_value_cap", None)),
        ("tie_value=none", ("tie_value", "none")),
    ],
)
def test_parse_override(text: str, expected: tuple[str, object]) -> None:
    assert parse_override(text) == expected
