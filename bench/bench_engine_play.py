"""Benchmark: playing and validating hands with the rules engine (scoring/engine).

Run standalone: ``.venv/bin/python bench/bench_engine_play.py [--hands N] [--profile]``.
Prints a table ``metric | value | goal | pass`` and exits 1 if a goal is missed.

* simulate: full 4-player ``wsod`` hands dealt from a seed and played by bots, every move checked
  by ``apply`` and the outcome record derived (``simulate_hand``). Goal >= 5,000 hands/s.
* validate: replay a recorded play log of a full 4-player hand move by move and derive its
  outcome (``replay_play_log``). Goal < 200 us per hand on average.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring.engine.match import match_start
from scoring.engine.moves import PoseRequirement
from scoring.engine.playlog import PlayLog, replay_play_log
from scoring.engine.rules import Ruleset
from scoring.engine.simulate import BOTS, simulate_hand, simulate_match

RULESET = Ruleset.from_preset("wsod")
N_PLAYERS = 4
FORCED = PoseRequirement(None, True)


def simulate_hands(n_hands: int, bot: str) -> float:
    """Hands per second for ``n_hands`` simulated 4-player hands."""
    rng = random.Random(2024)
    bots = [BOTS[bot]] * N_PLAYERS
    start = time.perf_counter()
    for _ in range(n_hands):
        simulate_hand(RULESET, N_PLAYERS, FORCED, rng, bots)
    return n_hands / (time.perf_counter() - start)


def recorded_logs(n_hands: int) -> list[PlayLog]:
    rng = random.Random(7)
    bots = [BOTS["heuristic"]] * N_PLAYERS
    return [simulate_hand(RULESET, N_PLAYERS, FORCED, rng, bots)[0] for _ in range(n_hands)]


def validate_logs(logs: list[PlayLog]) -> float:
    """Average microseconds to replay and check one play log."""
    nh = match_start(RULESET, N_PLAYERS).next
    start = time.perf_counter()
    for log in logs:
        replay_play_log(RULESET, N_PLAYERS, nh, log)
    return (time.perf_counter() - start) / len(logs) * 1e6


def validate_json(dicts: list[dict[str, object]]) -> float:
    """Average microseconds to parse a JSON play log and replay it."""
    nh = match_start(RULESET, N_PLAYERS).next
    start = time.perf_counter()
    for data in dicts:
        replay_play_log(RULESET, N_PLAYERS, nh, PlayLog.from_dict(data))
    return (time.perf_counter() - start) / len(dicts) * 1e6


def simulate_matches(n_matches: int) -> float:
    start = time.perf_counter()
    hands = 0
    for seed in range(n_matches):
        hands += len(simulate_match(RULESET, N_PLAYERS, seed).records)
    return hands / (time.perf_counter() - start)


def best_of(runs: int, fn: Callable[[], float], *, higher_is_better: bool) -> float:
    values = [fn() for _ in range(runs)]
    return max(values) if higher_is_better else min(values)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3, help="best of N runs")
    parser.add_argument("--profile", action="store_true", help="cProfile the simulate run")
    args = parser.parse_args()

    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        simulate_hands(args.hands, "heuristic")
        validate_logs(recorded_logs(args.hands // 5))
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return 0

    logs = recorded_logs(args.hands)
    dicts = [log.to_dict() for log in logs[: args.hands // 5]]
    moves = sum(len(log.moves) for log in logs) / len(logs)
    sim_h = best_of(
        args.runs, lambda: simulate_hands(args.hands, "heuristic"), higher_is_better=True
    )
    sim_r = best_of(args.runs, lambda: simulate_hands(args.hands, "random"), higher_is_better=True)
    val = best_of(args.runs, lambda: validate_logs(logs), higher_is_better=False)
    val_json = best_of(args.runs, lambda: validate_json(dicts), higher_is_better=False)
    match_rate = simulate_matches(max(1, args.hands // 100))

    rows: list[tuple[str, str, str, str]] = [
        ("simulate 4p hand, heuristic (hands/s)", f"{sim_h:,.0f}", ">= 5,000", _ok(sim_h >= 5000)),
        ("simulate 4p hand, random (hands/s)", f"{sim_r:,.0f}", ">= 5,000", _ok(sim_r >= 5000)),
        ("validate 4p play log (us/hand)", f"{val:,.1f}", "< 200", _ok(val < 200)),
        ("parse JSON + validate play log (us/hand)", f"{val_json:,.1f}", "-", "-"),
        ("simulate whole matches incl. scoring (hands/s)", f"{match_rate:,.0f}", "-", "-"),
        ("moves per recorded hand (average)", f"{moves:.1f}", "-", "-"),
    ]  # fmt: skip
    head = ("metric", "value", "goal", "pass")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]
    for row in [head, tuple("-" * w for w in widths), *rows]:
        print(" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    print(f"({args.hands} hands per run, best of {args.runs}, Python {sys.version.split()[0]})")
    return 0 if all(r[3] != "FAIL" for r in rows) else 1


def _ok(passed: bool) -> str:
    return "yes" if passed else "FAIL"


if __name__ == "__main__":
    sys.exit(main())
