"""Reads of the brackets app: a stage loaded into plain dataclasses, standings, placings.

Fetch first, then compute (STYLE.md §2, Saleor): :func:`stage_data` loads everything a stage's
seating, standings and advancement need with a fixed number of queries (four, whatever the
number of players or rounds), and the pure :mod:`brackets.engine` computes on the result.
The live-standings pages reuse :func:`standings_for_stage` and :func:`standings_table`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils.translation import gettext as _

from brackets.engine import StandingRow, Standings
from brackets.models import Round, RoundMatch, Stage, StageEntry
from brackets.selectors.stage_data import (
    DONE_STATUSES,
    FINISHED,
    STANDINGS_KINDS,
    EntrantData,
    RoundData,
    SeatData,
    StageData,
    TableData,
    cut_advancement,
    fold_playoffs,
    playoff_decided,
    playoff_groups,
    playoff_ordered,
    playoff_verdict,
    round_records,
    stage_data,
    stage_data_for,
    stage_standings,
    standings_from_data,
)
from core.exceptions import NotFoundError
from scoring.models import Match, Seat

__all__ = [
    "DONE_STATUSES",
    "FINISHED",
    "STANDINGS_KINDS",
    "EntrantData",
    "Placing",
    "RoundData",
    "SeatData",
    "StageData",
    "StandingLine",
    "TableData",
    "cut_advancement",
    "fold_playoffs",
    "match_result_followed",
    "playoff_decided",
    "playoff_groups",
    "playoff_ordered",
    "playoff_verdict",
    "round_get",
    "round_id_for_match",
    "round_list",
    "round_records",
    "round_tables",
    "rounds_awaiting_advance",
    "stage_data",
    "stage_data_for",
    "stage_get",
    "stage_list",
    "stage_standings",
    "standings_for_stage",
    "standings_from_data",
    "standings_table",
    "tournament_placings",
    "went_on",
]


def went_on(data: StageData, rnd: RoundData) -> Callable[[int], bool | None]:
    """For a round of a knockout stage: entry id -> True (went on from this round), False
    (went out here) or None (not decided: the round is not closed, it is not a knockout or
    play-off round, or the player sits at a later play-off table still being played, T6)."""
    entrants = {e.entry_id: e for e in data.entrants}
    knockout = rnd.kind in (Round.Kind.KNOCKOUT, Round.Kind.PLAYOFF)
    # A later play-off table (T6) decides its players: undecided while it is played, then its
    # result, even before the director ends the stage (the stage's out-round is set only then).
    playing_off: set[int] = set()
    played_off: dict[int, bool | None] = {}
    for r in data.rounds:
        if r.kind != Round.Kind.PLAYOFF or r.number <= rnd.number:
            continue
        seated = [s.entry_id for t in r.tables for s in t.seats]
        result = playoff_result(data, r)
        if result is None:
            playing_off.update(seated)
        else:
            played_off.update(result)
    own = playoff_result(data, rnd) if rnd.kind == Round.Kind.PLAYOFF else None
    # Closed but not yet advanced (auto-advance off, or the director has not advanced it):
    # the losers' out-round is set by the advancement, so nobody is decided before it (T6).
    awaiting = (
        rnd.advanced_at is None
        and data.status != Stage.Status.FINISHED
        and not any(r.number > rnd.number for r in data.rounds)
    )

    def mark(entry_id: int) -> bool | None:
        e = entrants.get(entry_id)
        if e is None or not knockout:
            return None
        if own is not None and entry_id in own:
            # A player this play-off left level neither went on nor out here: a further
            # table decides, and its own round shows that (T3, T6).
            return own[entry_id]
        if rnd.status != Round.Status.CLOSED or awaiting or entry_id in playing_off:
            return None
        if entry_id in played_off:
            return played_off[entry_id]
        return e.out_round is None or e.out_round > rnd.number

    return mark


def playoff_result(data: StageData, rnd: RoundData) -> dict[int, bool | None] | None:
    """A play-off round's verdict once every table is played out: entry id -> goes on (its
    groups fit in the round's ``advancing`` spots, as the advancement folds it, T6), out, or
    ``None`` (still level on the line: a further play-off table decides). ``None`` while it
    is still played (or for a pairs stage, whose play-off orders partnerships)."""
    if rnd.kind != Round.Kind.PLAYOFF or not rnd.tables or not rnd.complete:
        return None
    if data.pairs is not None or rnd.advancing is None:
        return None
    players = list(rnd.playoff_players) or [s.entry_id for t in rnd.tables for s in t.seats]
    return playoff_verdict(rnd, players, rnd.advancing)


def standings_for_stage(*, stage_id: int) -> Standings:
    """The stage's standings by T5, computed with a constant number of queries (four)."""
    return standings_from_data(stage_data(stage_id=stage_id))


