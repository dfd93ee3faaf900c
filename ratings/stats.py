"""Statistics that only a system recording every hand can give (R35 and the hand records):
per player (across events or in one tournament) and leaderboards per tournament.

Everything is counted from finished matches' seat lines (the R35 columns the services keep) and
from the stored, non-void hands; draft tournaments never count. A forfeit (T7) counts as a
match played and lost, with no hands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.db.models import Count, F, Q, QuerySet, Sum

from scoring.models import Hand, Match, Seat

# The R35 statistics kept on each seat, in the order pages show them.
SEAT_STATS = (
    "hands_won",
    "domino_wins",
    "block_wins",
    "llaves",
    "ties",
    "replays_won",
    "resets_caused",
    "six_love_given",
    "six_love_received",
)


@dataclass(frozen=True, slots=True)
class Rate:
    won: int
    of: int

    @property
    def percent(self) -> float | None:
        return round(100 * self.won / self.of, 1) if self.of else None


@dataclass(frozen=True, slots=True)
class PlayerStats:
    matches: int = 0
    match_wins: int = 0
    totals: dict[str, int] = field(default_factory=dict)
    posing: Rate = Rate(0, 0)  # hands the player posed, and won
    double_six: Rate = Rate(0, 0)  # hands the player posed with 6-6 (R5), and won

    @property
    def match_win_rate(self) -> Rate:
        return Rate(self.match_wins, self.matches)


def _seats(player_id: int, tournament_id: int | None) -> QuerySet[Seat]:
    seats = Seat.objects.filter(
        entry__player_id=player_id, match__status=Match.Status.FINISHED
    ).exclude(match__tournament__status="draft")
    if tournament_id is not None:
        seats = seats.filter(match__tournament_id=tournament_id)
    return seats


def player_stats(*, player_id: int, tournament_id: int | None = None) -> PlayerStats:
    """One player's statistics, across events or in one tournament (three queries)."""
    totals = _seats(player_id, tournament_id).aggregate(
        matches=Count("id"),
        match_wins=Count("id", filter=Q(placing=1)),
        **{name: Sum(name) for name in SEAT_STATS},
    )
    # The hands this player posed: the seat that posed is theirs. Both conditions sit in one
    # filter() so they describe the same seat row.
    hands = Hand.objects.filter(
        void=False,
        match__status=Match.Status.FINISHED,
        match__seats__entry__player_id=player_id,
        match__seats__seat=F("poser"),
    ).exclude(match__tournament__status="draft")
    if tournament_id is not None:
        hands = hands.filter(match__tournament_id=tournament_id)
    posed = hands.aggregate(
        posed=Count("id"),
        won=Count("id", filter=Q(winner=F("poser"))),
        six=Count("id", filter=Q(pose_tile="6-6")),
        six_won=Count("id", filter=Q(pose_tile="6-6", winner=F("poser"))),
    )
    return PlayerStats(
        matches=totals["matches"],
        match_wins=totals["match_wins"],
        totals={name: int(totals[name] or 0) for name in SEAT_STATS},
        posing=Rate(posed["won"], posed["posed"]),
        double_six=Rate(posed["six_won"], posed["six"]),
    )


@dataclass(frozen=True, slots=True)
class Leader:
    player_id: int
    name: str
    value: int
    matches: int


LEADERBOARDS = ("match_wins", *SEAT_STATS)


def _board_order(stat: str, row: dict[str, Any]) -> tuple[int, int, str]:
    """Most first; fewer matches breaks a tie (the better rate), then the name."""
    return (-int(row[stat] or 0), int(row["matches"]), str(row["entry__player__name"]))


def tournament_leaders(*, tournament_id: int, limit: int = 10) -> dict[str, list[Leader]]:
    """The top ``limit`` players of a tournament for each statistic (one aggregate query)."""
    rows: list[dict[str, Any]] = [
        dict(row)
        for row in Seat.objects.filter(
            match__tournament_id=tournament_id, match__status=Match.Status.FINISHED
        )
        .values("entry__player_id", "entry__player__name")
        .annotate(
            matches=Count("id"),
            match_wins=Count("id", filter=Q(placing=1)),
            **{name: Sum(name) for name in SEAT_STATS},
        )
    ]
    boards: dict[str, list[Leader]] = {}
    for stat in LEADERBOARDS:
        ranked = sorted(
            (r for r in rows if (r[stat] or 0) > 0),
            key=partial(_board_order, stat),
        )[:limit]
        boards[stat] = [
            Leader(r["entry__player_id"], r["entry__player__name"], int(r[stat]), r["matches"])
            for r in ranked
        ]
    return boards
