"""What earlier rounds of a stage tell the seating (T8).

Glossary:
    meeting      -- two players sat at the same table in one round (they were opponents).
    repeat       -- seating two players together again; each earlier meeting of the pair counts.
    predecessor  -- at a table, the player who plays directly before another (T1: seat order is
                    play order, cyclic). ``follows(a, b)`` counts the rounds in which b played
                    directly after a.

Built once from the earlier rounds' :class:`Seating` values; read-only afterwards. Lookups are
dict-backed (per-player opponent counts) so the optimiser can price a swap in O(table size).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from brackets.engine.model import PlayerId, Seating

_NO_MEETINGS: Mapping[PlayerId, int] = {}


class History:
    """Opponent, predecessor and bye counts of the earlier rounds of a stage (T8, T1)."""

    __slots__ = ("_byes", "_follows", "_opponents", "_rounds")

    def __init__(self) -> None:
        self._opponents: dict[PlayerId, dict[PlayerId, int]] = {}
        self._follows: dict[tuple[PlayerId, PlayerId], int] = {}
        self._byes: dict[PlayerId, int] = {}
        self._rounds = 0

    @classmethod
    def empty(cls) -> History:
        return cls()

    @classmethod
    def from_seatings(cls, rounds: Iterable[Seating]) -> History:
        """Count meetings, predecessor pairs and byes over ``rounds`` (any order)."""
        h = cls()
        opponents = h._opponents
        follows = h._follows
        for seating in rounds:
            h._rounds += 1
            for table in seating.tables:
                seats = table.seats
                for i, p in enumerate(seats):
                    row = opponents.setdefault(p, {})
                    for q in seats:
                        if q != p:
                            row[q] = row.get(q, 0) + 1
                    pair = (p, seats[(i + 1) % len(seats)])
                    follows[pair] = follows.get(pair, 0) + 1
            for p in seating.byes:
                h._byes[p] = h._byes.get(p, 0) + 1
        return h

    @property
    def rounds(self) -> int:
        """How many earlier rounds this history holds."""
        return self._rounds

    def meetings(self, a: PlayerId, b: PlayerId) -> int:
        """How many earlier rounds ``a`` and ``b`` sat at the same table."""
        return self._opponents.get(a, _NO_MEETINGS).get(b, 0)

    def opponents(self, player_id: PlayerId) -> Mapping[PlayerId, int]:
        """Every earlier opponent of ``player_id`` with the number of meetings (read-only use)."""
        return self._opponents.get(player_id, _NO_MEETINGS)

    def follows(self, before: PlayerId, after: PlayerId) -> int:
        """How many earlier rounds ``after`` played directly after ``before`` (T8)."""
        return self._follows.get((before, after), 0)

    def byes(self, player_id: PlayerId) -> int:
        """How many byes ``player_id`` has had in earlier rounds (T1)."""
        return self._byes.get(player_id, 0)
