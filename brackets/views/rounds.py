"""Rounds: preview (nothing stored) then publish; progress with the clock, call time (T3),
close and advance; referees per table; printable table sheets with the referee's QR code."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.utils.text import get_text_list
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache

from brackets.forms import CallTimeForm, ClockForm, PublishForm, ReasonForm, RefereeForm
from brackets.models import Round, Stage
from brackets.presenters.director import (
    build_preview,
    referee_choices,
    round_matches,
    seating_note,
    table_current_matches,
    user_label,
)
from brackets.presenters.pair_substitutes import RoundSubstitutes, round_substitutes
from brackets.presenters.pairs import round_kind_label
from brackets.selectors import round_results_awaiting_confirmation, round_sudden_death_ids
from brackets.selectors.pairs import round_byes_named
from brackets.services import (
    round_advance,
    round_call_time,
    round_clock_start,
    round_close,
    round_preview,
    round_publish,
    stage_advance,
)
from brackets.services.planning import FINISH_STAGE, PUBLISH_ROUND
from brackets.views.base import DirectorTournamentMixin, error_text
from core.choice_labels import choice_label
from core.exceptions import ApplicationError, NotFoundError, PermissionDeniedError
from scoring.models import Match
from scoring.services import match_assign_referee
from scoring.services.confirmation_gates import HOLD_DISPUTED
from tournament.api.serializers import referee_link
from tournament.context import Action, require
from tournament.models import RefereeToken, Tournament
from tournament.qr import public_qr_svgs
from tournament.selectors import referees_without_link
from tournament.services import referee_token_issue
from tournament.shown_once import shown_once_keep, shown_once_take
from tournament.table_qr import table_url


def round_title(rnd: Round) -> str:
    """The round's heading: "Qualifying round 2", "Play-off (T6) · round 3", "Final table ·
    round 4" (a play-off or final table is one kind of round, numbered among the stage's);
    a pairs stage's final is "The final (two partnerships) · round 2"."""
    if rnd.kind == Round.Kind.PLAYOFF:
        return _("Play-off (T6) · round %(n)s") % {"n": rnd.number}
    if rnd.kind == Round.Kind.FINAL:
        if rnd.stage.pairs:  # one match between two partnerships (T10)
            return _("The final (two partnerships) · round %(n)s") % {"n": rnd.number}
        return _("Final table · round %(n)s") % {"n": rnd.number}
    return f"{_(rnd.get_kind_display())} {rnd.number}"


def stage_round_title(rnd: Round) -> str:
    """The round named with its stage for headings outside the stage's pages ("Day 1,
    Qualifying round 2"), without saying the stage twice when the round's title already
    starts with its name ("Qualifying round 2" in a stage called "Qualifying")."""
    title = round_title(rnd)
    name = rnd.stage.name.strip()
    if not name or title.casefold().startswith(name.casefold()):
        return title
    return _("%(stage)s, %(round)s") % {"stage": name, "round": title}


def _published_text(rnd: Round, stage: Stage) -> str:
    """What publishing stored: a round of the stage's plan by its number; a play-off table
    or the final by what it is (no "Round 3 of Qualifying" in a stage of one round, T6)."""
    words = {"number": rnd.number, "stage": stage.name}
    if rnd.kind == Round.Kind.PLAYOFF:
        return _("The play-off table of %(stage)s is published.") % words
    if rnd.kind == Round.Kind.FINAL:
        return _("The final of %(stage)s is published.") % words
    return _("Round %(number)s of %(stage)s is published.") % words


SHEET_TOKEN_LABEL = "table sheets"


def progress_url(slug: str, round_id: int) -> str:
    return reverse("brackets:round", args=[slug, round_id])


def preview_url(slug: str, stage_id: int) -> str:
    return reverse("brackets:preview", args=[slug, stage_id])


# -- preview and publish ----------------------------------------------------------------------


