"""Placing at a table by score (T3/T4): the ranking of a finished or stopped match.

Glossary:
    placing  -- a seat's competition rank at the table (1, 2, 2, 4): players still level on
                every key share it (T3).
    reached  -- the earliest hand after which a player stood on their final score for good;
                earlier is better (T3). Not for a player on love (0): nobody *reaches* love,
                the start or a reset puts them there, so players on love go straight to hands
                won (README, Rule decisions; the same decision as
                ``brackets.engine.time_called``).

At a partnership table (R42) both partners hold their partnership's placing
(:func:`team_placings`).

The time-called twin of this rule, over player lines rather than seats, is
``brackets.engine.time_called`` (the brackets engine may not import this one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scoring.engine.match_state import MatchState


def placings_by_score(
    scores: Sequence[int],
    history: Sequence[Sequence[int]],
    hands_won: Sequence[int],
    winner: int | None,
) -> list[int]:
    """Placing at the table (T3/T4): the winner first, then by score, then by who reached
    that score first (the earliest start of their final unchanged run in ``history``; not
    for players on love, who go straight to hands won), then hands won. Players still level
    share the placing, competition style (1, 2, 2, 4): seat order never decides (T3).
    Without a ``winner`` a shared first stays shared (no match win, T3)."""

    return _placings(scores, history, hands_won, lambda i: i == winner)


def _placings(
    scores: Sequence[int],
    history: Sequence[Sequence[int]],
    hands_won: Sequence[int],
    is_winner: Callable[[int], bool],
) -> list[int]:
    def reached(i: int) -> int:
        if scores[i] == 0:  # love is not reached (T3): straight to hands won
            return 0
        j = len(history)
        while j > 0 and history[j - 1][i] == scores[i]:
            j -= 1
        return j

    n = len(scores)

    def key(i: int) -> tuple[bool, int, int, int]:
        return (not is_winner(i), -scores[i], reached(i), -hands_won[i])

    order = sorted(range(n), key=key)
    placing = [0] * n
    for rank, seat in enumerate(order, start=1):
        previous = order[rank - 2] if rank > 1 else None
        level = previous is not None and key(previous) == key(seat)
        placing[seat] = placing[previous] if level and previous is not None else rank
    return placing


def team_placings(
    scores: Sequence[int],
    history: Sequence[Sequence[int]],
    team_hands_won: Sequence[int],
    winner: int | None,
) -> list[int]:
    """Placing at a partnership table (R42, T3/T4): a partnership's match record is one
    result, so both partners hold their partnership's placing. Seats 0, 2 are AC and 1, 3 BD;
    each seat's score is its partnership's (R42). The partnership of ``winner`` (the seat that
    won the last hand) is first, then by score, who reached it first, then the partnership's
    own hands won (``team_hands_won``: AC, BD; R46). Competition ranks over the four seats:
    ``[1, 3, 1, 3]`` when AC is ahead, ``[1, 1, 1, 1]`` when the partnerships are level (no
    match win, T3).

    Raises ``ValueError`` unless there are exactly four seats and two partnerships (R42).
    """
    if len(scores) != 4 or len(team_hands_won) != 2:
        raise ValueError("a partnership table has four seats and two partnerships (R42)")
    team_winner = None if winner is None else winner % 2
    # Both partners carry the same score line (R42), so they are level on every key below.
    team_scores = [scores[i % 2] for i in range(4)]
    team_history = [[row[i % 2] for i in range(4)] for row in history]
    return _placings(
        team_scores,
        team_history,
        [team_hands_won[i % 2] for i in range(4)],
        lambda i: team_winner is not None and i % 2 == team_winner,
    )


def match_placings(
    state: MatchState, history: Sequence[Sequence[int]], winner: int | None = None
) -> list[int]:
    """Every seat's placing at the end of a match (T3/T4; ``history`` is the score line after
    each hand). At a partnership table both partners hold their partnership's placing, ranked
    on its own hands won (R42, R46). ``winner`` is the seat placed first: the engine's winner
    of a match played out (the default), or the winner of a sudden-death hand (T3), whose
    match the engine does not see as over."""
    first = state.winner if winner is None else winner
    if state.team_stats is not None:
        return team_placings(state.scores, history, [t.hands_won for t in state.team_stats], first)
    return placings_by_score(state.scores, history, [s.hands_won for s in state.stats], first)


def partnership_placings(placings: Sequence[int]) -> list[int]:
    """Placings given seat by seat at a partnership table (a director's override, a time-called
    match) as the partnerships' result (R42, T4): each partnership takes its better partner's
    placing, so ``[1, 3, 2, 3]`` reads ``[1, 3, 1, 3]`` and a level best is ``[1, 1, 1, 1]``
    (no match win, T3).

    Raises ``ValueError`` unless there are exactly four seats (R42).
    """
    if len(placings) != 4:
        raise ValueError("a partnership table has four seats (R42)")
    ac, bd = min(placings[0], placings[2]), min(placings[1], placings[3])
    if ac == bd:
        return [1, 1, 1, 1]
    return [1, 3, 1, 3] if ac < bd else [3, 1, 3, 1]


def side_places(
    placings: Sequence[int | None], forfeited: Sequence[bool] = ()
) -> tuple[int | None, int | None]:
    """The places of partnerships AC and BD (seats 0/2 and 1/3, R42) at a finished table, as
    every page reads them (T4 over partnerships): 1 and 2 by each partnership's better seat
    placing, 1 and 1 when they are level (a shared first, which is no win: T3); a forfeited
    player's partnership is 2nd (T7). ``(None, None)`` without four placings or when both
    partnerships forfeited. The seat placings themselves (``1, 3, 1, 3``) stay what the
    ratings read; people read these.

    >>> side_places([1, 3, 1, 3])
    (1, 2)
    >>> side_places([3, 1, 3, 1])
    (2, 1)
    >>> side_places([1, 1, 1, 1])
    (1, 1)
    >>> side_places([None, 1, None, 1], [True, False, False, False])
    (2, 1)
    """
    if len(placings) != 4:
        return (None, None)
    lost = {i % 2 for i, f in enumerate(forfeited) if f}
    if lost == {0}:
        return (2, 1)
    if lost == {1}:
        return (1, 2)
    if lost:
        return (None, None)
    best = [min((p or 99) for i, p in enumerate(placings) if i % 2 == k) for k in (0, 1)]
    if 99 in best:
        return (None, None)
    if best[0] == best[1]:
        return (1, 1)
    return (1, 2) if best[0] < best[1] else (2, 1)


def seat_side_places(
    placings: Sequence[int | None], forfeited: Sequence[bool] = ()
) -> list[int | None]:
    """:func:`side_places` seat by seat: each partner holds their partnership's place, so
    ``[1, 3, 1, 3]`` reads ``[1, 2, 1, 2]`` (R42, T4)."""
    places = side_places(placings, forfeited)
    return [places[i % 2] for i in range(len(placings))]


def shared_placings_valid(placings: Sequence[int]) -> bool:
    """True if ``placings`` are competition ranks 1..n: ``k`` players sharing placing ``p``
    cover places ``p .. p+k-1`` (1, 1, 3, 4; T3)."""
    return all(p == 1 + sum(1 for q in placings if q < p) for p in placings)


def sole_first(placings: Sequence[int]) -> int | None:
    """The seat placed first alone, or ``None`` when first is shared (no match win, T3)."""
    firsts = [seat for seat, p in enumerate(placings) if p == 1]
    return firsts[0] if len(firsts) == 1 else None
