"""Benchmark: playing and validating hands with the rules engine (scoring/engine).

Run standalone: ``.venv/bin/python bench/bench_engine_play.py [--hands N] [--trials T]``.
Every figure is measured against a floor in the same run, in alternating trials, with the CPU
time of this process (bench/bench_engine_common.py), judged by the ratio; absolute goals are
information. Exits 1 if a ratio goal is missed.

* simulate: full 4-player ``wsod`` hands dealt from a seed and played by bots, every move checked
  by ``apply`` and the outcome record derived (``simulate_hand``). Floor: the same shuffle and
  deal, then a naive hand with no rule checks (each seat plays its first tile that fits, else
  passes, until someone is out or four passes). Absolute goal >= 5,000 hands/s.
* validate from JSON: ``PlayLog.from_dict`` + ``replay_play_log`` of a recorded 4-player hand,
  as the API receives it. Floor: walking the same JSON (every deal tile and move looked up in a
  dict, the board counts kept in a list). Absolute goal <= 100 us per hand (issue 19).
* validate pre-parsed: ``replay_play_log`` alone (information, same floor).
* simulate whole matches, partnership presets beside individual ones (paired trials;
  issue 17: within 20 %).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_engine_common import (
    compare,
    cpu_seconds,
    load_average,
    measure,
    print_comparisons,
    print_table,
)
from scoring.engine.match import match_start
from scoring.engine.moves import PoseRequirement
from scoring.engine.playlog import PlayLog, replay_play_log
from scoring.engine.rules import PRESETS, Ruleset
from scoring.engine.simulate import BOTS, simulate_hand, simulate_match
from scoring.engine.tiles import ALL_TILES

RULESET = Ruleset.from_preset("wsod")
N_PLAYERS = 4
FORCED = PoseRequirement(None, True)
SIMULATE_RATIO = 0.07  # simulate / floor (hands/s), README
VALIDATE_RATIO = 12.0  # validate-from-JSON / floor (us), README
FLOOR_REPEAT = 5  # floors are ~10x faster: repeat them so each trial lasts comparably long
PARTNER_GOAL = 0.8  # issue 17: partnership figures within 20 % of the individual ones
_TEXT = {text: (t.low, t.high) for t in ALL_TILES for text in (str(t), f"{t.low}-{t.high}")}


def simulate_hands(n_hands: int, bot: str) -> float:
    """Hands per second for ``n_hands`` simulated 4-player hands."""
    rng = random.Random(2024)
    bots = [BOTS[bot]] * N_PLAYERS

    def run() -> None:
        for _ in range(n_hands):
            simulate_hand(RULESET, N_PLAYERS, FORCED, rng, bots)

    return n_hands / cpu_seconds(run)


def floor_hands(n_hands: int) -> float:
    """The floor of ``simulate``: shuffle, deal, play a naive hand without rule checks."""
    rng = random.Random(2024)
    tiles = [(t.low, t.high) for t in ALL_TILES]

    def run() -> None:
        for _ in range(n_hands * FLOOR_REPEAT):
            rng.shuffle(tiles)
            hands = [tiles[i * 7 : i * 7 + 7] for i in range(4)]
            left, right = hands[0].pop()
            seat, passes = 1, 0
            while passes < 4 and all(hands):
                hand = hands[seat]
                for i, (a, b) in enumerate(hand):
                    if a == left or b == left:
                        left = b if a == left else a
                        del hand[i]
                        passes = 0
                        break
                    if a == right or b == right:
                        right = b if a == right else a
                        del hand[i]
                        passes = 0
                        break
                else:
                    passes += 1
                seat = (seat + 1) % 4

    return FLOOR_REPEAT * n_hands / cpu_seconds(run)


def recorded_logs(n_hands: int) -> list[PlayLog]:
    rng = random.Random(7)
    bots = [BOTS["heuristic"]] * N_PLAYERS
    return [simulate_hand(RULESET, N_PLAYERS, FORCED, rng, bots)[0] for _ in range(n_hands)]


def validate_logs(logs: list[PlayLog]) -> float:
    """Average microseconds to replay and check one play log."""
    nh = match_start(RULESET, N_PLAYERS).next

    def run() -> None:
        for log in logs:
            replay_play_log(RULESET, N_PLAYERS, nh, log)

    return cpu_seconds(run) / len(logs) * 1e6


def validate_json(dicts: list[dict[str, object]]) -> float:
    """Average microseconds to parse a JSON play log and replay it."""
    nh = match_start(RULESET, N_PLAYERS).next

    def run() -> None:
        for data in dicts:
            replay_play_log(RULESET, N_PLAYERS, nh, PlayLog.from_dict(data))

    return cpu_seconds(run) / len(dicts) * 1e6


def floor_json(dicts: list[dict[str, object]]) -> float:
    """The floor of validation: every deal tile and move of the JSON looked up, board counts."""
    text = _TEXT

    def run() -> None:
        for data in dicts * FLOOR_REPEAT:
            deal = data["deal"]
            assert isinstance(deal, dict)
            held = [[text[t] for t in hand] for hand in deal["hands"]]
            on_board = [0] * 7
            moves = data["moves"]
            assert isinstance(moves, list)
            for m in moves:
                tile = m.get("tile")
                if tile is not None and m.get("kind") != "draw":
                    a, b = text[tile]
                    on_board[a] += 1
                    on_board[b] += 1
                m.get("seat"), m.get("end")
            tuple(on_board), held

    return cpu_seconds(run) / (FLOOR_REPEAT * len(dicts)) * 1e6


def simulate_matches(ruleset: Ruleset, n_matches: int) -> float:
    hands = 0

    def run() -> None:
        nonlocal hands
        for seed in range(n_matches):
            hands += len(simulate_match(ruleset, 4, seed, max_hands=200).records)

    seconds = cpu_seconds(run)
    return hands / seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="cProfile the simulate run")
    args = parser.parse_args()
    load_start = load_average()

    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        simulate_hands(args.hands, "heuristic")
        validate_logs(recorded_logs(args.hands // 5))
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return 0

    logs = recorded_logs(args.hands // 3)
    dicts = [log.to_dict() for log in logs]
    moves = sum(len(log.moves) for log in logs) / len(logs)
    figures = [
        measure(
            "simulate 4p hand, heuristic",
            "hands/s",
            partial(simulate_hands, args.hands, "heuristic"),
            partial(floor_hands, args.hands),
            args.trials,
            SIMULATE_RATIO,
            ">= 5,000",
        ),
        measure(
            "simulate 4p hand, random",
            "hands/s",
            partial(simulate_hands, args.hands, "random"),
            partial(floor_hands, args.hands),
            args.trials,
            SIMULATE_RATIO,
            ">= 5,000",
        ),
        measure(
            "validate 4p play log from JSON",
            "us",
            partial(validate_json, dicts),
            partial(floor_json, dicts),
            args.trials,
            VALIDATE_RATIO,
            "<= 100",
        ),
        measure(
            "validate 4p play log, pre-parsed",
            "us",
            partial(validate_logs, logs),
            partial(floor_json, dicts),
            args.trials,
            VALIDATE_RATIO,
            "(info)",
        ),
    ]
    ok = print_table("Engine play and validation vs floors", figures, args.trials, load_start)
    print(f"moves per recorded hand (average): {moves:.1f}")
    print()
    n_matches = max(5, args.hands // 150)
    pairs = [
        compare(
            f"simulate matches {partners} vs {individual} (4p)",
            partial(simulate_matches, PRESETS[individual], n_matches),
            partial(simulate_matches, PRESETS[partners], n_matches),
            args.trials,
            PARTNER_GOAL,
        )
        for individual, partners in (("wsod", "wsod_partners"), ("block", "partnership_block"))
    ]
    ok &= print_comparisons(pairs)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
