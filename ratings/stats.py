"""Statistics that only a system recording every hand can give (R35 and the hand records):
per player (across events or in one tournament) and leaderboards per tournament.

Everything is counted from finished matches' seat lines (the R35 columns the services keep) and
from the stored, non-void hands; draft tournaments never count. A forfeit (T7) counts as a
match played and lost for the player who forfeited; the players who played on at the
continuation (``Match.continues``) played one match at that table, counted once, at the
continuation, as the standings count it (:func:`ratings.selectors.counted_seat`). Every hand
recorded in a forfeited match counts like any other (the forfeiting player's before they left,
and those of the players who played on). The standings count none of those hands
(:func:`brackets.selectors.stage_data.standings_line`), so a page of these statistics says so
when a forfeited match had hands (:func:`forfeited_hands_counted`). These are statistics of
every finished match, stand-alone ones included, not of the rated ones: what counts for a
rating, and the counts shown next to it, are :func:`ratings.selectors.rated_matches` and
:func:`ratings.selectors.rated_records`. A match win is :func:`ratings.selectors.match_win` (a
shared first place is none, T3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.db.models import Count, F, Q, QuerySet, Sum

from ratings.merge import name_key
from ratings.selectors import counted_seat, match_win
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
        matches=Count("id", filter=counted_seat()),
        match_wins=Count("id", filter=match_win()),
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


def forfeited_hands_counted(*, tournament_id: int) -> bool:
    """Whether these statistics count a hand the standings do not: a finished, forfeited
    match of the tournament with a hand recorded (T7). One query."""
    return Match.objects.filter(
        tournament_id=tournament_id,
        status=Match.Status.FINISHED,
        end_reason=Match.EndReason.FORFEIT,
        hands_count__gt=0,
    ).exists()


@dataclass(frozen=True, slots=True)
class Leader:
    """One player's line on a leaderboard. ``rank`` is a competition rank on ``value`` alone
    (1, 2, 2, 4); ``level``: another listed or counted player has the same value."""

    player_id: int
    name: str
    value: int
    matches: int
    rank: int = 1
    level: bool = False


@dataclass(frozen=True, slots=True)
class LevelRest:
    """The players level at the cut who are counted, not named: ``count`` players on
    ``value``, all at ``rank``."""

    rank: int
    value: int
    count: int


@dataclass(frozen=True, slots=True)
class LeaderBoard:
    rows: list[Leader]
    rest: LevelRest | None = None


LEADERBOARDS = ("match_wins", *SEAT_STATS)

# A tie at the cut is listed whole while the board stays this long; a larger tie is counted
# on one line ("12 players level") so that nobody is named while an equal is left out.
BOARD_MAX_ROWS = 20


def _board_order(stat: str, row: dict[str, Any]) -> tuple[int, str, str, int]:
    """Most first; players level on the statistic share a rank and are listed by name (the
    order a reader looks a name up in: "Álvaro" with the A's), then by player id for
    namesakes. The order among level players ranks nobody above anybody."""
    name = str(row["entry__player__name"])
    return (-int(row[stat] or 0), name_key(name), name.casefold(), int(row["entry__player_id"]))


def competition_ranks(values: Sequence[int]) -> list[int]:
    """Competition ranks of ``values`` sorted best (largest) first: level values share the
    rank of the first of them, and the next value's rank counts everyone above it.

    >>> competition_ranks([5, 3, 3, 1])
    [1, 2, 2, 4]
    >>> competition_ranks([])
    []
    """
    ranks: list[int] = []
    for i, value in enumerate(values):
        ranks.append(ranks[-1] if i and values[i - 1] == value else i + 1)
    return ranks


def board_cut(
    values: Sequence[int], *, limit: int, max_rows: int = BOARD_MAX_ROWS
) -> tuple[int, int]:
    """Where a leaderboard of ``values`` (sorted best first) stops: ``(named, counted)``, the
    number of rows named, then the number of further players level at the cut who are only
    counted. The cut falls between two values, never inside a tie: every player ranked in the
    top ``limit`` is on the board, a tie straddling the ``limit``-th place whole; when that
    tie would take the board past ``max_rows`` rows its players are counted instead.

    >>> board_cut([9, 8, 7], limit=2)
    (2, 0)
    >>> board_cut([9, 8, 8, 8, 5], limit=2)
    (4, 0)
    >>> board_cut([9, 8, 8, 8, 5], limit=2, max_rows=3)
    (1, 3)
    >>> board_cut([1, 1, 1], limit=2, max_rows=2)
    (0, 3)
    """
    if len(values) <= limit:
        return (len(values), 0)
    ranks = competition_ranks(values)
    named = sum(1 for r in ranks if r <= limit)
    if named <= max_rows:
        return (named, 0)
    tie_start = ranks[named - 1] - 1  # the first row of the tie that crosses the limit
    return (tie_start, named - tie_start)


def tournament_leaders(
    *, tournament_id: int, limit: int = 10, max_rows: int = BOARD_MAX_ROWS
) -> dict[str, LeaderBoard]:
    """Each statistic's leaders in a tournament (one aggregate query): the players ranked in
    the top ``limit`` (competition ranks on the statistic; a tie at the cut listed whole, or
    counted when long, :func:`board_cut`); nobody on 0."""
    rows: list[dict[str, Any]] = [
        dict(row)
        for row in Seat.objects.filter(
            match__tournament_id=tournament_id, match__status=Match.Status.FINISHED
        )
        .values("entry__player_id", "entry__player__name")
        .annotate(
            matches=Count("id", filter=counted_seat()),
            match_wins=Count("id", filter=match_win()),
            **{name: Sum(name) for name in SEAT_STATS},
        )
    ]
    boards: dict[str, LeaderBoard] = {}
    for stat in LEADERBOARDS:
        ranked = sorted(
            (r for r in rows if (r[stat] or 0) > 0),
            key=partial(_board_order, stat),
        )
        values = [int(r[stat]) for r in ranked]
        ranks = competition_ranks(values)
        named, counted = board_cut(values, limit=limit, max_rows=max_rows)
        level = {v for i, v in enumerate(values) if i and values[i - 1] == v}
        boards[stat] = LeaderBoard(
            rows=[
                Leader(
                    r["entry__player_id"],
                    r["entry__player__name"],
                    values[i],
                    r["matches"],
                    rank=ranks[i],
                    level=values[i] in level,
                )
                for i, r in enumerate(ranked[:named])
            ],
            rest=LevelRest(rank=ranks[named], value=values[named], count=counted)
            if counted
            else None,
        )
    return boards