class RoundPreviewView(DirectorTournamentMixin):
    """``stages/<id>/preview/``: the next round as publishing would store it (nothing stored)."""

    nav = "stages"

    def get(self, request: HttpRequest, slug: str, stage_id: int) -> HttpResponse:
        return self.render_preview(self.get_stage(stage_id))

    def render_preview(self, stage: Stage, *, status: int = 200) -> HttpResponse:
        """The preview page, drawn now (a refused publish answers it again with ``status``)."""
        request = self.request
        current = stage.rounds.order_by("-number").first()
        context = self.base_context(stage=stage, current=current, step=None, preview=None)
        try:
            step = round_preview(stage=stage, actor=request.user)
        except ApplicationError as exc:
            context["problem"] = error_text(exc)
            return render(request, "brackets/preview.html", context, status=status)
        context["step"] = step
        # One table (a final, a play-off) has no round number; a pairs final is named as the
        # bracket names it (T10).
        context["kind_label"] = round_kind_label(step.round_kind or "", pairs=stage.pairs)
        if step.action == PUBLISH_ROUND and step.seating is not None:
            # T9: a pairs round's tables and byes are partnerships, each named once with its
            # seed (as on the round page).
            context["preview"] = build_preview(stage, step.seating)
            # What the warnings can expect of this kind of round's seating (T8, T6).
            context["seating_note"] = seating_note(stage, step.round_kind, step.round_number)
            context["publish_form"] = PublishForm(initial={"expected_number": step.round_number})
        context["can_finish_stage"] = step.action == FINISH_STAGE
        return render(request, "brackets/preview.html", context, status=status)


class RoundPublishView(RoundPreviewView):
    """POST ``stages/<id>/publish/``: store the previewed round (409 if it went stale)."""

    http_method_names = ["post", "options"]

    def post(self, request: HttpRequest, slug: str, stage_id: int) -> HttpResponse:
        """A missing or non-numeric round number is a 400 naming it, with the preview drawn
        again: it was "no check" before, so a forged or stale form published a round."""
        stage = self.get_stage(stage_id)
        form = PublishForm(request.POST)
        if not form.is_valid():
            for errors in form.errors.values():
                for text in errors:
                    messages.error(request, str(text))
            return self.render_preview(stage, status=400)
        expected = form.cleaned_data["expected_number"]
        rnd = self.run(
            lambda: round_publish(stage=stage, actor=request.user, expected_number=expected),
            success=lambda r: _published_text(r, stage),
        )
        if rnd is None:
            return HttpResponseRedirect(preview_url(slug, stage.pk))
        return HttpResponseRedirect(progress_url(slug, rnd.pk))


class StageAdvanceView(DirectorTournamentMixin):
    """POST ``stages/<id>/advance/``: end a complete stage and seed the next one (T6)."""

    def post(self, request: HttpRequest, slug: str, stage_id: int) -> HttpResponse:
        stage = self.get_stage(stage_id)
        result = self.run(
            lambda: stage_advance(stage=stage, actor=request.user),
            success=lambda r: r.message or _("%(stage)s advanced.") % {"stage": stage.name},
        )
        if result is not None and result.published_round_id:
            return HttpResponseRedirect(progress_url(slug, result.published_round_id))
        return HttpResponseRedirect(reverse("brackets:stages", args=[slug]))


# -- progress ---------------------------------------------------------------------------------


class RoundProgressView(DirectorTournamentMixin):
    """``rounds/<id>/``: every table's status and score, the clock, and what can be done."""

    nav = "stages"

    def get(self, request: HttpRequest, slug: str, round_id: int) -> HttpResponse:
        return render_round(self, self.get_round(round_id))


