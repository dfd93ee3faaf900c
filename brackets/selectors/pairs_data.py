"""A pairs stage's partnerships and partnership statistics, loaded for the engine (T9, T10).

Loaded by :func:`brackets.selectors.stage_data.stage_data_for` only for a stage with
``Stage.pairs`` (two queries more: memberships, and the finished matches' partnership
statistics); an individual stage loads nothing here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from scoring.models import Match
from tournament.models import PartnershipMember


@dataclass(frozen=True, slots=True)
class PairInfo:
    """A partnership of the tournament: its current players in slot order (T9, T11)."""

    pair_id: int
    number: int
    name: str
    status: str
    players: tuple[int, ...]
    names: tuple[str, ...]
    clubs: tuple[str, ...]
    ratings: tuple[int | None, ...]

    @property
    def label(self) -> str:
        return self.name or " & ".join(self.names) or f"Pair {self.number}"


@dataclass(frozen=True, slots=True)
class TeamLine:
    """One partnership's statistics in one match, counted once per partnership (R46)."""

    hands_won: int
    six_loves_given: int


@dataclass(frozen=True, slots=True)
class PairsData:
    pairs: tuple[PairInfo, ...]
    pair_of: Mapping[int, int]
    """Entry id -> partnership id, for every player who ever played for it (T11 history)."""
    team_lines: Mapping[int, tuple[TeamLine, TeamLine]]
    """Match id -> (AC, BD) statistics from the engine's partnership rows (R35, R46)."""

    def pair(self, pair_id: int) -> PairInfo:
        for p in self.pairs:
            if p.pair_id == pair_id:
                return p
        raise KeyError(pair_id)


def pairs_data_for(*, tournament_id: int, stage_id: int) -> PairsData:
    """Two queries: the tournament's memberships, the stage's matches' partnership rows."""
    current: dict[int, dict[str, object]] = {}
    members: dict[int, list[tuple[int, int, str, str, int | None]]] = {}
    pair_of: dict[int, int] = {}
    for row in (
        PartnershipMember.objects.filter(partnership__tournament_id=tournament_id)
        .order_by("partnership__number", "slot", "id")
        .values(
            "partnership_id",
            "entry_id",
            "slot",
            "left_at",
            "partnership__number",
            "partnership__name",
            "partnership__status",
            "entry__player__name",
            "entry__player__club",
            "entry__player__rating",
        )
    ):
        pid = row["partnership_id"]
        pair_of[row["entry_id"]] = pid
        current.setdefault(
            pid,
            {
                "number": row["partnership__number"],
                "name": row["partnership__name"],
                "status": row["partnership__status"],
            },
        )
        if row["left_at"] is None:
            members.setdefault(pid, []).append(
                (
                    row["slot"],
                    row["entry_id"],
                    row["entry__player__name"],
                    row["entry__player__club"],
                    row["entry__player__rating"],
                )
            )
    pairs = []
    for pid, info in current.items():
        ms = sorted(members.get(pid, []))
        pairs.append(
            PairInfo(
                pair_id=pid,
                number=int(str(info["number"])),
                name=str(info["name"]),
                status=str(info["status"]),
                players=tuple(m[1] for m in ms),
                names=tuple(m[2] for m in ms),
                clubs=tuple(m[3] for m in ms),
                ratings=tuple(m[4] for m in ms),
            )
        )
    team_lines: dict[int, tuple[TeamLine, TeamLine]] = {}
    for match_id, state in Match.objects.filter(
        round_link__round__stage_id=stage_id, status=Match.Status.FINISHED
    ).values_list("id", "engine_state"):
        rows = (state or {}).get("team_stats")
        if not rows or len(rows) != 2:
            continue
        # _STATS_KEYS order (scoring.engine.match_state): hands_won first, six_love_given 9th.
        team_lines[match_id] = (
            TeamLine(hands_won=int(rows[0][0]), six_loves_given=int(rows[0][8])),
            TeamLine(hands_won=int(rows[1][0]), six_loves_given=int(rows[1][8])),
        )
    return PairsData(pairs=tuple(pairs), pair_of=pair_of, team_lines=team_lines)
