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
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.db.models import F, Max, Prefetch, Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import condition, require_GET

from core.exceptions import NotFoundError, PermissionDeniedError
from core.titles import match_round_title
from scoring.engine import RuleViolation
from scoring.engine.match import match_start as engine_match_start
from scoring.engine.rules import Opening
from scoring.engine.snapshot import state_to_json
from scoring.error_messages import error_messages_json
from scoring.models import Hand, Match, Seat
from scoring.presenters.clock import match_round_clock, round_clock
from scoring.presenters.confirmation import confirmation_panel, dispute_decision, placing_words
from scoring.presenters.match import DASH, SEAT_LETTERS, match_view, ruleset_of, seat_label
from scoring.presenters.partnership import pair_names_by_match, partnership_sides
from scoring.selectors import hand_decided_on_dispute
from tournament.context import (
    PUBLIC_STATUSES,
    Action,
    Principal,
    Role,
    TournamentContext,
    context_for,
    principal_from_request,
    require,
)
from tournament.models import Tournament
from tournament.selectors import signed_in_name

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


def match_page_context(request: HttpRequest, match: Match) -> TournamentContext:
    """The one tournament context of a match page, and the one check: the match's assigned
    referee (a credential of its tournament) or a director; 404 for a hidden draft."""
    try:
        ctx = context_for(request, tournament=match.tournament)
        require(ctx, Action.VIEW_MATCH)
    except NotFoundError as exc:
        raise Http404(exc.message) from exc
    except PermissionDeniedError as exc:
        raise PermissionDenied(_("You do not referee this match.")) from exc
    if not ctx.is_director and match.referee_id != ctx.actor.pk:
        raise PermissionDenied(_("You do not referee this match."))
    return ctx


def _signed_in_or_referee(request: HttpRequest) -> Principal | None:
    principal = principal_from_request(request)
    return None if principal.is_anonymous else principal


def _may_use_admin(request: HttpRequest, perm: str) -> bool:
    """Whether the signed-in user may open the Django admin's page behind ``perm`` (active
    staff holding it). A director who is not staff runs the event from the product's pages:
    an admin link would only show them the admin's staff-only login."""
    user = request.user
    return bool(user.is_active and user.is_staff and user.has_perm(perm))


def _admin_url(request: HttpRequest, perm: str, name: str, *args: Any) -> str | None:
    """The Django admin page ``name`` for a user who may use it (:func:`_may_use_admin`)."""
    if not _may_use_admin(request, perm):
        return None
    return _admin_reverse(name, *args)


def _admin_reverse(name: str, *args: Any) -> str | None:
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return None


