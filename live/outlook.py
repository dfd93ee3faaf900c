"""Who has already clinched a place above the cut, or is already out of reach of it (T5, T6).

Pure Python, no database. Only *certain* outcomes are reported, so the bound is deliberately
conservative: T5 ranks by match wins first, and the later keys (hands won, six-loves given,
head-to-head, a play-off) can go either way between players level on match wins, so a tie on
match wins always counts as a threat.

Glossary:
    min wins  -- the match wins a player already has (byes included when they count, T1).
    max wins  -- min wins plus every match still open to them: their unfinished match in a
                 published round and every round of the stage not yet published.
    clinched  -- fewer than ``cut`` other players can still reach the player's min wins: the
                 player finishes in the top ``cut`` whatever happens (T6 cut).
    eliminated -- at least ``cut`` players already have more wins than the player can reach;
                 or the player has withdrawn (T7): out of the cut either way (the live
                 standings mark a withdrawn row ``withdrawn`` before asking, T7).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class Outlook(StrEnum):
    CLINCHED = "clinched"
    ELIMINATED = "eliminated"


@dataclass(frozen=True, slots=True)
class WinBounds:
    player_id: int
    min_wins: int
    max_wins: int
    active: bool = True


def cut_outlook(players: Sequence[WinBounds], cut: int) -> dict[int, Outlook]:
    """Certain outcomes against a cut of the top ``cut`` (T6), by player id.

    O(n log n): sorted bounds and binary search, so it stays cheap for a thousand players.

    >>> field = [WinBounds(1, 3, 3), WinBounds(2, 2, 2), WinBounds(3, 0, 1), WinBounds(4, 0, 1)]
    >>> sorted(cut_outlook(field, 2).items())
    [(1, <Outlook.CLINCHED: 'clinched'>), (2, <Outlook.CLINCHED: 'clinched'>), \
(3, <Outlook.ELIMINATED: 'eliminated'>), (4, <Outlook.ELIMINATED: 'eliminated'>)]
    """
    if cut < 1:
        return {}
    maxes = sorted(p.max_wins for p in players if p.active)
    mins = sorted(p.min_wins for p in players if p.active)
    out: dict[int, Outlook] = {}
    for p in players:
        if not p.active:
            out[p.player_id] = Outlook.ELIMINATED
            continue
        # Others who can still reach (or tie) this player's current wins.
        threats = len(maxes) - bisect_left(maxes, p.min_wins) - 1  # minus the player
        if threats < cut:
            out[p.player_id] = Outlook.CLINCHED
            continue
        # Players already strictly out of this player's reach.
        ahead = len(mins) - bisect_right(mins, p.max_wins)
        if ahead >= cut:
            out[p.player_id] = Outlook.ELIMINATED
    return out
