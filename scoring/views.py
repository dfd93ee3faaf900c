"""Pages: the referee's match page (and its live panel), the referee's match list, the
director's tournament dashboard.

Pages only read and render; every write goes through the JSON API (``scoring.api``), which
calls the services. Who may see what:

* a match page: the match's referee, a director of its tournament, or a superuser;
* the referee's list: the signed-in user's own matches;
* the dashboard: a director of the tournament, or a superuser.

Anonymous visitors are sent to the login page; signed-in users without the right get 403.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.db.models import Max, Prefetch, Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import condition, require_GET

from scoring.error_messages import error_messages_json
from scoring.match_page import DASH, SEAT_LETTERS, match_view, ruleset_of, seat_label
from scoring.models import Hand, Match, Seat
from tournament.models import Tournament
from tournament.selectors import user_is_director

LIVE_STATUSES = (Match.Status.IN_PROGRESS, Match.Status.SCHEDULED)
DASHBOARD_REFRESH_SECONDS = 15


# -- loading ------------------------------------------------------------------------------------


def _seats_prefetch() -> Prefetch[Any]:
    return Prefetch(
        "seats",
        queryset=Seat.objects.select_related("entry__player").order_by("seat"),
    )


def _match_for_page(match_id: int) -> Match:
    """The match with everything the page shows: 3 queries (match, seats, hands)."""
    try:
        return (
            Match.objects.select_related(
                "tournament", "table", "referee", "round_link__round__stage"
            )
            .prefetch_related(
                _seats_prefetch(),
                Prefetch("hands", queryset=Hand.objects.order_by("number", "id")),
            )
            .get(pk=match_id)
        )
    except Match.DoesNotExist:
        raise Http404("No such match.") from None


def _can_see_match(user: Any, match: Match) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_superuser or match.referee_id == user.pk:
        return True
    return user_is_director(user=user, tournament_id=match.tournament_id)


def _admin_url(name: str, *args: Any) -> str | None:
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return None


def _panel_context(request: HttpRequest, match: Match) -> dict[str, Any]:
    seats = list(match.seats.all())
    hands = list(match.hands.all())
    view = match_view(match, seats, hands)
    is_director = bool(request.user.is_superuser) or user_is_director(
        user=request.user, tournament_id=match.tournament_id
    )
    # Whether the page offers the forms; the API decides for real.
    may_write = is_director or match.referee_id == request.user.pk
    in_progress = match.status == Match.Status.IN_PROGRESS
    # The service lets a director undo the hand that ended a match (normal end only).
    finished_normally = (
        match.status == Match.Status.FINISHED and match.end_reason == Match.EndReason.NORMAL
    )
    return {
        "match": match,
        "view": view,
        "seat_letters": SEAT_LETTERS,
        "can_record": in_progress and may_write,
        "can_undo": (in_progress and may_write) or (finished_normally and is_director),
        "is_director": is_director,
        "recent_hands": list(reversed(view.hands))[:12],
        "error_messages": error_messages_json(),
        "offline_preview": _offline_preview(match, in_progress),
        "poser_label": next(
            (s.label for s in view.seats if view.next_hand and s.seat == view.next_hand.poser),
            "",
        ),
    }


def _offline_preview(match: Match, in_progress: bool) -> str:
    """What the referee page's JS reducer continues from while offline (issue 15): the frozen
    ruleset and the engine snapshot of the current version; "" when there is none."""
    snapshot = match.engine_state or {}
    if not in_progress or snapshot.get("match_version") != match.version:
        return ""
    return json.dumps({"ruleset": ruleset_of(match).to_json(), "state": snapshot.get("state")})


# -- referee pages ------------------------------------------------------------------------------


@never_cache
@login_required
@require_GET
def match_referee(request: HttpRequest, match_id: int) -> HttpResponse:
    """``/matches/<id>/``: the referee's phone page for one match."""
    match = _match_for_page(match_id)
    if not _can_see_match(request.user, match):
        raise PermissionDenied(_("You do not referee this match."))
    context = _panel_context(request, match)
    context.update(
        {
            "csrf_token_value": get_token(request),
            "hands_url": reverse("scoring-api:hand-list", args=[match.pk]),
            "void_url": reverse("scoring-api:hand-void-last", args=[match.pk]),
            "panel_url": reverse("scoring:match-panel", args=[match.pk]),
            "admin_url": _admin_url("admin:scoring_match_change", match.pk),
            "round_title": _round_title(match),
        }
    )
    return render(request, "scoring/match_referee.html", context)


@never_cache
@login_required
@require_GET
def match_panel(request: HttpRequest, match_id: int) -> HttpResponse:
    """``/matches/<id>/panel/``: the live part of the match page, swapped in after each hand."""
    match = _match_for_page(match_id)
    if not _can_see_match(request.user, match):
        raise PermissionDenied(_("You do not referee this match."))
    return render(request, "scoring/_match_panel.html", _panel_context(request, match))


def _round_title(match: Match) -> str:
    """ "Qualifying · Round 2": which round a match belongs to, so two "Table 1" rows differ.

    The round is the brackets app's (reached through the ``round_link`` relation it declares,
    no import): a match outside any round has no title.
    """
    try:
        link = match.round_link
    except ObjectDoesNotExist:
        return ""
    rnd = link.round
    kinds = {
        "swiss": _("Round %(n)s"),
        "knockout": _("Knockout round %(n)s"),
        "final": _("Final table"),
        "playoff": _("Play-off table"),
    }
    title = kinds.get(rnd.kind, _("Round %(n)s")) % {"n": rnd.number}
    return f"{rnd.stage.name} · {title}"