@dataclass(frozen=True, slots=True)
class StandingLine:
    """A standings row with the entrant's name, seed and status, for pages and the API."""

    row: StandingRow
    entrant: EntrantData


def standings_table(*, stage_id: int) -> list[StandingLine]:
    """Standings rows joined with entrant data (four queries)."""
    data = stage_data(stage_id=stage_id)
    by_entry = {e.entry_id: e for e in data.entrants}
    # A player replaced in a partnership (T11) has match lines but is no longer an entrant.
    # Play-off ties (T6) in the play-off's result, as the live standings list them.
    return [
        StandingLine(row=r, entrant=by_entry[r.player_id])
        for r in playoff_ordered(data, standings_from_data(data).rows)
        if r.player_id in by_entry
    ]


def stage_list(*, tournament_id: int) -> QuerySet[Stage]:
    return Stage.objects.filter(tournament_id=tournament_id).order_by("number")


def stage_get(*, stage_id: int, tournament_id: int | None = None) -> Stage:
    qs = Stage.objects.filter(pk=stage_id)
    if tournament_id is not None:
        qs = qs.filter(tournament_id=tournament_id)
    stage = qs.first()
    if stage is None:
        raise NotFoundError(f"No stage {stage_id}.", code="not_found")
    return stage


def round_get(*, round_id: int, tournament_id: int | None = None) -> Round:
    qs = Round.objects.select_related("stage").filter(pk=round_id)
    if tournament_id is not None:
        qs = qs.filter(stage__tournament_id=tournament_id)
    rnd = qs.first()
    if rnd is None:
        raise NotFoundError(f"No round {round_id}.", code="not_found")
    return rnd


def round_list(*, stage_id: int) -> QuerySet[Round]:
    return Round.objects.filter(stage_id=stage_id).order_by("number")


def round_tables(*, round_id: int) -> list[dict[str, Any]]:
    """Tables of a round with their seats and players, two queries."""
    links = list(
        RoundMatch.objects.filter(round_id=round_id)
        .select_related("match")
        .order_by("table_number")
    )
    seats: dict[int, list[dict[str, Any]]] = {}
    for s in (
        Seat.objects.filter(match__round_link__round_id=round_id)
        .order_by("match_id", "seat")
        .values(
            "match_id",
            "seat",
            "entry_id",
            "entry__player__name",
            "placing",
            "points",
            "hands_won",
            "forfeited",
        )
    ):
        seats.setdefault(s["match_id"], []).append(
            {
                "seat": s["seat"],
                "entry_id": s["entry_id"],
                "name": s["entry__player__name"],
                "placing": s["placing"],
                "points": s["points"],
                "hands_won": s["hands_won"],
                "forfeited": s["forfeited"],
            }
        )
    return [
        {
            "table_number": link.table_number,
            "match_id": link.match_id,
            "status": link.match.status,
            "end_reason": link.match.end_reason,
            "referee_id": link.match.referee_id,
            "seats": seats.get(link.match_id, []),
        }
        for link in links
    ]


