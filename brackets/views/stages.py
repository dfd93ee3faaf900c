"""Stage setup: the list of stages with their rounds and next step, create and edit."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _

from brackets.engine import BracketError, plan_knockout
from brackets.forms import StageForm
from brackets.models import Round, Stage, StageEntry
from brackets.presenters.director import RoundLine, rounds_by_stage
from brackets.presenters.pairs import pairs_stage_kind_label, stage_kind_label
from brackets.services import round_preview, stage_create, stage_update
from brackets.services.planning import FINISH_STAGE
from brackets.views.base import DirectorTournamentMixin, error_text
from core.choice_labels import choice_phrase
from core.exceptions import ApplicationError
from tournament.models import Tournament
from tournament.partnerships import PAIRS


def stages_url(slug: str) -> str:
    return reverse("brackets:stages", args=[slug])


def _pairs_knockout_plan(field: int) -> str:
    """The partnerships a pairs knockout goes through (T10): each table's winner goes on (an
    odd one out has a bye) until two are left for the final, e.g. "6 → 3 → 2 (final)"."""
    sizes = [field]
    while sizes[-1] > 2:
        sizes.append(sizes[-1] // 2 + sizes[-1] % 2)
    return _("%(sizes)s partnerships (the final: one match between two partnerships, T10)") % {
        "sizes": " → ".join(str(n) for n in sizes)
    }


def _knockout_plan(stage: Stage, field: int | None, *, pairs: bool = False) -> str:
    """The field sizes a knockout stage goes through, e.g. "64 → 16 → 4 (final)" (T6)."""
    if stage.kind != Stage.Kind.KNOCKOUT or not field:
        return ""
    if pairs:
        return _pairs_knockout_plan(field)
    try:
        plan = plan_knockout(
            field,
            per_table=stage.advance_per_table,
            final_size=stage.final_table_size,
            allow_three=stage.allow_three,
        )
    except BracketError as exc:
        return error_text(exc)
    sizes = [str(plan.field)] + [str(r.advancing) for r in plan.rounds]
    if not plan.rounds:
        return _("%(field)s: the final table itself") % {"field": plan.field}
    return _("%(sizes)s (final table)") % {"sizes": " → ".join(sizes)}


def _next_step_hint(
    stage: Stage, rounds: list[RoundLine], planned: str | None = None, *, final_only: bool = False
) -> str:
    """What the director does next.

    From stored state only, except ``planned``: the next step's own words
    (:func:`round_preview`), computed by the caller only for a stage whose last round is
    closed and waits for the director (:func:`_awaits_director`), so the list says what the
    round page says after that round. The plan (Swiss reseating over hundreds of players) is
    not computed for every stage on every load of this list. ``final_only``: the stage is
    the final table alone (T6), which has no round 1 to publish.
    """
    if stage.status == Stage.Status.FINISHED:
        return _("Finished.")
    if stage.status == Stage.Status.PENDING:
        if stage.number > 1:
            return _("Seeded by the previous stage's advancement when it ends (T6).")
        return _("No entrants yet: seed it first (T8).")
    if not rounds:
        if final_only:
            return _("Seeded: preview and publish the final table.")
        return _("Seeded: preview and publish round 1.")
    last = rounds[-1]
    names = {"kind": last.kind_label, "n": last.number, "next": planned or ""}
    # A play-off table is no round of the stage's plan ("1 round" and then "Play-off table 3"
    # read as a third round, user test): it is named by its kind alone (T6).
    playoff = last.kind == Round.Kind.PLAYOFF
    if last.advance_error:
        return (
            _("%(kind)s could not advance: %(error)s")
            if playoff
            else _("Round %(n)s could not advance: %(error)s")
        ) % {**names, "error": last.advance_error}
    if last.kind == Round.Kind.FINAL:  # one table, no round number to show (T6, T10)
        if last.status == "published":
            return _("The final is in play.")
        if planned is not None:
            return _("The final is closed. %(next)s") % names
        if stage.auto_advance and not last.advanced:
            return _("The final is closed: advancing.")
        return _("The final is closed: preview what follows.")
    if last.status == "published":
        return (
            _("%(kind)s in play: %(done)s of %(tables)s done.")
            if playoff
            else _("%(kind)s %(n)s in play: %(done)s of %(tables)s done.")
        ) % {**names, "done": last.done, "tables": last.tables}
    if planned is not None:
        return (
            _("%(kind)s closed. %(next)s") if playoff else _("%(kind)s %(n)s closed. %(next)s")
        ) % names
    if stage.auto_advance and not last.advanced:
        return (
            _("%(kind)s closed: advancing.") if playoff else _("%(kind)s %(n)s closed: advancing.")
        ) % names
    return (
        _("%(kind)s closed: preview what follows.")
        if playoff
        else _("%(kind)s %(n)s closed: preview what follows.")
    ) % names


def _awaits_director(stage: Stage, rounds: list[RoundLine]) -> bool:
    """The stage's last round is closed and what follows it waits for the director: the
    stage does not advance by itself (or did not, with an error shown instead)."""
    if stage.status != Stage.Status.RUNNING or not rounds:
        return False
    last = rounds[-1]
    if last.status != Round.Status.CLOSED or last.advance_error:
        return False
    return not (stage.auto_advance and not last.advanced)


def _knockout_field(stage: Stage, previous: Stage | None, *, pairs: bool) -> int | None:
    """The field a later knockout stage starts from: the previous stage's cut, or, without a
    cut, the entrants it was seeded with (a stage added after its previous one ended, T6)."""
    if stage.kind != Stage.Kind.KNOCKOUT or previous is None:
        return None
    if previous.cut_size:
        return previous.cut_size
    if stage.status == Stage.Status.PENDING:
        return None
    n = stage.entrants.count()
    return n // 2 if pairs else n


def _advanced_field(last: Stage | None, *, pairs: bool) -> int | None:
    """How many entrants (partnerships in a pairs event, T10) the finished qualifying stage
    ``last`` sent on: they seed the stage added after it (T6). ``None`` unless it finished."""
    if last is None or last.kind != Stage.Kind.QUALIFYING or last.status != Stage.Status.FINISHED:
        return None
    n = StageEntry.objects.filter(stage=last, status=StageEntry.Status.ADVANCED).count()
    return n // 2 if pairs else n


def _apply_service_errors(form: StageForm, exc: ApplicationError) -> None:
    placed = False
    for name, msgs in exc.fields.items():
        if name in form.fields:
            for m in msgs:
                form.add_error(name, m if m in exc.message else f"{exc.message} {m}")
            placed = True
    if not placed:
        form.add_error(None, error_text(exc))


class StageListView(DirectorTournamentMixin):
    """``stages/``: every stage with its settings, rounds and next step; the create form."""

    nav = "stages"

    def context(self, form: StageForm | None = None) -> dict[str, Any]:
        stages = list(Stage.objects.filter(tournament=self.tournament).order_by("number"))
        rounds = rounds_by_stage(self.tournament)
        rows = []
        pairs = self.tournament.entry_format == "pairs"
        previous: Stage | None = None
        for stage in stages:
            stage_rounds = rounds.get(stage.pk, [])
            planned: str | None = None
            action = ""
            if _awaits_director(stage, stage_rounds):
                # What the round page says after the same round, from the same plan
                # (round_preview): the next round, a (further) play-off, or the end of the
                # stage with its button (T6; user test: the list said "preview what
                # follows" with no End-the-stage button). Only for a stage waiting on the
                # director, so a load of this list plans only the stages whose round closed.
                try:
                    step = round_preview(stage=stage, actor=self.request.user)
                except ApplicationError as exc:
                    planned = error_text(exc)
                else:
                    planned, action = step.message, step.action
            field = _knockout_field(stage, previous, pairs=pairs)
            # A pairs knockout always plays down to a final of two (T10).
            final_only = (
                not pairs
                and stage.kind == Stage.Kind.KNOCKOUT
                and previous is not None
                and field == stage.final_table_size
            )
            next_step = _next_step_hint(stage, stage_rounds, planned, final_only=final_only)
            rows.append(
                {
                    "stage": stage,
                    "rounds": stage_rounds,
                    "plan": _knockout_plan(stage, field, pairs=pairs),
                    "next_step": next_step,
                    "can_finish_stage": action == FINISH_STAGE,
                    # Mid-sentence in the summary line: "balanced (T8) seat order",
                    # "orden de asientos equilibrado (T8)".
                    "seat_order": choice_phrase(Stage.SeatOrder, stage.seat_order),
                    "bye_policy": choice_phrase(Stage.ByePolicy, stage.bye_policy),
                    # T10: a pairs knockout is partnerships to the final between two.
                    "pairs_kind": pairs_stage_kind_label(stage, field) if stage.pairs else "",
                    "is_final_only": final_only,
                    # A pairs knockout after a cut of two is the final alone: one match, whose
                    # winners are the champions, not a table whose winners "go on" (T10).
                    "pairs_final_only": bool(stage.pairs)
                    and stage.kind == Stage.Kind.KNOCKOUT
                    and field == 2,
                }
            )
            previous = stage
        last = stages[-1] if stages else None
        advanced = _advanced_field(last, pairs=pairs)
        # T6: the last stage is a final table. A knockout plays down to it, so nothing follows
        # a knockout; a qualifying stage is never the last one, finished or not.
        can_add = (last is None or last.kind != Stage.Kind.KNOCKOUT) and (
            self.tournament.status != Tournament.Status.FINISHED
        )
        return self.base_context(
            rows=rows,
            form=form
            or StageForm(
                previous=last, pairs=self.tournament.entry_format == PAIRS, advanced=advanced
            ),
            can_add=can_add,
            previous=last,
            # A knockout whose field is the final table is that table alone, not a knockout
            # to it (T6): the page says so where it names the last stage.
            last_is_final_only=bool(rows) and rows[-1]["is_final_only"],
            last_is_pairs_final_only=bool(rows) and rows[-1]["pairs_final_only"],
            # The finished qualifying stage's advanced entrants seed the new stage at once.
            seeds_from_finished=advanced,
            final_needed=last is not None and last.kind == Stage.Kind.QUALIFYING,
            event_over=last is not None
            and last.kind == Stage.Kind.KNOCKOUT
            and last.status == Stage.Status.FINISHED,
        )

    def get(self, request: HttpRequest, slug: str) -> HttpResponse:
        return render(request, "brackets/stages.html", self.context())

    def post(self, request: HttpRequest, slug: str) -> HttpResponse:
        last = Stage.objects.filter(tournament=self.tournament).order_by("-number").first()
        pairs = self.tournament.entry_format == PAIRS
        form = StageForm(
            request.POST,
            previous=last,
            pairs=pairs,
            advanced=_advanced_field(last, pairs=pairs),
        )
        if form.is_valid():
            try:
                stage = stage_create(
                    tournament=self.tournament, actor=request.user, **form.service_kwargs()
                )
            except ApplicationError as exc:
                _apply_service_errors(form, exc)
            except BracketError as exc:
                form.add_error(None, error_text(exc))
            else:
                words = {"stage": stage.name, "number": stage.number, "seed": stage.rng_seed}
                messages.success(
                    request,
                    # The seed draws the seats of every round; the seeding only when that is
                    # random (T8): "random seed" read as a random seeding (user test).
                    _("%(stage)s created as stage %(number)s (random seed %(seed)s).") % words
                    if stage.seeding == Stage.Seeding.RANDOM
                    else _("%(stage)s created as stage %(number)s (seat-draw seed %(seed)s).")
                    % words,
                )
                return HttpResponseRedirect(stages_url(slug))
        return render(request, "brackets/stages.html", self.context(form), status=400)


class StageEditView(DirectorTournamentMixin):
    """``stages/<id>/edit/``: name, auto-advance and clock always; the format until it starts."""

    nav = "stages"

    def _form(self, stage: Stage, data: Any = None) -> StageForm:
        started = stage.rounds.exists() or stage.status == Stage.Status.FINISHED
        return StageForm(
            data,
            stage=stage,
            started=started,
            pairs=stage.pairs,
            initial=StageForm.initial_for(stage),
        )

    def _page(self, stage: Stage, form: StageForm, *, status: int = 200) -> HttpResponse:
        previous = Stage.objects.filter(
            tournament_id=stage.tournament_id, number=stage.number - 1
        ).first()
        field = _knockout_field(stage, previous, pairs=stage.pairs)
        return render(
            self.request,
            "brackets/stage_edit.html",
            # Named as the stages page names it: a final table alone is no knockout (T6).
            self.base_context(stage=stage, form=form, kind_label=stage_kind_label(stage, field)),
            status=status,
        )

    def get(self, request: HttpRequest, slug: str, stage_id: int) -> HttpResponse:
        stage = self.get_stage(stage_id)
        return self._page(stage, self._form(stage))

    def post(self, request: HttpRequest, slug: str, stage_id: int) -> HttpResponse:
        stage = self.get_stage(stage_id)
        form = self._form(stage, request.POST)
        if form.is_valid():
            changes = form.changed_settings(stage)
            if not changes:
                return HttpResponseRedirect(stages_url(slug))
            try:
                stage_update(stage=stage, actor=request.user, data=changes)
            except ApplicationError as exc:
                _apply_service_errors(form, exc)
            else:
                messages.success(
                    request,
                    _("%(stage)s: %(settings)s changed.")
                    % {"stage": stage.name, "settings": ", ".join(changes)},
                )
                return HttpResponseRedirect(stages_url(slug))
        return self._page(stage, form, status=400)
