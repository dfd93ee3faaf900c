"""Placing at a table by score (T3/T4): the ranking of a finished or stopped match.

Glossary:
    placing  -- a seat's competition rank at the table (1, 2, 2, 4): players still level on
                every key share it (T3).
    reached  -- the earliest hand after which a player stood on their final score for good;
                earlier is better (T3).

The time-called twin of this rule, over player lines rather than seats, is
``brackets.engine.time_called`` (the brackets engine may not import this one).
"""

from __future__ import annotations

from collections.abc import Sequence


def placings_by_score(
    scores: Sequence[int],
    history: Sequence[Sequence[int]],
    hands_won: Sequence[int],
    winner: int | None,
) -> list[int]:
    """Placing at the table (T3/T4): the winner first, then by score, then by who reached
    that score first (the earliest start of their final unchanged run in ``history``), then
    hands won. Players still level share the placing, competition style (1, 2, 2, 4): seat
    order never decides (T3). Without a ``winner`` a shared first stays shared (no match
    win, T3)."""

    def reached(i: int) -> int:
        j = len(history)
        while j > 0 and history[j - 1][i] == scores[i]:
            j -= 1
        return j

    n = len(scores)

    def key(i: int) -> tuple[bool, int, int, int]:
        return (i != winner, -scores[i], reached(i), -hands_won[i])

    order = sorted(range(n), key=key)
    placing = [0] * n
    for rank, seat in enumerate(order, start=1):
        previous = order[rank - 2] if rank > 1 else None
        level = previous is not None and key(previous) == key(seat)
        placing[seat] = placing[previous] if level and previous is not None else rank
    return placing


def shared_placings_valid(placings: Sequence[int]) -> bool:
    """True if ``placings`` are competition ranks 1..n: ``k`` players sharing placing ``p``
    cover places ``p .. p+k-1`` (1, 1, 3, 4; T3)."""
    return all(p == 1 + sum(1 for q in placings if q < p) for p in placings)


def sole_first(placings: Sequence[int]) -> int | None:
    """The seat placed first alone, or ``None`` when first is shared (no match win, T3)."""
    firsts = [seat for seat, p in enumerate(placings) if p == 1]
    return firsts[0] if len(firsts) == 1 else None