def render_round(
    view: DirectorTournamentMixin,
    rnd: Round,
    *,
    clock_form: ClockForm | None = None,
    status: int = 200,
) -> HttpResponse:
    """The round page; ``clock_form``: the clock form sent, with its errors (a 400)."""
    request = view.request
    stage = rnd.stage
    matches = round_matches(rnd)
    open_matches = [m for m in matches if not m.done]
    tables = {m.table_number for m in matches}
    done_tables = tables - {m.table_number for m in open_matches}
    later = stage.rounds.filter(number__gt=rnd.number).order_by("number").first()
    next_step = None
    # A finished tournament has no next step: asking would only warn that it is finished.
    finished = view.tournament.status == Tournament.Status.FINISHED
    if rnd.status == Round.Status.CLOSED and later is None and not finished:
        try:
            next_step = round_preview(stage=stage, actor=request.user)
        except ApplicationError as exc:
            messages.warning(request, error_text(exc))
    # T3: the tables the director kept for a sudden-death hand when calling time.
    sudden_death = round_sudden_death_ids(round_id=rnd.pk) if rnd.time_called_at else set()
    # T11: named by the partnership's players at this round (now, while in play).
    bye_pairs = round_byes_named(rnd) if stage.pairs and rnd.byes else []
    # T11: a substitute is offered only where partnership_substitute takes one (the
    # service's rule): the bye's partnership, the partnership that forfeited (T7).
    substitutes = (
        round_substitutes(tournament=view.tournament, bye_pairs=bye_pairs, matches=matches)
        if stage.pairs
        else RoundSubstitutes(byes=[], forfeits={})
    )
    # The referees of the tables still to play who hold no link yet: they cannot record a
    # hand, and links are issued on the table sheets or the Referees page, not here.
    no_link = (
        len(
            referees_without_link(
                tournament=view.tournament,
                user_ids={m.referee_id for m in open_matches if m.referee_id is not None},
            )
        )
        if rnd.status == Round.Status.PUBLISHED
        and view.tournament_context.can(Action.MANAGE_REFEREES)
        else 0
    )
    context = view.base_context(
        round=rnd,
        stage=stage,
        no_link=no_link,
        shared_referees=_shared_referees(open_matches),
        kind_label=round_kind_label(rnd.kind, pairs=stage.pairs),
        round_title=round_title(rnd),
        stage_round_title=stage_round_title(rnd),
        # T9: a pairs round's byes are partnerships, each named once.
        bye_pairs=bye_pairs,
        bye_names="; ".join(p.label for p in bye_pairs),
        bye_substitutes=substitutes.byes,
        matches=matches,
        # Each table with the partnership that forfeited it, if it may take a substitute.
        match_rows=[(m, substitutes.forfeits.get(m.match_id)) for m in matches],
        tables_total=len(tables),
        tables_done=len(done_tables),
        open_matches=open_matches,
        # Issue 15: a disputed table waits for the director, not for its players: the page
        # points to each dispute (the Dashboard's marker, Match.confirmation_hold).
        disputed=[m for m in open_matches if m.hold == HOLD_DISPUTED],
        complete=not open_matches and bool(matches),
        later=later,
        next_step=next_step,
        can_publish_next=next_step is not None and next_step.action == PUBLISH_ROUND,
        can_finish_stage=next_step is not None and next_step.action == FINISH_STAGE,
        can_advance=rnd.status == Round.Status.CLOSED and rnd.advanced_at is None,
        clock_ends_at=rnd.clock_ends_at,
        now=timezone.now(),
        clock_form=clock_form or ClockForm(initial={"minutes": rnd.time_limit}),
        call_time_form=CallTimeForm(
            open_matches=[
                (m.match_id, _("Table %(n)s") % {"n": m.table_number}) for m in open_matches
            ]
        ),
        referees=referee_choices(view.tournament),
        sudden_death=sudden_death,
        sudden_death_tables=_tables_words(
            sorted({m.table_number for m in open_matches if m.match_id in sudden_death})
        ),
        scheduled=Match.Status.SCHEDULED,
        in_progress=Match.Status.IN_PROGRESS,
    )
    return render(request, "brackets/round.html", context, status=status)


def _shared_referees(open_matches: Sequence[Any]) -> list[dict[str, str]]:
    """The referees of two or more tables still to play in this round, each with the words
    of their tables ("tables 1 and 9"). Publishing deals the referees round the tables in
    turn (``brackets.services.store``), so a round with more tables than referees gives some
    referees two; a referee records one table at a time, and the page says so."""
    tables: dict[int, list[int]] = {}
    names: dict[int, str] = {}
    for m in open_matches:
        if m.referee_id is not None:
            tables.setdefault(m.referee_id, []).append(m.table_number)
            names[m.referee_id] = str(m.referee or "")
    return [
        {"referee": names[rid], "tables": _tables_words(sorted(numbers))}
        for rid, numbers in sorted(tables.items(), key=lambda item: min(item[1]))
        if len(numbers) > 1
    ]


def _tables_words(numbers: list[int]) -> str:
    """ "table 5", "tables 5 and 7", "tables 3, 5 and 7": the round page's clock section (T3)."""
    if not numbers:
        return ""
    return ngettext("table %(tables)s", "tables %(tables)s", len(numbers)) % {
        "tables": get_text_list([str(n) for n in numbers], _("and"))
    }