def _panel_context(request: HttpRequest, match: Match) -> dict[str, Any]:
    seats = list(match.seats.all())
    hands = list(match.hands.all())
    view = match_view(match, seats, hands)
    ctx = context_for(request, tournament=match.tournament)
    is_director = ctx.is_director
    # Whether the page offers the forms; the API decides for real.
    may_write = (is_director or match.referee_id == ctx.actor.pk) and ctx.can(Action.RECORD_HAND)
    # A scheduled match starts with its first hand (scoring.services._start_with_first_hand).
    in_progress = match.status in (Match.Status.IN_PROGRESS, Match.Status.SCHEDULED)
    # The service lets a director undo the hand that ended a match (normal end only).
    finished_normally = (
        match.status == Match.Status.FINISHED and match.end_reason == Match.EndReason.NORMAL
    )
    # A director's way back from the match to its round, where what follows is decided
    # (user test: after the last hand the page led only to "My matches" and the dashboard).
    round_url = _round_page_url(match) if is_director else ""
    # Issue 15: a hand standing by a director's dispute decision is the director's to undo.
    last_hand = next((h for h in reversed(hands) if not h.void), None)
    decided_last = bool(
        not is_director
        and match.confirmation
        and last_hand is not None
        and hand_decided_on_dispute(match_id=match.pk, hand=last_hand)
    )
    return {
        # Confirmation at the table (issue 15): the players' block of the panel.
        "table_confirm": confirmation_panel(match, view, hands, may_write=may_write),
        "dispute_decision": dispute_decision(match, view) if may_write else "",
        "match": match,
        "view": view,
        "seat_letters": SEAT_LETTERS,
        "can_record": in_progress and may_write,
        # T3: time was called and the director ordered this table a sudden-death hand.
        "sudden_death": in_progress and match.sudden_death,
        # The round's clock while the table plays (T2); at zero, what T3 asks of the table.
        "round_clock": match_round_clock(match) if in_progress else None,
        "clock_over": _(
            "Time! Finish the hand in progress and record it: then the match stops (T3)."
        ),
        "can_undo": (in_progress and may_write and (is_director or not decided_last))
        or (finished_normally and is_director),
        # Move-by-move entry records a hand: offered only while one can be recorded (not on
        # a finished or void match, nor one held for the players' confirmation, issue 15).
        "moves_link": in_progress
        and not match.confirmation_hold
        and match.tournament.status != Tournament.Status.FINISHED
        and (is_director or bool(match.table and match.table.feature)),
        "is_director": is_director,
        # The referee's last look after the finish (a short read, tournament.principal).
        "tournament_finished": match.tournament.status == Tournament.Status.FINISHED,
        "recent_hands": list(reversed(view.hands))[:12],
        # Live hands entered move by move link to their spectator replay (issue 15), once the
        # tournament is public (a draft has no public pages).
        "replays": {h.number for h in hands if not h.void and h.play_log is not None}
        if match.tournament.status in PUBLIC_STATUSES
        else set(),
        "error_messages": error_messages_json(),
        "offline_preview": _offline_preview(match, in_progress),
        "poser_label": next(
            (s.label for s in view.seats if view.next_hand and s.seat == view.next_hand.poser),
            "",
        ),
        "continuation_url": _continuation_url(match, ctx, is_director),
        "round_url": round_url,
        # A referee's way on to their next table; a director's is the round page (above),
        # unless they referee this match themselves.
        "my_matches_link": not round_url or match.referee_id == ctx.actor.pk,
    }


def _round_page_url(match: Match) -> str:
    """The director's round page of ``match`` (where the round's next step is), at its
    table's row; "" for a match outside any round. The round is the brackets app's, read
    through the ``round_link`` relation loaded with the match (no query, no import)."""
    try:
        link = match.round_link  # brackets.RoundMatch (its reverse one-to-one)
    except ObjectDoesNotExist:
        return ""
    url = reverse("brackets:round", args=[match.tournament.slug, link.round_id])
    return f"{url}#match-{match.pk}"


def _continuation_url(match: Match, ctx: TournamentContext, is_director: bool) -> str:
    """The match the players left play on in after a forfeit (T7), for whoever referees it
    (one query, only for a forfeited match); "" otherwise."""
    if match.end_reason != Match.EndReason.FORFEIT:
        return ""
    row = Match.objects.filter(continues_id=match.pk).values("pk", "referee_id").first()
    if row is None or not (is_director or row["referee_id"] == ctx.actor.pk):
        return ""
    return reverse("scoring:match-referee", args=[row["pk"]])


def referee_poll_seconds() -> int:
    """How often the referee page reads its match while it has no live socket
    (REFEREE_POLL_SECONDS; static/js/live.js never polls under 5 s)."""
    return max(5, int(getattr(settings, "REFEREE_POLL_SECONDS", 20)))


def _offline_preview(match: Match, in_progress: bool) -> str:
    """What the referee page's JS reducer continues from while offline (issue 15): the frozen
    ruleset and the engine snapshot of the current version, and whether the first hand won
    ends the match (a sudden-death table, T3); "" when there is none."""
    snapshot = match.engine_state or {}
    if not in_progress:
        return ""
    state = snapshot.get("state") if snapshot.get("match_version") == match.version else None
    ruleset = ruleset_of(match)
    if state is None and match.status == Match.Status.SCHEDULED and not match.hands_count:
        # A match starts with its first hand (scoring.services): a table whose phone is
        # offline from the start of the round drew nothing from its queue, and went on
        # asking for "Hand 1" with the forced pose and no score. The state before the first
        # hand is the engine's opening (R25, R5), as the first hand will start it. Under
        # lot_then_rotate the lot winner is only known from that hand (R6): no preview.
        if ruleset.opening is Opening.LOT_THEN_ROTATE:
            return ""
        try:
            state = state_to_json(engine_match_start(ruleset, match.n_players))
        except RuleViolation:
            return ""
    if state is None:
        return ""
    return json.dumps(
        {
            "ruleset": ruleset.to_json(),
            "state": state,
            "sudden_death": match.sudden_death,
        }
    )


