"""Who played for a partnership, and when (T9, T11): the one place the pages name a pairs
table or a pairs bye.

A substitute (T11) ends the leaving player's membership and adds the newcomer's, so a
partnership's players change over an event. A page naming a partnership per round follows
one rule, here:

- at a table, the players who sat there (the match's seats), whatever happened since;
- for a bye, the partnership's players at that round: at its close for a closed round, the
  current players for a round still in play (a substitute made while the partnership sits
  out is its player from this round on).

Pages load a :class:`Roster` with the rest of their data (:func:`roster_for`, one query, or
the stage's ``PairsData.roster``, no query) and ask it; they never name partnerships their own
way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tournament.models import PartnershipMember
from tournament.partnerships import partnership_label

MEMBER_FIELDS = (
    "partnership_id",
    "entry_id",
    "slot",
    "left_at",
    "created_at",
    "partnership__name",
    "entry__player__name",
)
"""The membership columns a :class:`Roster` is built from (``values(*MEMBER_FIELDS)``)."""


@dataclass(frozen=True, slots=True)
class NamedPair:
    """A partnership named once on a page (T9): its id, label and the players named."""

    pair_id: int
    name: str
    entry_ids: tuple[int, ...]
    names: tuple[str, ...]

    @property
    def label(self) -> str:
        return partnership_label(self.name, self.names)


@dataclass(frozen=True, slots=True)
class Membership:
    """One player's time in a partnership: from ``joined_at`` until ``left_at`` (T11)."""

    pair_id: int
    entry_id: int
    slot: int
    player: str
    joined_at: datetime
    left_at: datetime | None

    def at(self, moment: datetime | None) -> bool:
        """Played for the partnership at ``moment`` (``None``: now)."""
        if moment is None:
            return self.left_at is None
        return self.joined_at <= moment and (self.left_at is None or self.left_at > moment)


@dataclass(frozen=True, slots=True)
class Roster:
    """Every membership, past and current, of the partnerships a page names."""

    memberships: tuple[Membership, ...]
    registered: Mapping[int, str]
    """Partnership id -> its registered name ("" if none)."""
    by_entry: Mapping[int, Membership]
    """Entry id -> its membership (an entry joins one partnership, ever)."""

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]]) -> Roster:
        """From ``PartnershipMember`` rows with :data:`MEMBER_FIELDS`."""
        rows = list(rows)
        memberships = tuple(
            Membership(
                pair_id=r["partnership_id"],
                entry_id=r["entry_id"],
                slot=r["slot"],
                player=r["entry__player__name"],
                joined_at=r["created_at"],
                left_at=r["left_at"],
            )
            for r in rows
        )
        return cls(
            memberships=memberships,
            registered={r["partnership_id"]: r["partnership__name"] or "" for r in rows},
            by_entry={m.entry_id: m for m in memberships},
        )

    def pair_of(self, entry_id: int) -> int | None:
        m = self.by_entry.get(entry_id)
        return None if m is None else m.pair_id

    def player(self, entry_id: int) -> str:
        """The player of an entry that ever played for a partnership, "" otherwise."""
        m = self.by_entry.get(entry_id)
        return "" if m is None else m.player

    def members_at(self, pair_id: int, moment: datetime | None) -> tuple[Membership, ...]:
        """The partnership's players at ``moment`` (``None``: its current players), by slot."""
        return tuple(
            sorted(
                (m for m in self.memberships if m.pair_id == pair_id and m.at(moment)),
                key=lambda m: m.slot,
            )
        )

    def seated(self, entry_ids: Sequence[int]) -> NamedPair | None:
        """The partnership of players who sat together at a table, named by them (T11: a
        played match keeps its players) in its registered order (``slot``), not the seats':
        partners swap seats between rounds (T8), and a list of partnerships must not read
        "Ana & Bea" in one round and "Bea & Ana" in the next."""
        pid = self.pair_of(entry_ids[0]) if entry_ids else None
        if pid is None:
            return None
        ordered = sorted(entry_ids, key=self.slot)
        return NamedPair(
            pair_id=pid,
            name=self.registered.get(pid, ""),
            entry_ids=tuple(ordered),
            names=tuple(self.player(e) for e in ordered),
        )

    def slot(self, entry_id: int) -> int:
        """The entry's place in its partnership's registered order (T9; a substitute takes
        the leaving player's, T11); past any registered player if it plays for none."""
        m = self.by_entry.get(entry_id)
        return 2 if m is None else m.slot

    def table_pairs(self, seat_entry_ids: Sequence[int]) -> tuple[NamedPair, NamedPair] | None:
        """AC (seats 0 and 2) and BD (seats 1 and 3) of a four-seat pairs table (R42), each
        named by who sat there, in registered order (:meth:`seated`); ``None`` for any other
        table."""
        if len(seat_entry_ids) != 4:
            return None
        ac = self.seated([seat_entry_ids[0], seat_entry_ids[2]])
        bd = self.seated([seat_entry_ids[1], seat_entry_ids[3]])
        if ac is None or bd is None or ac.pair_id == bd.pair_id:
            return None
        return ac, bd

    def byes(self, entry_ids: Iterable[int], *, moment: datetime | None) -> list[NamedPair]:
        """The partnerships of a round's byes (entry ids as published, T1), each once in
        bye order, named by their players at ``moment`` (:func:`round_moment`)."""
        out: list[NamedPair] = []
        seen: set[int] = set()
        for entry_id in entry_ids:
            pid = self.pair_of(entry_id)
            if pid is None or pid in seen:
                continue
            seen.add(pid)
            members = self.members_at(pid, moment)
            out.append(
                NamedPair(
                    pair_id=pid,
                    name=self.registered.get(pid, ""),
                    entry_ids=tuple(m.entry_id for m in members),
                    names=tuple(m.player for m in members),
                )
            )
        return out


def round_moment(status: str, closed_at: datetime | None) -> datetime | None:
    """When a round's bye is named (T11): at its close once closed, now while in play."""
    return closed_at if status == "closed" else None


def roster_for(*, entry_ids: Iterable[int]) -> Roster:
    """The memberships of every partnership any of ``entry_ids`` ever played for: one query."""
    ids = list(entry_ids)
    if not ids:
        return Roster.from_rows([])
    of_them = PartnershipMember.objects.filter(entry_id__in=ids).values("partnership_id")
    return Roster.from_rows(
        PartnershipMember.objects.filter(partnership_id__in=of_them)
        .order_by("partnership_id", "slot", "id")
        .values(*MEMBER_FIELDS)
    )
