"""Seat order at one table (T1, T8).

Glossary:
    seat order  -- the players of a table in play order: seat 0, seat 1, ... and back to seat 0
                   (T1: seat order fixes play order, anti-clockwise).
    successor   -- the player who plays directly after another; the pair (a, b) means b sits
                   directly after a. Pairs are cyclic: seat 0 follows the last seat.
    follow cost -- for a candidate order, the number of its successor pairs that already
                   occurred in earlier rounds (each earlier occurrence counts once).

:attr:`SeatOrder.BALANCED` tries every cyclic order (6 for 4 players, 2 for 3), keeps those
with the lowest follow cost, and draws one of them, then a rotation, from the injected rng:
the result is replayable from the seed and no player is always seat 0.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from brackets.engine.history import History
from brackets.engine.model import PlayerId, SeatOrder


def follow_cost(seats: Sequence[PlayerId], history: History) -> int:
    """How many of the cyclic successor pairs of ``seats`` were seen before (T8)."""
    n = len(seats)
    return sum(history.follows(seats[i], seats[(i + 1) % n]) for i in range(n))


def order_seats(
    players: Sequence[PlayerId],
    *,
    history: History,
    rng: random.Random,
    policy: SeatOrder = SeatOrder.BALANCED,
) -> tuple[PlayerId, ...]:
    """The seat order (= play order, T1) for the players of one table.

    ``RANDOM``: a shuffle drawn from ``rng``. ``BALANCED`` (T8): an order with the fewest
    repeated "who sits directly after whom" pairs, ties and rotation drawn from ``rng``.
    """
    if policy is SeatOrder.RANDOM or len(players) < 3:
        seats = list(players)
        rng.shuffle(seats)
        return tuple(seats)
    first, rest = players[0], players[1:]
    best: list[tuple[PlayerId, ...]] = []
    best_cost = -1
    for perm in itertools.permutations(rest):
        cand = (first, *perm)
        cost = follow_cost(cand, history)
        if best_cost < 0 or cost < best_cost:
            best, best_cost = [cand], cost
        elif cost == best_cost:
            best.append(cand)
    chosen = best[rng.randrange(len(best))]
    turn = rng.randrange(len(chosen))
    return chosen[turn:] + chosen[:turn]
