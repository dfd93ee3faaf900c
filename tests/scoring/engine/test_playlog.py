"""Play logs (section 9): JSON form, replay move by move, rejections naming the move."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from scoring.engine.deal import Deal
from scoring.engine.errors import IllegalMove, InvalidRecord, InvalidRuleset, RuleViolation
from scoring.engine.match import match_start
from scoring.engine.moves import End, Move, MoveKind, PoseRequirement
from scoring.engine.playlog import (
    PlayLog,
    move_from_dict,
    move_to_dict,
    replay,
    replay_play_log,
    replay_states,
)
from scoring.engine.record import EndKind, HandRecord
from scoring.engine.rules import Ruleset
from scoring.engine.simulate import BOTS, simulate_hand
from scoring.engine.tiles import Tile

T = Tile.parse
WSOD = Ruleset.from_preset("wsod")
SEVEN_DRAW = Ruleset.from_preset("wsod", {"deal": "seven", "boneyard": "draw"})
FORCED = PoseRequirement(None, True)


def _simulated(ruleset: Ruleset, n: int, seed: int) -> tuple[PlayLog, HandRecord]:
    nh = match_start(ruleset, n).next
    return simulate_hand(ruleset, n, nh, random.Random(seed), [BOTS["random"]] * n)


def _log_dict(ruleset: Ruleset = WSOD, n: int = 4, seed: int = 1) -> dict[str, Any]:
    log, _ = _simulated(ruleset, n, seed)
    return log.to_dict()


def test_json_round_trip_survives_json_text() -> None:
    log, _ = _simulated(SEVEN_DRAW, 2, 4)
    text = json.dumps(log.to_dict())
    assert PlayLog.from_dict(json.loads(text)) == log


def test_move_json_forms() -> None:
    assert move_to_dict(Move.pose(2, T("6-6"))) == {"seat": 2, "kind": "pose", "tile": "6-6"}
    assert move_to_dict(Move.play(1, T("3-6"), End.LEFT)) == {
        "seat": 1,
        "kind": "play",
        "tile": "6-3",
        "end": "left",
    }
    assert move_to_dict(Move.pass_(0)) == {"seat": 0, "kind": "pass"}
    assert move_from_dict({"seat": "C", "kind": "play", "tile": "3-6"}) == Move.play(2, T("6-3"))
    assert move_from_dict({"seat": 0, "kind": "draw", "tile": "1-2"}) == Move.draw(0, T("2-1"))


def test_replay_reproduces_the_simulated_outcome() -> None:
    for seed in range(30):
        log, record = _simulated(WSOD, 4, seed)
        assert replay_play_log(WSOD, 4, match_start(WSOD, 4).next, log) == record


def test_replay_states_yields_every_position() -> None:
    log, _ = _simulated(SEVEN_DRAW, 3, 2)
    states = list(replay_states(SEVEN_DRAW, 3, FORCED, log))
    assert len(states) == len(log.moves) + 1
    assert states[-1].is_over
    assert not any(s.is_over for s in states[:-1])


def test_a_hand_ending_in_a_block_is_replayed_with_counts() -> None:
    for seed in range(200):
        log, record = _simulated(WSOD, 4, seed)
        if record.end is EndKind.BLOCK:
            final = replay(WSOD, 4, FORCED, log)
            assert final.result is EndKind.BLOCK
            assert replay_play_log(WSOD, 4, FORCED, log).counts == final.counts()
            return
    pytest.fail("no blocked hand in 200 seeds")


# -- rejections: (mutation of the JSON log, exception, code, rule, field) ---------------------


def _first(data: dict[str, Any], kind: str, after: int = 0) -> int:
    return next(i for i, m in enumerate(data["moves"]) if i >= after and m["kind"] == kind)


def _tile_of_other_seat(data: dict[str, Any]) -> None:
    i = _first(data, "play")
    move = data["moves"][i]
    seat = move["seat"]
    other = data["deal"]["hands"][(seat + 1) % 4][0]
    move["tile"] = other
    move.pop("end", None)


def _pass_instead_of_play(data: dict[str, Any]) -> None:
    i = _first(data, "play")
    data["moves"][i] = {"seat": data["moves"][i]["seat"], "kind": "pass"}


def _wrong_poser(data: dict[str, Any]) -> None:
    data["moves"][0]["seat"] = (data["moves"][0]["seat"] + 1) % 4


def _wrong_pose_tile(data: dict[str, Any]) -> None:
    seat = data["moves"][0]["seat"]
    data["moves"][0]["tile"] = next(t for t in data["deal"]["hands"][seat] if t != "6-6")


def _extra_move(data: dict[str, Any]) -> None:
    data["moves"].append({"seat": 0, "kind": "pass"})


def _truncated(data: dict[str, Any]) -> None:
    del data["moves"][-1]


def _swap_tiles_between_hands(data: dict[str, Any]) -> None:
    # The deal no longer matches the moves: the poser's 6-6 moves to another seat's hand.
    hands = data["deal"]["hands"]
    seat = data["moves"][0]["seat"]
    other = (seat + 1) % 4
    hands[seat].remove("6-6")
    moved = hands[other].pop()
    hands[seat].append(moved)
    hands[other].append("6-6")


def _duplicate_tile(data: dict[str, Any]) -> None:
    data["deal"]["hands"][1][0] = data["deal"]["hands"][0][0]


def _out_of_turn(data: dict[str, Any]) -> None:
    i = _first(data, "play")
    data["moves"][i]["seat"] = (data["moves"][i]["seat"] + 1) % 4


def _bad_kind(data: dict[str, Any]) -> None:
    data["moves"][3]["kind"] = "knock"


REJECTIONS = [
    pytest.param(_tile_of_other_seat, IllegalMove, "tile_not_held", "R13", "moves[1]",
                 id="play a tile from another seat's hand"),
    pytest.param(_pass_instead_of_play, IllegalMove, "pass_while_playable", "R14", "moves[1]",
                 id="pass while holding a play"),
    pytest.param(_wrong_poser, IllegalMove, "wrong_poser", "R5", "moves[0]", id="wrong poser"),
    pytest.param(_wrong_pose_tile, IllegalMove, "sporting_not_allowed", "R11", "moves[0]",
                 id="forced pose of another tile"),
    pytest.param(_extra_move, IllegalMove, "hand_over", None, "moves[-1]",
                 id="move after the hand ended"),
    pytest.param(_truncated, InvalidRecord, "log_incomplete", "R18", "moves",
                 id="log stops before the end"),
    pytest.param(_swap_tiles_between_hands, IllegalMove, "wrong_poser", "R5", "moves[0]",
                 id="deal inconsistent with the pose"),
    pytest.param(_duplicate_tile, InvalidRecord, "invalid_deal", "R1", "deal.hands[1]",
                 id="tile dealt twice"),
    pytest.param(_out_of_turn, IllegalMove, "not_your_turn", "R12", "moves[1]",
                 id="move out of turn"),
    pytest.param(_bad_kind, InvalidRecord, "malformed", "§9", "moves[3].kind",
                 id="unknown move kind"),
]  # fmt: skip


@pytest.mark.parametrize(("mutate", "error", "code", "rule", "field"), REJECTIONS)
def test_replay_rejects_with_code_rule_and_field(
    mutate: Callable[[dict[str, Any]], None],
    error: type[RuleViolation],
    code: str,
    rule: str | None,
    field: str,
) -> None:
    data = copy.deepcopy(_log_dict(seed=1))
    mutate(data)
    with pytest.raises(error) as exc:
        replay_play_log(WSOD, 4, FORCED, PlayLog.from_dict(data))
    err = exc.value
    assert err.code == code
    if rule is not None:
        assert err.rule == rule
        assert rule in err.message
    expected_field = f"moves[{len(data['moves']) - 1}]" if field == "moves[-1]" else field
    assert err.field == expected_field


def test_rejection_message_names_the_move_for_a_referee() -> None:
    data = _log_dict(seed=1)
    _pass_instead_of_play(data)
    with pytest.raises(IllegalMove) as exc:
        replay_play_log(WSOD, 4, FORCED, PlayLog.from_dict(data))
    assert exc.value.message.startswith("Move 2 (")
    assert "passes" in exc.value.message
    assert "must play" in exc.value.message


def test_a_draw_log_needs_the_drawn_tile() -> None:
    for seed in range(50):
        data = _log_dict(SEVEN_DRAW, 2, seed)
        draws = [i for i, m in enumerate(data["moves"]) if m["kind"] == "draw"]
        if draws:
            del data["moves"][draws[0]]["tile"]
            with pytest.raises(IllegalMove) as exc:
                replay_play_log(SEVEN_DRAW, 2, FORCED, PlayLog.from_dict(data))
            assert exc.value.code == "draw_tile_missing"
            assert exc.value.field == f"moves[{draws[0]}]"
            return
    pytest.fail("no draw in 50 seeds")


def test_replay_checks_the_deal_against_the_ruleset() -> None:
    log, _ = _simulated(WSOD, 4, 3)
    with pytest.raises(InvalidRuleset) as bad_rules:
        replay_play_log(SEVEN_DRAW, 4, FORCED, log)  # seven is not a 4-player deal
    assert bad_rules.value.rule == "R2"
    three = Deal(log.deal.hands[:3], log.deal.hands[3], log.deal.boneyard)
    with pytest.raises(InvalidRecord) as exc:
        replay_play_log(WSOD, 3, FORCED, PlayLog(three, log.moves))
    assert exc.value.field is not None
    assert exc.value.field.startswith("deal.")


def test_a_free_pose_log_is_checked_against_the_named_poser() -> None:
    log, _ = _simulated(WSOD, 4, 5)
    poser = log.moves[0].seat
    other = (poser + 1) % 4
    with pytest.raises(IllegalMove) as exc:
        replay_play_log(WSOD, 4, PoseRequirement(other, False), log)
    assert exc.value.code == "wrong_poser"
    assert exc.value.field == "moves[0]"


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ("nope", "log"),
        ({"deal": {}, "moves": [], "x": 1}, "x"),
        ({"deal": {"hands": [[]]}, "moves": "x"}, "moves"),
        ({"deal": {"hands": [["6-6"]]}, "moves": [{"seat": 9, "kind": "pass"}]}, "moves[0].seat"),
        ({"deal": {"hands": [["6-6"]]}, "moves": [{"seat": 0, "kind": "play"}]}, "moves[0].tile"),
        (
            {"deal": {"hands": [["6-6"]]}, "moves": [{"seat": 0, "kind": "pass", "tile": "1-1"}]},
            "moves[0].tile",
        ),
        (
            {"deal": {"hands": [["6-6"]]}, "moves": [{"seat": 0, "kind": "pose", "tile": "9-9"}]},
            "moves[0].tile",
        ),
        (
            {
                "deal": {"hands": [["6-6"]]},
                "moves": [{"seat": 0, "kind": "play", "tile": "6-6", "end": "up"}],
            },
            "moves[0].end",
        ),
    ],
)
def test_malformed_logs_name_the_field(data: object, field: str) -> None:
    with pytest.raises(InvalidRecord) as exc:
        PlayLog.from_dict(data)
    assert exc.value.field == field


def test_moves_are_interned_values() -> None:
    log, _ = _simulated(WSOD, 4, 8)
    again = PlayLog.from_dict(log.to_dict())
    assert all(a == b for a, b in zip(log.moves, again.moves, strict=True))
    assert {m.kind for m in log.moves} <= {MoveKind.POSE, MoveKind.PLAY, MoveKind.PASS}
