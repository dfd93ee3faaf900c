"""A pairs stage's partnerships and partnership statistics, loaded for the engine (T9, T10).

Loaded by :func:`brackets.selectors.stage_data.stage_data_for` only for a stage with
``Stage.pairs`` (three queries more: memberships, the finished matches and their hands, which
the engine folds into partnership statistics); an individual stage loads nothing here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from brackets.selectors.pair_roster import MEMBER_FIELDS, Roster
from scoring.engine.match_state import PlayerStats
from scoring.models import Match
from scoring.selectors import matches_team_stats
from tournament.models import PartnershipMember, Tournament


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
    """One partnership's statistics in one match, counted once per partnership (R46): a hand
    both partners won (a shared lowest count, R43) is one hand won, one replay won; a tied
    hand one tie, however many of its players shared the lowest count (R35, R42)."""

    hands_won: int
    six_loves_given: int
    llaves: int = 0
    ties: int = 0
    replays_won: int = 0


@dataclass(frozen=True, slots=True)
class PairsData:
    pairs: tuple[PairInfo, ...]
    pair_of: Mapping[int, int]
    """Entry id -> partnership id, for every player who ever played for it (T11 history)."""
    team_lines: Mapping[int, tuple[TeamLine, TeamLine]]
    """Match id -> (AC, BD) statistics folded from the stored hands (R35, R46); a match that
    does not fold is missing and its seats stand in."""
    roster: Roster
    """Every membership, past and current: how the pages name a table or a bye (T11)."""
    pip_scoring: bool = False
    """The tournament plays to pips (R40, R45): T10's third key is points for minus against,
    not six-loves given. From the ruleset, so the standings say it before the first result."""

    def pair(self, pair_id: int) -> PairInfo:
        for p in self.pairs:
            if p.pair_id == pair_id:
                return p
        raise KeyError(pair_id)


def _team_line(stats: PlayerStats) -> TeamLine:
    return TeamLine(
        hands_won=stats.hands_won,
        six_loves_given=stats.six_love_given,
        llaves=stats.llaves,
        ties=stats.ties,
        replays_won=stats.replays_won,
    )


def pairs_data_for(*, tournament_id: int, stage_id: int) -> PairsData:
    """Four queries: the tournament's scoring, its memberships, the stage's finished matches
    and their non-void hands (folded by the engine into each partnership's statistics,
    R35/R46)."""
    current: dict[int, dict[str, object]] = {}
    members: dict[int, list[tuple[int, int, str, str, int | None]]] = {}
    pair_of: dict[int, int] = {}
    rows = list(
        PartnershipMember.objects.filter(partnership__tournament_id=tournament_id)
        .order_by("partnership__number", "slot", "id")
        .values(
            *MEMBER_FIELDS,
            "partnership__number",
            "partnership__status",
            "entry__player__club",
            "entry__player__rating",
        )
    )
    for row in rows:
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
    # T10/R46: the partnership's own counts, folded from the stored hands (a hand both
    # partners won counts once). Never the engine snapshot: it is retired by any later change
    # of the match (an override clears it) and stored under "state" anyway.
    finished = Match.objects.filter(
        round_link__round__stage_id=stage_id, status=Match.Status.FINISHED
    )
    team_lines: dict[int, tuple[TeamLine, TeamLine]] = {
        match_id: (_team_line(ac), _team_line(bd))
        for match_id, (ac, bd) in matches_team_stats(matches=finished).items()
    }
    ruleset = Tournament.objects.filter(pk=tournament_id).values_list("ruleset", flat=True).first()
    return PairsData(
        pairs=tuple(pairs),
        pair_of=pair_of,
        team_lines=team_lines,
        roster=Roster.from_rows(rows),
        pip_scoring=isinstance(ruleset, dict) and ruleset.get("scoring") == "pips",
    )
