"""Benchmark: folding hand records into match state (scoring.engine.match).

Generates random *valid* outcome records (driven by ``MatchState.next``, so posers and pose
tiles satisfy R5-R10 and counts are in range), then times ``match_fold`` over them on one core.
Goal: at least 100,000 hands per second on one core. Times are CPU time of this (single-threaded)
process, best of ``--repeat`` runs, so other work on a shared machine does not count against the
engine. Prints a table: metric, value, goal, pass.

Usage: ``python bench/bench_engine_fold.py [--hands N] [--seed S]``
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scoring.engine.match import match_apply, match_fold, match_start
from scoring.engine.match_state import MatchState
from scoring.engine.record import EndKind, HandRecord
from scoring.engine.rules import PRESETS, Llave, Ruleset
from scoring.engine.tiles import ALL_TILES, DOUBLE_SIX

GOAL_HANDS_PER_S = 100_000


def random_record(state: MatchState, rng: random.Random) -> HandRecord:
    """A random record that ``match_apply`` accepts in ``state`` (about 1 hand in 6 blocks)."""
    n = state.n_players
    rules = state.ruleset
    nh = state.next
    poser = nh.poser if nh.poser is not None else rng.randrange(n)
    if nh.forced:
        pose = DOUBLE_SIX
    else:
        in_set = rules.set_mask(n)
        pose = rng.choice([t for t in ALL_TILES if in_set >> t.index & 1])
    top = rules.max_count(n)
    if rng.random() < 0.18:
        # Small counts so that shared lowest counts (ties, R20) are common.
        counts = tuple(rng.randint(0, 12) for _ in range(n))
        return HandRecord(poser, pose, EndKind.BLOCK, None, counts)
    winner = rng.randrange(n)
    counts_opt: tuple[int, ...] | None = None
    if rules.scoring == "pips" or rng.random() < 0.2:
        counts_opt = tuple(0 if i == winner else rng.randint(0, min(top, 25)) for i in range(n))
    llave = rules.llave is not Llave.OFF and rng.random() < 0.1
    return HandRecord(poser, pose, EndKind.DOMINO, winner, counts_opt, llave)


def random_match(
    ruleset: Ruleset, n_players: int, rng: random.Random, lot_winner: int, max_hands: int = 400
) -> list[HandRecord]:
    """Records of one random match, played until it is over (or ``max_hands``)."""
    state = match_start(ruleset, n_players, lot_winner=lot_winner)
    records: list[HandRecord] = []
    while not state.over and len(records) < max_hands:
        rec = random_record(state, rng)
        state, _ = match_apply(state, rec)
        records.append(rec)
    return records


def fold_all(ruleset: Ruleset, n: int, matches: list[tuple[int, list[HandRecord]]]) -> None:
    for lot, recs in matches:
        match_fold(ruleset, n, recs, lot_winner=lot)


def best_of(repeat: int, run: Callable[[], None]) -> float:
    """Smallest CPU time (seconds) of ``repeat`` runs."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        run()
        best = min(best, time.process_time() - t0)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    configs: list[tuple[str, Ruleset, int]] = []
    for name, preset in PRESETS.items():
        for n in (2, 3, 4):
            configs.append((f"{name}/{n}p", preset, n))

    rows: list[tuple[str, str, str, str]] = []
    ok = True
    total_hands = 0
    total_time = 0.0
    per_config = max(1, args.hands // len(configs))
    worst = float("inf")
    for label, ruleset, n in configs:
        matches: list[tuple[int, list[HandRecord]]] = []
        hands = 0
        while hands < per_config:
            lot = rng.randrange(n)
            recs = random_match(ruleset, n, rng, lot)
            matches.append((lot, recs))
            hands += len(recs)
        dt = best_of(args.repeat, partial(fold_all, ruleset, n, matches))
        rate = hands / dt
        worst = min(worst, rate)
        total_hands += hands
        total_time += dt
        passed = rate >= GOAL_HANDS_PER_S
        ok &= passed
        rows.append(
            (
                f"fold {label} hands/s ({len(matches)} matches)",
                f"{rate:,.0f}",
                f">= {GOAL_HANDS_PER_S:,}",
                "yes" if passed else "NO",
            )
        )
    # match_apply with per-hand reports (HandScored and notes), as the web layer calls it.
    sample = [(r, n, random_match(r, n, rng, 0)) for r in PRESETS.values() for n in (2, 3, 4)]
    applied = 20 * sum(len(recs) for _, _, recs in sample)

    def apply_all() -> None:
        for ruleset, n, recs in sample * 20:
            state = match_start(ruleset, n)
            for rec in recs:
                state, _ = match_apply(state, rec)

    apply_rate = applied / best_of(args.repeat, apply_all)
    rows.append(
        (
            f"match_apply with reports hands/s ({applied:,} hands)",
            f"{apply_rate:,.0f}",
            "(info)",
            "-",
        )
    )
    overall = total_hands / total_time
    rows.append(
        (
            f"fold all configs hands/s ({total_hands:,} hands)",
            f"{overall:,.0f}",
            f">= {GOAL_HANDS_PER_S:,}",
            "yes" if overall >= GOAL_HANDS_PER_S else "NO",
        )
    )
    rows.append(
        (
            "mean time per hand (us)",
            f"{1e6 * total_time / total_hands:.2f}",
            f"<= {1e6 / GOAL_HANDS_PER_S:.2f}",
            "yes" if overall >= GOAL_HANDS_PER_S else "NO",
        )
    )
    rows.append(
        (
            "slowest config hands/s",
            f"{worst:,.0f}",
            f">= {GOAL_HANDS_PER_S:,}",
            "yes" if ok else "NO",
        )
    )

    widths = [
        max(len(r[i]) for r in [*rows, ("metric", "value", "goal", "pass")]) for i in range(4)
    ]
    header = ("metric", "value", "goal", "pass")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