class RoundClockView(DirectorTournamentMixin):
    """POST ``rounds/<id>/clock/``: start the round clock (T2)."""

    def post(self, request: HttpRequest, slug: str, round_id: int) -> HttpResponse:
        """Bad minutes (empty, 0, 601, "abc", 1.5) are a 400 naming the field and its range:
        they silently started the stage's default before. The page's form starts a clock
        that is not running: sent again (back, resubmit) it changes nothing (409)."""
        rnd = self.get_round(round_id)
        form = ClockForm(request.POST)
        if not form.is_valid():
            return render_round(self, rnd, clock_form=form, status=400)
        try:
            started = round_clock_start(
                round=rnd,
                actor=request.user,
                minutes=form.cleaned_data["minutes"],
                restart=False,
            )
        except (NotFoundError, PermissionDeniedError):
            raise
        except ApplicationError as exc:
            if "minutes" in exc.fields:
                for text in exc.fields["minutes"]:
                    form.add_error("minutes", text)
            else:
                messages.error(request, error_text(exc))
            rnd.refresh_from_db()
            return render_round(self, rnd, clock_form=form, status=exc.status_code)
        messages.success(
            request,
            ngettext(
                "Clock started: %(minutes)s minute.",
                "Clock started: %(minutes)s minutes.",
                started.time_limit or 0,
            )
            % {"minutes": started.time_limit},
        )
        return HttpResponseRedirect(progress_url(slug, rnd.pk))


class RoundCallTimeView(DirectorTournamentMixin):
    """POST ``rounds/<id>/call-time/``: end every unfinished match now (T3); confirmed."""

    def post(self, request: HttpRequest, slug: str, round_id: int) -> HttpResponse:
        rnd = self.get_round(round_id)
        open_ids = [(m.match_id, str(m.table_number)) for m in round_matches(rnd) if not m.done]
        form = CallTimeForm(request.POST, open_matches=open_ids)
        if not form.is_valid():
            if "confirm" in form.errors:
                messages.error(request, _("Tick the confirmation to call time (T3)."))
            else:
                messages.error(request, " ".join(str(m) for ms in form.errors.values() for m in ms))
            return HttpResponseRedirect(progress_url(slug, rnd.pk))
        self.run(
            lambda: round_call_time(
                round=rnd,
                actor=request.user,
                reason=form.cleaned_data.get("reason") or "",
                sudden_death=form.cleaned_data.get("sudden_death") or [],
            ),
            success=lambda ended: " ".join(
                [
                    ngettext(
                        "Time called (T3): %(n)s match ended on time.",
                        "Time called (T3): %(n)s matches ended on time.",
                        len(ended),
                    )
                    % {"n": len(ended)},
                    *_awaiting_confirmation_note(rnd.pk),
                ]
            ),
        )
        return HttpResponseRedirect(progress_url(slug, rnd.pk))


def _awaiting_confirmation_note(round_id: int) -> list[str]:
    """Issue 15: the tables whose result (won by the rules before time) waits for the
    players' confirmation; calling time leaves them to finish when the players confirm."""
    tables = [t for _m, t in round_results_awaiting_confirmation(round_id=round_id)]
    if not tables:
        return []
    return [
        _(
            "Table %(tables)s: the result awaits the players' confirmation; the match ends "
            "when they confirm."
        )
        % {"tables": ", ".join(str(t) for t in tables)}
    ]


class RoundCloseView(DirectorTournamentMixin):
    """POST ``rounds/<id>/close/``."""

    def post(self, request: HttpRequest, slug: str, round_id: int) -> HttpResponse:
        rnd = self.get_round(round_id)
        self.run(
            lambda: round_close(round=rnd, actor=request.user),
            success=_("Round %(number)s closed.") % {"number": rnd.number},
        )
        return HttpResponseRedirect(progress_url(slug, rnd.pk))


class RoundAdvanceView(DirectorTournamentMixin):
    """POST ``rounds/<id>/advance/``: do what follows a closed round (next round, play-off,
    or the end of the stage, T6)."""

    def post(self, request: HttpRequest, slug: str, round_id: int) -> HttpResponse:
        rnd = self.get_round(round_id)
        if not rnd.stage.auto_advance:
            # Manual mode: the next round is published only from its preview (who sits
            # where), on the director's confirmation there (README: Manual mode).
            try:
                step = round_preview(stage=rnd.stage, actor=request.user)
            except ApplicationError:
                step = None
            if step is not None and step.action == PUBLISH_ROUND:
                messages.info(request, _("Check the next round's seating, then publish it."))
                return HttpResponseRedirect(preview_url(slug, rnd.stage_id))
        form = ReasonForm(request.POST)
        form.is_valid()
        result = self.run(
            lambda: round_advance(round_id=rnd.pk, actor=request.user),
            success=lambda r: r.message or r.outcome.replace("_", " "),
        )
        if result is not None and result.published_round_id:
            return HttpResponseRedirect(progress_url(slug, result.published_round_id))
        return HttpResponseRedirect(progress_url(slug, rnd.pk))