@never_cache
@login_required
@require_GET
def referee_home(request: HttpRequest) -> HttpResponse:
    """``/referee/``: my matches. ``?go=1`` (from the private link) forwards straight to the
    match in progress when there is exactly one."""
    matches = list(
        Match.objects.filter(referee_id=request.user.pk)
        .select_related("tournament", "table", "round_link__round__stage")
        .prefetch_related(_seats_prefetch())
        .order_by("tournament__slug", "table__number", "id")
    )
    slug = request.GET.get("tournament")
    if slug:
        matches = [m for m in matches if m.tournament.slug == slug]
    if request.GET.get("go"):
        current = [m for m in matches if m.status == Match.Status.IN_PROGRESS]
        if not current:
            current = [m for m in matches if m.status == Match.Status.SCHEDULED]
        if len(current) == 1:
            return HttpResponseRedirect(reverse("scoring:match-referee", args=[current[0].pk]))
    order: dict[str, int] = {Match.Status.IN_PROGRESS: 0, Match.Status.SCHEDULED: 1}
    matches.sort(key=lambda m: (order.get(m.status, 2), -m.pk if m.status not in order else m.pk))
    rows = [
        {
            "match": m,
            "round": _round_title(m),
            "names": ", ".join(seat_label(s.seat, s.entry.player.name) for s in m.seats.all()),
            "score": DASH.join(str(s) for s in (m.scores or [])),
        }
        for m in matches
    ]
    return render(request, "scoring/referee_home.html", {"rows": rows})


# -- director dashboard ---------------------------------------------------------------------


def _dashboard_tournament(request: HttpRequest, slug: str) -> Tournament:
    try:
        tournament = Tournament.objects.get(slug=slug)
    except Tournament.DoesNotExist:
        raise Http404("No such tournament.") from None
    user = request.user
    if not (user.is_superuser or user_is_director(user=user, tournament_id=tournament.pk)):
        raise PermissionDenied(_("Only a director of this tournament may see its dashboard."))
    return tournament


def _dashboard_matches(tournament: Tournament) -> QuerySet[Match]:
    return (
        Match.objects.filter(tournament=tournament)
        .select_related("table", "referee")
        .prefetch_related(_seats_prefetch())
        .annotate(last_hand_at=Max("hands__recorded_at", filter=Q(hands__void=False)))
        .order_by("table__number", "id")
    )


def _dashboard_context(tournament: Tournament) -> dict[str, Any]:
    rows = []
    counts: dict[str, int] = {}
    for m in _dashboard_matches(tournament):
        counts[m.status] = counts.get(m.status, 0) + 1
        scores = list(m.scores or [])
        seats = [
            {
                "letter": SEAT_LETTERS[s.seat],
                "name": s.entry.player.name,
                "score": scores[s.seat] if s.seat < len(scores) else 0,
                "love": (scores[s.seat] if s.seat < len(scores) else 0) == 0,
                "winner": m.winner_seat == s.seat,
            }
            for s in m.seats.all()
        ]
        rows.append(
            {
                "match": m,
                "seats": seats,
                "admin_url": _admin_url("admin:scoring_match_change", m.pk),
                "page_url": reverse("scoring:match-referee", args=[m.pk]),
            }
        )
    return {
        "tournament": tournament,
        "rows": rows,
        "counts": counts,
        "refresh_seconds": DASHBOARD_REFRESH_SECONDS,
        "admin_tournament_url": _admin_url("admin:tournament_tournament_change", tournament.pk),
        "rows_url": reverse("scoring:director-dashboard-rows", args=[tournament.slug]),
    }


def _dashboard_etag(request: HttpRequest, slug: str) -> str | None:
    # The tournament's version is bumped in every recording transaction (PITFALLS.md), so an
    # unchanged version means unchanged rows: answer 304 without rendering. The user is part
    # of the tag so one director's cached copy is never valid for another account.
    row = Tournament.objects.filter(slug=slug).values_list("id", "version").first()
    user = request.user
    if row is None or not user.is_authenticated:
        return None
    if not (user.is_superuser or user_is_director(user=user, tournament_id=row[0])):
        return None  # the view answers 403
    return f"t{row[0]}-v{row[1]}-u{user.pk}"


@never_cache
@login_required
@require_GET
def director_dashboard(request: HttpRequest, slug: str) -> HttpResponse:
    """``/director/tournaments/<slug>/``: every match, its table, referee, status and score."""
    tournament = _dashboard_tournament(request, slug)
    return render(request, "scoring/director_dashboard.html", _dashboard_context(tournament))


@login_required
@require_GET
@condition(etag_func=_dashboard_etag)
def director_dashboard_rows(request: HttpRequest, slug: str) -> HttpResponse:
    """The dashboard's table body, polled by the page (conditional GET: 304 when unchanged)."""
    tournament = _dashboard_tournament(request, slug)
    response = render(request, "scoring/_dashboard_rows.html", _dashboard_context(tournament))
    response["Cache-Control"] = "private, no-cache"
    return response