def rounds_awaiting_advance() -> list[int]:
    """Rounds whose follow-up is due but not done: the reconciliation task's worklist.

    A published round whose matches are all finished or void (it should have closed), and a
    closed round of an auto-advancing stage, or a knockout's final or play-off table, that was
    not advanced (the task was lost between commit and publish, or its worker died,
    PITFALLS.md).
    """
    unfinished = RoundMatch.objects.filter(round_id=OuterRef("pk")).exclude(
        match__status__in=DONE_STATUSES
    )
    qs = (
        Round.objects.filter(advanced_at__isnull=True, advance_error="")
        .filter(
            Q(status=Round.Status.PUBLISHED, round_matches__isnull=False)
            | Q(status=Round.Status.CLOSED, stage__auto_advance=True)
            # The last stage's final ends the event in any stage (rounds._ends_the_event).
            | Q(
                status=Round.Status.CLOSED,
                stage__kind=Stage.Kind.KNOCKOUT,
                kind__in=[Round.Kind.FINAL, Round.Kind.PLAYOFF],
            )
        )
        .exclude(stage__status=Stage.Status.FINISHED)
        .annotate(pending=Exists(unfinished))
        .filter(pending=False)
        .order_by("id")
        .distinct()
    )
    return list(qs.values_list("id", flat=True))


def round_sudden_death_ids(*, round_id: int) -> set[int]:
    """The round's matches the director kept playing for a sudden-death hand when time was
    last called on it (T3): ``Match.sudden_death``, set by that call and cleared when a later
    call places them (a table that ended itself with its deciding hand keeps it)."""
    return set(
        Match.objects.filter(round_link__round_id=round_id, sudden_death=True).values_list(
            "pk", flat=True
        )
    )


def round_results_awaiting_confirmation(*, round_id: int) -> list[tuple[int, int]]:
    """(match id, table number) of the round's matches whose result waits for the players'
    confirmation (issue 15): calling time leaves them to finish when the players confirm."""
    return list(
        RoundMatch.objects.filter(
            round_id=round_id,
            match__status=Match.Status.IN_PROGRESS,
            match__confirmation_hold="result",
        )
        .order_by("table_number", "match_id")
        .values_list("match_id", "table_number")
    )


def round_id_for_match(*, match_id: int) -> int | None:
    return RoundMatch.objects.filter(match_id=match_id).values_list("round_id", flat=True).first()


def match_result_followed(match_id: int) -> str:
    """What the bracket already built on the match's result, for the director who corrects it
    (``core.result_readers``), or ``""``: once a round has advanced (``Round.advanced_at``),
    its follow-up was published from its results exactly once and is never re-paired (T1,
    T6). Two queries; reads only."""
    link = (
        RoundMatch.objects.filter(match_id=match_id, round__advanced_at__isnull=False)
        .select_related("round__stage")
        .first()
    )
    if link is None:
        return ""
    rnd = link.round
    later = (
        Round.objects.filter(stage_id=rnd.stage_id, number__gt=rnd.number)
        .order_by("number")
        .values_list("number", flat=True)
        .first()
    )
    words = {"stage": rnd.stage.name, "number": later, "round": rnd.number}
    if later is not None:
        return (
            _(
                "Round %(number)s of %(stage)s is already published, paired on the results "
                "of round %(round)s: it stands and is not re-paired."
            )
            % words
        )
    if rnd.stage.status == Stage.Status.FINISHED:
        return (
            _(
                "%(stage)s already finished on the results of round %(round)s, and who goes "
                "on was decided from them: that stands and is not redone."
            )
            % words
        )
    return _("Round %(round)s of %(stage)s has already advanced: what followed it stands.") % words


@dataclass(frozen=True, slots=True)
class Placing:
    """An entrant's final place in the tournament: their place in the deepest stage reached."""

    entry_id: int
    place: int
    stage_number: int
    name: str


def tournament_placings(*, tournament_id: int) -> list[Placing]:
    """Final places of every entrant who has one, best first (one query).

    Stage places are absolute (a knockout stage's 5th is the tournament's 5th; a qualifying
    stage's eliminated players place after the next stage's field), so the place in the deepest
    stage an entrant reached is their tournament place.
    """
    best: dict[int, Placing] = {}
    for entry_id, place, number, name in (
        StageEntry.objects.filter(stage__tournament_id=tournament_id, placing__isnull=False)
        .order_by("stage__number")
        .values_list("entry_id", "placing", "stage__number", "entry__player__name")
    ):
        best[entry_id] = Placing(entry_id, int(place or 0), number, name)
    return sorted(best.values(), key=lambda p: (p.place, p.entry_id))