# -- referee pages ------------------------------------------------------------------------------


@never_cache
@require_GET
def match_referee(request: HttpRequest, match_id: int) -> HttpResponse:
    """``/matches/<id>/``: the referee's phone page for one match."""
    if _signed_in_or_referee(request) is None:
        return redirect_to_login(request.get_full_path())
    match = _match_for_page(match_id)
    match_page_context(request, match)
    context = _panel_context(request, match)
    context.update(
        {
            "csrf_token_value": get_token(request),
            "hands_url": reverse("scoring-api:hand-list", args=[match.pk]),
            "void_url": reverse("scoring-api:hand-void-last", args=[match.pk]),
            "panel_url": reverse("scoring:match-panel", args=[match.pk]),
            "admin_url": _admin_url(
                request, "scoring.change_match", "admin:scoring_match_change", match.pk
            ),
            "round_title": match_round_title(match),
            # The match's live events (live/consumers.py MatchConsumer), as the spectators'
            # match page follows them: public data only (versions); the page then reads the
            # panel above, its own authorised read. A draft has no public stream (the socket
            # would be refused), so the page polls instead (as the dashboard does).
            "ws_url": ""
            if match.tournament.status == Tournament.Status.DRAFT
            else f"/ws/live/{match.tournament.slug}/matches/{match.pk}/",
            "poll_seconds": referee_poll_seconds(),
            "placing_words": placing_words(),
        }
    )
    return render(request, "scoring/match_referee.html", context)


@never_cache
@require_GET
def match_panel(request: HttpRequest, match_id: int) -> HttpResponse:
    """``/matches/<id>/panel/``: the live part of the match page, swapped in after each hand."""
    if _signed_in_or_referee(request) is None:
        return redirect_to_login(request.get_full_path())
    match = _match_for_page(match_id)
    match_page_context(request, match)
    return render(request, "scoring/_match_panel.html", _panel_context(request, match))


