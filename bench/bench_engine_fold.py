"""Benchmark: folding hand records into match state (scoring.engine.match).

Generates random *valid* outcome records (driven by ``MatchState.next``, so posers and pose
tiles satisfy R5-R10 and counts are in range), then times ``match_fold`` over them, against a
floor measured in the same run (bench/bench_engine_common.py): a plain Python loop over the
same records that reads each record's winner or lowest count and bumps a score and a statistic
in lists, then builds one tuple per match -- the least a fold can do in Python. Judged by the
ratio to that floor; the absolute goal (300,000 hands/s per core, issue 19) is information.
Partnership presets are folded beside their individual counterparts (issue 17: within 20 %).

Usage: ``python bench/bench_engine_fold.py [--hands N] [--trials T] [--seed S]``
"""

from __future__ import annotations

import argparse
import random
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_engine_common import (
    Figure,
    compare,
    cpu_seconds,
    load_average,
    measure,
    print_comparisons,
    print_table,
)
from scoring.engine.match import match_apply, match_fold, match_start
from scoring.engine.match_state import MatchState
from scoring.engine.record import EndKind, HandRecord
from scoring.engine.rules import PRESETS, Llave, Ruleset
from scoring.engine.tiles import ALL_TILES, DOUBLE_SIX

GOAL_HANDS_PER_S = 300_000  # information (issue 19); judged by the ratio to the floor
RATIO_GOAL = 0.06  # fold / floor: 300,000 hands/s where the floor does 5,000,000 (README)
FLOOR_REPEAT = 10  # the floor is ~15x faster: repeat it so each trial lasts comparably long
PARTNER_GOAL = 0.8  # partnership fold / individual fold (issue 17: within 20 %)


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


Matches = list[tuple[int, list[HandRecord]]]


def make_matches(ruleset: Ruleset, n: int, rng: random.Random, hands: int) -> Matches:
    matches: Matches = []
    total = 0
    while total < hands:
        lot = rng.randrange(n)
        recs = random_match(ruleset, n, rng, lot)
        matches.append((lot, recs))
        total += len(recs)
    return matches


def fold_rate(ruleset: Ruleset, n: int, matches: Matches, hands: int) -> float:
    def run() -> None:
        for lot, recs in matches:
            match_fold(ruleset, n, recs, lot_winner=lot)

    return hands / cpu_seconds(run)


def floor_rate(n: int, matches: Matches, hands: int) -> float:
    """The floor: per record, find the hand's winner and bump a score and a statistic."""

    def run() -> None:
        for _lot, recs in matches * FLOOR_REPEAT:
            scores = [0] * n
            stats = [[0] * 10 for _ in range(n)]
            for r in recs:
                w = r.winner
                if w is None:
                    counts = r.counts
                    assert counts is not None
                    w = counts.index(min(counts))
                scores[w] += 1
                stats[w][0] += 1
            tuple(scores)

    return FLOOR_REPEAT * hands / cpu_seconds(run)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=40_000, help="hands per configuration")
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20261129)
    args = parser.parse_args()
    load_start = load_average()
    rng = random.Random(args.seed)

    configs: list[tuple[str, Ruleset, int]] = []
    for name, preset in PRESETS.items():
        for n in (4,) if preset.teams == "partners" else (2, 3, 4):
            configs.append((f"{name}/{n}p", preset, n))
    figures: dict[str, Figure] = {}
    for label, ruleset, n in configs:
        matches = make_matches(ruleset, n, rng, args.hands)
        hands = sum(len(r) for _, r in matches)
        figures[label] = measure(
            f"fold {label}, {hands:,} hands",
            "hands/s",
            partial(fold_rate, ruleset, n, matches, hands),
            partial(floor_rate, n, matches, hands),
            args.trials,
            RATIO_GOAL,
            f">= {GOAL_HANDS_PER_S:,}",
        )

    # match_apply with per-hand reports, as the web layer calls it: information only.
    sample = [(r, n, random_match(r, n, rng, 0)) for _, r, n in configs]
    applied = sum(len(recs) for _, _, recs in sample)

    def apply_all() -> None:
        for ruleset, n, recs in sample:
            state = match_start(ruleset, n)
            for rec in recs:
                state, _ = match_apply(state, rec)

    apply_rate = sorted(applied / cpu_seconds(apply_all) for _ in range(args.trials))
    ok = print_table(
        "Engine fold (scoring.engine.match_fold) vs a plain-loop floor",
        list(figures.values()),
        args.trials,
        load_start,
    )
    print(
        f"match_apply with reports (information): {apply_rate[len(apply_rate) // 2]:,.0f} "
        f"hands/s median of {args.trials}"
    )
    print()
    pairs = []
    for individual, partners in (("wsod", "wsod_partners"), ("block", "partnership_block")):
        rates = []
        for name in (individual, partners):
            ruleset = PRESETS[name]
            matches = make_matches(ruleset, 4, rng, args.hands)
            hands = sum(len(r) for _, r in matches)
            rates.append(partial(fold_rate, ruleset, 4, matches, hands))
        pairs.append(
            compare(f"fold {partners}/4p vs {individual}/4p", rates[0], rates[1], 2 * args.trials,
                    PARTNER_GOAL)
        )  # fmt: skip
    ok &= print_comparisons(pairs)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