class RoundRefereeView(DirectorTournamentMixin):
    """POST ``rounds/<id>/referee/``: change a table's referee (logged by the service)."""

    def post(self, request: HttpRequest, slug: str, round_id: int) -> HttpResponse:
        rnd = self.get_round(round_id)
        form = RefereeForm(request.POST)
        if not form.is_valid():
            messages.error(request, _("Choose a table and a referee."))
            return HttpResponseRedirect(progress_url(slug, rnd.pk))
        match_id = form.cleaned_data["match_id"]
        if not rnd.round_matches.filter(match_id=match_id).exists():
            messages.error(request, _("That match is not in this round."))
            return HttpResponseRedirect(progress_url(slug, rnd.pk))
        ref_id = form.cleaned_data.get("referee")
        referee = get_user_model().objects.filter(pk=ref_id).first() if ref_id else None
        if ref_id and referee is None:  # not "remove the referee": a bad id changes nothing
            messages.error(request, _("No referee of this tournament has that id."))
            return HttpResponseRedirect(progress_url(slug, rnd.pk) + f"#match-{match_id}")
        before = Match.objects.filter(pk=match_id).values_list("referee_id", flat=True).first()
        if before == (referee.pk if referee else None):
            # The service changes nothing either (no write, no log entry); say so.
            success = (
                _("No change: %(referee)s already referees this table.")
                % {"referee": user_label(referee)}
                if referee
                else _("No change: this table has no referee.")
            )
        else:
            success = _("Referee changed.") if referee else _("Referee removed.")
        self.run(
            lambda: match_assign_referee(match_id=match_id, actor=request.user, referee=referee),
            success=success,
        )
        return HttpResponseRedirect(progress_url(slug, rnd.pk) + f"#match-{match_id}")


# -- printable table sheets -------------------------------------------------------------------


@method_decorator(never_cache, name="dispatch")
class RoundSheetsView(DirectorTournamentMixin):
    """``rounds/<id>/sheets/``: one printable sheet per table (page break between them).

    Each sheet shows the table's seats in play order, its referee and the table's QR code
    (issue 15): one stable address per physical table, which sends the referee assigned to the
    table's current match to its referee page and everyone else to the public live view. The
    sheet never carries a credential. Referees sign in once with their own link: the button
    POSTs to ``sheets/links/``, which issues a fresh credential to every referee of the round
    and redirects here, where the links are listed once, on screen only (never printed, never
    cached; a reload shows the sheets without them).
    """

    nav = "stages"

    def get(self, request: HttpRequest, slug: str, round_id: int) -> HttpResponse:
        rnd = self.get_round(round_id)
        return render_sheets(self, rnd, keys=sheet_keys_take(request, rnd))


def _sheet_keys_slot(rnd: Round) -> str:
    return f"sheets:{rnd.pk}"


def sheet_keys_take(request: HttpRequest, rnd: Round) -> dict[int, str]:
    """The links ``sheets/links/`` just issued for ``rnd`` (referee user id -> key), for the
    one view of the sheets its POST redirects to (``tournament.shown_once``); empty after."""
    kept = shown_once_take(request, _sheet_keys_slot(rnd)) or {}
    return {
        int(user_id): key
        for user_id, key in kept.items()
        if str(user_id).isdigit() and isinstance(key, str)
    }


