"""The printable results sheet of a round: ``/live/<slug>/rounds/<round_id>/results/``.

One page per round for the notice board or the records: every table with its players in seat
order, their placing (T4), points and hands won, how the match ended (T3 time, T7 forfeit, a
director's result) and who had a bye. A finished match's points and hands are its standings
lines (``brackets.selectors.stage_data.standings_line``, T5): a forfeit is a 0-6 loss with no
points and no hands, and the players who played on count at the continuation, not here (T7).
A print stylesheet (``static/css/results.css``) drops the site's header and fits a round of 250
tables on numbered A4 pages; on a phone the table scrolls inside its own box. Public, like the
standings: a draft tournament answers 404 (``live.http.live_conditional``).

Everything the page says is in the visitor's language, statuses and end reasons included
(:func:`core.choice_labels.choice_label`). The page is rendered per request, never stored: its
weak ETag names the language (``live.http.html_etag``) and it varies on ``Accept-Language``
and ``Cookie``, so a Spanish copy is never revalidated for an English visitor.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from brackets.models import Round, RoundMatch
from brackets.selectors.pairs import round_byes_named
from brackets.selectors.stage_data import counted_lines, seat_data
from core.choice_labels import choice_label
from dominoes.digits import parse_int
from live.http import live_conditional, request_tournament
from scoring.engine.placing import seat_side_places
from scoring.models import Match, Seat
from scoring.presenters.match import forfeit_words
from tournament.models import Entry

SEAT_LETTERS = "ABCD"


def round_results(round_id: int, tournament_id: int) -> dict[str, Any] | None:
    rnd = (
        Round.objects.select_related("stage__tournament")
        .filter(pk=round_id, stage__tournament_id=tournament_id)
        .first()
    )
    if rnd is None:
        return None
    links = list(
        RoundMatch.objects.filter(round=rnd)
        .order_by("table_number", "match_id")
        .values_list("table_number", "match_id")
    )
    matches = {
        m["id"]: m
        for m in Match.objects.filter(pk__in=[mid for _, mid in links]).values(
            "id", "status", "end_reason", "hands_count", "continues_id"
        )
    }
    seats: dict[int, list[dict[str, Any]]] = {mid: [] for _, mid in links}
    for s in (
        Seat.objects.filter(match_id__in=list(seats))
        .order_by("match_id", "seat")
        .values(
            "match_id",
            "seat",
            "placing",
            "points",
            "hands_won",
            "six_love_given",
            "six_love_received",
            "llaves",
            "ties",
            "replays_won",
            "forfeited",
            "entry_id",
            "entry__player__name",
            "entry__player__nickname",
        )
    ):
        seats[s["match_id"]].append({**s, "letter": SEAT_LETTERS[s["seat"]], "place": s["placing"]})
    if rnd.stage.pairs:
        # R42/T4: a partner's place is the partnership's (1st or 2nd of the two), as the round
        # page and the bracket read it, not the seat placing (1, 3) the match stores.
        for rows in seats.values():
            if len(rows) == 4:
                places = seat_side_places(
                    [r["placing"] for r in rows], [r["forfeited"] for r in rows]
                )
                for r, place in zip(rows, places, strict=True):
                    r["place"] = place
    forfeits: dict[int, str] = {}
    for mid, rows in seats.items():
        if matches[mid]["status"] == Match.Status.FINISHED:
            forfeits[mid] = _count_as_standings(mid, rows, pairs=rnd.stage.pairs)
    tables = [
        {
            "table": table,
            "match_id": mid,
            "continuation": matches[mid]["continues_id"] is not None,
            "status": choice_label(Match.Status, matches[mid]["status"]),
            "finished": matches[mid]["status"] == Match.Status.FINISHED,
            "end": forfeits.get(mid)
            or (
                choice_label(Match.EndReason, matches[mid]["end_reason"])
                if matches[mid]["end_reason"] != Match.EndReason.NORMAL
                else ""
            ),
            "forfeit": bool(forfeits.get(mid)),
            "hands": matches[mid]["hands_count"],
            "seats": seats[mid],
        }
        for table, mid in links
    ]
    if rnd.stage.pairs:
        # T9, T11: by partnership, named as the bracket and round pages name it.
        byes = [p.label for p in round_byes_named(rnd)] if rnd.byes else []
    else:
        byes = list(
            Entry.objects.filter(
                pk__in=[pk for b in rnd.byes if (pk := parse_int(str(b))) is not None]
            )
            .order_by("player__name")
            .values_list("player__name", flat=True)
        )
    return {
        "forfeits": any(t["forfeit"] for t in tables),
        "round": rnd,
        "round_name": _round_name(rnd),
        "tables": tables,
        "byes": byes,
        "pairs": rnd.stage.pairs,
        # Physical tables, as the round page counts them: a forfeited match and its
        # continuation (T7) are one table, finished when no match of it is still open.
        "table_count": len({t["table"] for t in tables}),
        "finished": len(
            {t["table"] for t in tables} - {t["table"] for t in tables if not t["finished"]}
        ),
    }


def _count_as_standings(match_id: int, rows: list[dict[str, Any]], *, pairs: bool) -> str:
    """Set a finished match's seats' ``counted_points`` and ``counted_hands`` as the standings
    count them (:func:`brackets.selectors.stage_data.counted_lines`, T5, T7; None for a seat
    with no line here: played on at the continuation, ``played_on``). Returns the forfeit's
    words (T7) when the match was forfeited, else ""."""
    forfeited = [r for r in rows if r["forfeited"]]
    # R42, T7: a forfeit at a partnership table is the partnership's 0-6 loss.
    lost_sides = {r["seat"] % 2 for r in forfeited} if pairs and len(rows) == 4 else set()
    lines = counted_lines(match_id, [seat_data(r) for r in rows], partners=pairs)
    for r, line in zip(rows, lines, strict=True):
        r["counted_points"] = None if line is None else line.points
        r["counted_hands"] = None if line is None else line.hands_won
        r["played_on"] = line is None and bool(forfeited)
    if not forfeited:
        return ""
    name = ", ".join(str(r["entry__player__name"]) for r in forfeited)
    side = " & ".join(str(r["entry__player__name"]) for r in rows if r["seat"] % 2 in lost_sides)
    return forfeit_words(name, side=side)


def _round_name(rnd: Round) -> str:
    """ "Round 2", "Knockout round 1", "Final table"... in the active language."""
    if rnd.kind == Round.Kind.SWISS:
        return _("Round %(n)s") % {"n": rnd.number}
    if rnd.kind == Round.Kind.KNOCKOUT:
        return _("Knockout round %(n)s") % {"n": rnd.number}
    return choice_label(Round.Kind, rnd.kind)


@live_conditional(html=True)
def results_sheet(request: HttpRequest, slug: str, round_id: int) -> HttpResponse:
    data = round_results(round_id, request_tournament(request).id)
    if data is None:
        raise Http404("No such round in this tournament.")
    return render(
        request,
        "archive/round_results.html",
        {"tournament": data["round"].stage.tournament, **data},
    )