@never_cache
@require_GET
def referee_home(request: HttpRequest) -> HttpResponse:
    """``/referee/``: my matches (a referee credential's, in its one tournament). ``?go=1``
    (from the private link) forwards straight to the match in progress when there is one."""
    principal = _signed_in_or_referee(request)
    if principal is None:
        return redirect_to_login(request.get_full_path())
    referee = principal.referee
    if referee is None:
        matches_qs = Match.objects.none()
    else:
        matches_qs = Match.objects.filter(
            referee_id=referee.pk, tournament_id=referee.tournament_id
        )
    matches = list(
        matches_qs.select_related("tournament", "table", "round_link__round__stage")
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
    pair_names = pair_names_by_match(matches)
    rows = []
    for m in matches:
        seats = list(m.seats.all())
        scores = list(m.scores or [])
        # R42: a partnership match is AC against BD; the page names the partnerships, each
        # with its score, rather than four seats.
        sides = partnership_sides(
            m,
            ruleset_of(m),
            [s.entry.player.name for s in seats],
            scores or [0, 0, 0, 0],
            pair_names=pair_names.get(m.pk, {}),
        )
        rows.append(
            {
                "match": m,
                "round": match_round_title(m),
                "sides": sides,
                "names": ", ".join(seat_label(s.seat, s.entry.player.name) for s in seats),
                "score": (
                    f" {DASH} ".join(f"{side.letters} {side.score}" for side in sides)
                    if sides and scores
                    else DASH.join(str(s) for s in scores)
                ),
            }
        )
    signed_in_as = signed_in_name(
        user=principal.user, credential_id=referee.credential_id if referee else None
    )
    return render(
        request,
        "scoring/referee_home.html",
        {
            "rows": rows,
            "signed_in_as": signed_in_as,
            # The short read after the finish (tournament.principal.session_referee).
            "tournament_finished": bool(referee and referee.read_only),
        },
    )


# -- director dashboard ---------------------------------------------------------------------


def _dashboard_tournament(request: HttpRequest, slug: str) -> Tournament:
    try:
        ctx = context_for(request, slug=slug)
        require(ctx, Action.VIEW_PRIVATE)
    except NotFoundError:
        raise Http404("No such tournament.") from None
    except PermissionDeniedError:
        raise PermissionDenied(
            _("Only a director of this tournament may see its dashboard.")
        ) from None
    return ctx.tournament


def _dashboard_matches(tournament: Tournament) -> QuerySet[Match]:
    # The round of each match is read through the ``round_link`` relation the brackets app
    # declares on Match (by name: scoring never imports brackets); matches outside any round
    # (a demo, an API-created match) get None and are shown in their own group.
    return (
        Match.objects.filter(tournament=tournament)
        .select_related("table", "referee")
        .prefetch_related(_seats_prefetch())
        .annotate(
            last_hand_at=Max("hands__recorded_at", filter=Q(hands__void=False)),
            round_id=F("round_link__round_id"),
            round_number=F("round_link__round__number"),
            round_kind=F("round_link__round__kind"),
            round_published_at=F("round_link__round__published_at"),
            round_time_limit=F("round_link__round__time_limit"),
            round_clock_started_at=F("round_link__round__clock_started_at"),
            round_time_called_at=F("round_link__round__time_called_at"),
            round_status=F("round_link__round__status"),
            stage_number=F("round_link__round__stage__number"),
            stage_name=F("round_link__round__stage__name"),
            table_in_round=F("round_link__table_number"),
        )
        .order_by("table__number", "id")
    )


def idle_minutes() -> int:
    """Minutes without a hand after which a table in play is flagged (DIRECTOR_IDLE_MINUTES)."""
    return max(1, int(getattr(settings, "DIRECTOR_IDLE_MINUTES", 10)))


def _last_activity(m: Any) -> datetime | None:
    """When the table last did something: its last hand, its start, or its publication."""
    when: datetime | None = m.last_hand_at or m.started_at or m.round_published_at or m.created_at
    return when


def _dashboard_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    groups: dict[Any, dict[str, Any]] = {}
    counts: dict[str, int] = {}
    now = timezone.now()
    limit = timedelta(minutes=idle_minutes())
    idle: list[dict[str, Any]] = []
    edit_matches = _may_use_admin(request, "scoring.change_match")
    matches = list(_dashboard_matches(tournament))
    for match in matches:
        match.tournament = tournament  # the entry format and ruleset are read from it: no query
    # A pairs event's registered partnership names (T9), one query for every match.
    pair_names = pair_names_by_match(matches)

    def group_key(m: Any) -> tuple[int, int] | None:
        return (m.stage_number, m.round_number) if m.round_id else None

    def order_key(key: tuple[int, int] | None, open_: bool) -> tuple[int, int, int]:
        # Rounds with tables still playing first (the latest first), then finished rounds
        # from the latest back; matches outside any round last.
        if key is None:
            return (2, 0, 0)
        stage_n, round_n = key
        return (0 if open_ else 1, -(stage_n or 0), -(round_n or 0))

    # A finished round other than the current one is folded to its heading and a link to
    # its round page: at a big event every round's tables (75 a round for 300 players) were
    # drawn again on every hand pushed, growing with each round.
    open_keys = {group_key(m) for m in matches if m.status in LIVE_STATUSES}
    round_keys = {group_key(m) for m in matches} - {None}
    current_key = min(round_keys, key=lambda k: order_key(k, k in open_keys), default=None)
    for match in matches:
        m: Any = match  # with the annotations above
        counts[m.status] = counts.get(m.status, 0) + 1
        key = group_key(m)
        folded = key is not None and key not in open_keys and key != current_key
        group = groups.get(key)
        if group is None:
            group = groups[key] = {
                "key": key,
                "round_id": m.round_id,
                "title": (
                    f"{m.stage_name} · " + _("Round %(n)s") % {"n": m.round_number}
                    if m.round_id
                    else _("Matches outside any round")
                ),
                "rows": [],
                # The round's clock (T2, T3), shown while it has tables in play (below).
                "clock": round_clock(
                    time_limit=m.round_time_limit,
                    clock_started_at=m.round_clock_started_at,
                    time_called_at=m.round_time_called_at,
                    status=m.round_status,
                )
                if m.round_id
                else None,
                "open": 0,
                "playing": 0,
                "waiting": 0,
                "folded": folded,
                "tables": 0,
            }
        group["tables"] += 1
        if folded:
            continue
        scores = list(m.scores or [])
        # R42: a partnership match reads AC against BD, each with its one score, as the round
        # page and the referee's list show it; an individual one seat by seat.
        sides = partnership_sides(
            m,
            ruleset_of(m),
            [s.entry.player.name for s in m.seats.all()],
            scores or [0, 0, 0, 0],
            pair_names=pair_names.get(m.pk, {}),
        )
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
        open_ = m.status in LIVE_STATUSES
        last = _last_activity(m) if open_ else None
        is_idle = bool(last is not None and now - last > limit)
        table = m.table_in_round or (m.table.number if m.table else None)
        row = {
            "match": m,
            "seats": seats,
            "sides": sides,
            "table": table,
            "admin_url": (
                _admin_reverse("admin:scoring_match_change", m.pk) if edit_matches else None
            ),
            "page_url": reverse("scoring:match-referee", args=[m.pk]),
            "last_activity": last,
            "idle": is_idle,
            "idle_minutes": int((now - last).total_seconds() // 60) if last else 0,
        }
        if is_idle:
            idle.append(row)
        group["rows"].append(row)
        group["open"] += open_
        # "Playing" is a table with its first hand recorded; a published table waits.
        group["playing"] += m.status == Match.Status.IN_PROGRESS
        group["waiting"] += m.status == Match.Status.SCHEDULED

    ordered = sorted(groups.values(), key=lambda g: order_key(g["key"], bool(g["open"])))
    for g in ordered:
        if g["clock"] is not None:
            # A finished round's clock says nothing; after time is called (T3), the tables
            # the director kept for a sudden-death hand play on (the spectators' count).
            g["clock"] = {**g["clock"], "open_tables": g["open"]} if g["open"] else None
    if ordered and ordered[0]["key"] is not None:
        ordered[0]["current"] = True
    return {
        "tournament": tournament,
        "groups": ordered,
        "rows": [r for g in ordered for r in g["rows"]],
        "idle": idle,
        "idle_limit": idle_minutes(),
        "counts": counts,
        "refresh_seconds": DASHBOARD_REFRESH_SECONDS,
        "admin_tournament_url": _admin_url(
            request,
            "tournament.change_tournament",
            "admin:tournament_tournament_change",
            tournament.pk,
        ),
        "rows_url": reverse("scoring:director-dashboard-rows", args=[tournament.slug]),
        # A draft has no public live stream (docs/security.md: drafts are unpublished), so
        # the socket would be refused: the page polls instead (dashboard.js, no data-ws).
        "ws_url": ""
        if tournament.status == Tournament.Status.DRAFT
        else f"/ws/live/{tournament.slug}/",
        "now": now,
    }


def _dashboard_etag(request: HttpRequest, slug: str) -> str | None:
    # The tournament's version is bumped in every recording transaction (PITFALLS.md), so an
    # unchanged version means unchanged rows: answer 304 without rendering. The user is part
    # of the tag so one director's cached copy is never valid for another account.
    user = request.user
    if not user.is_authenticated:
        return None
    try:
        ctx = context_for(request, slug=slug)
    except NotFoundError:
        return None
    if Role.DIRECTOR not in ctx.roles:
        return None  # the view answers 403
    return f"t{ctx.tournament.pk}-v{ctx.tournament.version}-u{user.pk}"


@never_cache
@login_required
@require_GET
def director_dashboard(request: HttpRequest, slug: str) -> HttpResponse:
    """``/director/tournaments/<slug>/``: every match, its table, referee, status and score."""
    tournament = _dashboard_tournament(request, slug)
    context = _dashboard_context(request, tournament)
    return render(request, "scoring/director_dashboard.html", context)


@login_required
@require_GET
@condition(etag_func=_dashboard_etag)
def director_dashboard_rows(request: HttpRequest, slug: str) -> HttpResponse:
    """The dashboard's table body, polled by the page (conditional GET: 304 when unchanged)."""
    tournament = _dashboard_tournament(request, slug)
    context = _dashboard_context(request, tournament)
    # Polled: the rows also carry the open disputes' count for the Disputes tab (the page's
    # own tab was drawn with it when the page loaded).
    context["polled"] = True
    response = render(request, "scoring/_dashboard_rows.html", context)
    # Not kept by the browser (a shared laptop at the venue; a draft's rows are private): the
    # page's script keeps the ETag and the rows itself and treats a 304 as "unchanged", so no
    # stored copy is needed to revalidate. A 304 gets the same header (core.private_responses).
    response["Cache-Control"] = "private, no-store"
    response["X-Tournament-Version"] = str(tournament.version)
    return response