def render_sheets(
    view: DirectorTournamentMixin, rnd: Round, *, keys: dict[int, str]
) -> HttpResponse:
    """The sheets of ``rnd``. Each carries its TABLE's QR code (issue 15: a stable, non-secret
    address, ``live.table_join``), never a credential; ``keys`` (referee user id -> key just
    issued) are listed once on the screen for the director, outside the printed sheets.
    A table's sheet is its CURRENT match: after a forfeit (T7) the continuation the others
    play on in (its seating and referee), not the forfeited match."""
    matches = table_current_matches(round_matches(rnd))
    referee_ids = {m.referee_id for m in matches if m.referee_id is not None}
    sheets: list[dict[str, Any]] = []
    issued: list[dict[str, Any]] = []
    addresses = [
        view.request.build_absolute_uri(table_url(slug=view.tournament.slug, number=m.table_number))
        for m in matches
    ]
    codes = public_qr_svgs(addresses)
    for m, address in zip(matches, addresses, strict=True):
        sheets.append(
            {
                "match": m,
                "order": " → ".join(s.letter for s in m.seats),
                "table_url": address,
                "qr": codes[address],
            }
        )
        key = keys.get(m.referee_id) if m.referee_id is not None else None
        if key:
            issued.append(
                {"table": m.table_number, "referee": m.referee, "link": referee_link(key)}
            )
    response = render(
        view.request,
        "brackets/sheets.html",
        view.base_context(
            round=rnd,
            stage=rnd.stage,
            kind_label=choice_label(Round.Kind, rnd.kind),
            round_title=round_title(rnd),
            stage_round_title=stage_round_title(rnd),
            sheets=sheets,
            issued=issued,
            # A finished tournament's referees need no link (the gate refuses one anyway).
            missing_links=(
                len(referee_ids - set(keys))
                if view.tournament_context.can(Action.MANAGE_REFEREES)
                else 0
            ),
            no_referee=sum(1 for m in matches if m.referee_id is None),
        ),
    )
    response["Cache-Control"] = "no-store"
    return response


class RoundSheetLinksView(DirectorTournamentMixin):
    """POST ``rounds/<id>/sheets/links/``: issue a fresh credential to every referee of the
    round's tables (each table's current match: a forfeit's continuation, T7;
    ``referee_token_issue``, logged) and redirect to the sheets, which show them once
    (``tournament.shown_once``: a reload of the sheets issues nothing). With ``only_missing``
    (the round page's guidance) only to the referees of the tables still to play who hold no
    working link.
    With ``retire_earlier`` each referee's earlier credentials are revoked as its new one is
    issued (the same revoke as the Referees page's, logged): a lost phone's link dies."""

    nav = "stages"

    def _issuer(self, user: Any, label: str, retire: bool) -> Callable[[], RefereeToken]:
        return lambda: referee_token_issue(
            tournament=self.tournament,
            actor=self.request.user,
            user=user,
            label=label,
            retire_earlier=retire,
        )

    def post(self, request: HttpRequest, slug: str, round_id: int) -> HttpResponse:
        rnd = self.get_round(round_id)
        # POST-redirect-GET: a reload of the sheets is a GET, which issues (or retires) nothing.
        sheets = HttpResponseRedirect(reverse("brackets:sheets", args=[slug, rnd.pk]))
        try:  # once for the round, not once per referee
            require(self.tournament_context, Action.MANAGE_REFEREES)
        except ApplicationError as exc:
            messages.error(request, error_text(exc))
            return sheets
        current = table_current_matches(round_matches(rnd))
        referee_ids = {m.referee_id for m in current if m.referee_id is not None}
        # The round page's guidance: only the referees of the tables still to play who hold
        # no working link (its count), never a second link for those who have one.
        only_missing = request.POST.get("only_missing") == "1"
        if only_missing:
            referee_ids = referees_without_link(
                tournament=self.tournament,
                user_ids={m.referee_id for m in current if m.referee_id and not m.done},
            )
        users = get_user_model().objects.filter(pk__in=referee_ids).order_by("pk")
        retire = request.POST.get("retire_earlier") == "1" and not only_missing
        keys: dict[int, str] = {}
        for user in users:
            label = f"{SHEET_TOKEN_LABEL} {rnd.number}"[:60]
            token = self.run(self._issuer(user, label, retire))
            if token is not None:
                keys[user.pk] = token.key  # type: ignore[attr-defined]
        if keys:
            messages.success(
                request,
                ngettext(
                    "Issued %(n)s referee link: hand it to its referee now (on their phone, "
                    "or sent privately); it is not shown again.",
                    "Issued %(n)s referee links: hand each to its referee now (on their "
                    "phone, or sent privately); they are not shown again.",
                    len(keys),
                )
                % {"n": len(keys)},
            )
            if retire:
                messages.info(
                    request,
                    _(
                        "Their earlier links no longer work: a phone still using one must "
                        "open its referee's new link."
                    ),
                )
            # Shown by the GET of the sheets this POST redirects to (JSON keys are text).
            shown_once_keep(
                request, _sheet_keys_slot(rnd), {str(uid): key for uid, key in keys.items()}
            )
        return sheets
