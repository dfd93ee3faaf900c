"""Pairs seating (T9): Swiss reseating of partnerships, time and repeat meetings.

For fields of 64, 256 and 1,000 partnerships with clubs, five Swiss rounds are seated after a
snake round 1, each round's results drawn at random; the table prints the median CPU time of a
reseat, the repeat meetings the reseat left (goal: none) and the same-club tables, against a
naive pairing down the record order (the floor the reseat must beat on repeats). Prints the
1-minute load average with the figures.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from brackets.engine.pairs import (
    Pair,
    PairHistory,
    club_clashes,
    reseat_pairs,
    seat_pairs_seeded,
    seating_repeats,
)

ROUNDS = 5
GOAL_SECONDS = {64: 0.05, 256: 0.2, 1000: 1.0}


def field(n: int) -> list[Pair]:
    return [
        Pair(k, (10 * k, 10 * k + 1), clubs=(f"C{k % 20}", f"C{(k * 7) % 20}"))
        for k in range(1, n + 1)
    ]


def naive_repeats(pairs: list[Pair], wins: dict[int, int], history: PairHistory) -> int:
    order = sorted(pairs, key=lambda p: -wins[p.pair_id])
    return sum(
        history.met(order[i].pair_id, order[i + 1].pair_id) for i in range(0, len(order) - 1, 2)
    )


def run(n: int) -> tuple[float, int, int, int]:
    pairs = field(n)
    by_id = {p.pair_id: p for p in pairs}
    rng = random.Random(n)
    wins = dict.fromkeys(by_id, 0)
    seating = seat_pairs_seeded(pairs)
    rounds: list[tuple[list[tuple[int, int]], list[int]]] = []
    times: list[float] = []
    repeats = naive = clubs = 0
    for r in range(2, 2 + ROUNDS):
        rounds.append(([(t.ac, t.bd) for t in seating.tables], list(seating.bye_pairs)))
        for t in seating.tables:
            wins[t.ac if rng.random() < 0.5 else t.bd] += 1
        history = PairHistory.from_rounds(rounds)
        start = time.process_time()
        seating = reseat_pairs(
            pairs, wins=wins, history=history, rng=random.Random(r), round_number=r
        )
        times.append(time.process_time() - start)
        repeats += seating_repeats(seating, history)
        naive += naive_repeats(pairs, wins, history)
        clubs += sum(1 for t in seating.tables if club_clashes(by_id[t.ac], by_id[t.bd]))
    return statistics.median(times), repeats, naive, clubs


def main() -> int:
    load = os.getloadavg()[0]
    print(f"Pairs Swiss reseating (T9), {ROUNDS} rounds after round 1; load average {load:.2f}")
    head = (
        "partnerships",
        "reseat median (s)",
        "goal (s)",
        "repeats",
        "naive repeats",
        "same-club tables",
        "pass",
    )
    print(" | ".join(head))
    ok = True
    for n in (64, 256, 1000):
        median, repeats, naive, clubs = run(n)
        good = median <= GOAL_SECONDS[n] and repeats <= naive and repeats == 0
        ok &= good
        print(
            f"{n:>12} | {median:>17.4f} | {GOAL_SECONDS[n]:>8} | {repeats:>7} | "
            f"{naive:>13} | {clubs:>16} | {'yes' if good else 'NO'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
