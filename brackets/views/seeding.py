"""The seeding list of a stage: seed, reorder, check-in, withdraw, late entry; CSV import."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from brackets.csv_import import ImportReport, check_player, parse_players_csv, player_key
from brackets.engine import BracketError, plan_tables
from brackets.forms import (
    CheckInForm,
    CheckInManyForm,
    CsvImportForm,
    PlayerAddForm,
    PlayerEditForm,
    ReasonForm,
    ReorderForm,
    SeedForm,
)
from brackets.models import Stage
from brackets.presenters.director import pairs_not_ready, roster_lines, seeding_rows
from brackets.services import (
    stage_entry_add,
    stage_seed,
    stage_seed_reorder,
)
from brackets.services.imports import players_import_csv
from brackets.services.registration import SameNameUnconfirmedError, TypedPlayer, player_add
from brackets.services.steps import byes_text, tables_text
from brackets.views.base import DirectorTournamentMixin, error_text, namesakes_notice
from core.exceptions import ApplicationError, PermissionDeniedError
from tournament.context import Action
from tournament.models import Entry, Partnership, Tournament
from tournament.partnerships import is_pairs_event, partnership_of_entries
from tournament.pins import entry_check_in
from tournament.services import (
    entries_check_in,
    entry_update,
    player_editable,
    player_update,
)
from tournament.shown_once import shown_once_keep, shown_once_take


def seeding_url(slug: str, stage_id: int) -> str:
    return reverse("brackets:seeding", args=[slug, stage_id])


def _pairs_table_plan(active: int) -> str:
    """How the seeded partnerships would sit in round 1 of a pairs event (T9): two
    partnerships a table, an odd one out has a bye."""
    pairs = active // 2
    tables, byes = divmod(pairs, 2)
    text = ngettext("%(n)s partnership", "%(n)s partnerships", pairs) % {"n": pairs}
    seats = [tables_text(tables, pairs=True)]
    if byes:
        seats.append(byes_text(byes))
    return _("%(pairs)s: %(tables)s (T9).") % {"pairs": text, "tables": ", ".join(seats)}


def _table_plan(stage: Stage, active: int, *, pairs: bool = False) -> str:
    """How the active field would sit in round 1 (T1; T9 in a pairs event), or why it cannot."""
    if stage.kind != Stage.Kind.QUALIFYING or active == 0:
        return ""
    if pairs:
        return _pairs_table_plan(active)
    try:
        plan = plan_tables(active, allow_three=stage.allow_three)
    except BracketError as exc:
        return error_text(exc)
    fours = sum(1 for s in plan.sizes if s == 4)
    threes = plan.tables - fours
    players = ngettext("%(n)s player", "%(n)s players", active) % {"n": active}
    seats = [ngettext("%(n)s table of 4", "%(n)s tables of 4", fours) % {"n": fours}]
    if threes:
        seats.append(ngettext("%(n)s table of 3", "%(n)s tables of 3", threes) % {"n": threes})
    if plan.byes:
        seats.append(byes_text(plan.byes))
    return _("%(players)s: %(tables)s (T1).") % {"players": players, "tables": ", ".join(seats)}


class SeedingView(DirectorTournamentMixin):
    """``stages/<id>/seeding/``: the entrants in seed order and every other entry."""

    nav = "stages"

    def get(self, request: HttpRequest, slug: str, stage_id: int) -> HttpResponse:
        return self.render_seeding(self.get_stage(stage_id))

    def render_seeding(
        self, stage: Stage, *, seed_form: SeedForm | None = None, status: int = 200
    ) -> HttpResponse:
        """The seeding page; ``seed_form``: the seeding form sent, with its errors (a 400)."""
        request = self.request
        seeded, others = seeding_rows(stage)
        started = stage.rounds.exists()
        active = [r for r in seeded if r.active]
        # Seeding takes the checked-in entries only where the stage is seeded from them (the
        # first stage, before its first round; stage_seed): there, checked-in players outside
        # the seeding mean "seed again". A later stage is filled by the previous stage's
        # advancement (T6), so the page never invites a seeding the service refuses.
        can_seed = stage.number == 1 and not started and stage.status != Stage.Status.FINISHED
        waiting = [
            r for r in others if can_seed and r.checked_in and r.entry_status == Entry.Status.ACTIVE
        ]
        not_ready: list[str] = []
        if stage.pairs and can_seed:
            # T9: seeding again takes a partnership only once both partners are checked in;
            # the others are named with the partner still missing.
            not_ready = pairs_not_ready(others)
            ready = {
                r.unit for r in others if r.unit is not None and r.entry_status == "active"
            } - {r.unit for r in others if not r.checked_in}
            waiting = [r for r in waiting if r.unit in ready]
        # Who "Check in everyone" would check in: offered while check-in decides the seeding.
        to_check_in = sum(
            1
            for r in [*seeded, *others]
            if not r.checked_in and r.entry_status == Entry.Status.ACTIVE
        )
        context = self.base_context(
            stage=stage,
            seeded=seeded,
            seeded_units=len({r.unit for r in seeded if r.unit is not None}),
            others=others,
            started=started,
            can_seed=can_seed,
            can_reorder=bool(seeded) and not started,
            can_add_late=started
            and stage.kind == Stage.Kind.QUALIFYING
            and stage.status == Stage.Status.RUNNING,
            waiting=waiting,
            not_ready=not_ready,
            to_check_in=to_check_in,
            check_in_many=can_seed and to_check_in > 0,
            checked_in=sum(
                1 for r in [*seeded, *others] if r.checked_in and r.entry_status == "active"
            ),
            table_plan=_table_plan(
                stage, len(active), pairs=self.tournament.entry_format == "pairs"
            ),
            # Players' PINs matter only when they confirm results at the table (issue 15),
            # and are issued only while the tournament can change (MANAGE's lifecycle gate):
            # a finished one showed "issue a PIN" buttons that could only be refused.
            pins=self.tournament.confirmation != Tournament.Confirmation.OFF
            and self.tournament_context.can(Action.MANAGE),
            seed_form=seed_form
            or SeedForm(initial={"method": stage.seeding, "rng_seed": stage.rng_seed}),
        )
        return render(request, "brackets/seeding.html", context, status=status)


class SeedView(SeedingView):
    """POST ``stages/<id>/seed/``: seed the first stage by rating, random draw or entry seeds.

    Bad input is a 400 with the seeding page and the error under its field ("Random seed:
    at most 2147483647 (T8)."): a bad random seed answered "Choose how to seed" before."""

    http_method_names = ["post", "options"]

    def post(self, request: HttpRequest, slug: str, stage_id: int) -> HttpResponse:
        stage = self.get_stage(stage_id)
        form = SeedForm(request.POST)
        if not form.is_valid():
            return self.render_seeding(stage, seed_form=form, status=400)
        method = form.cleaned_data["method"]
        seeded = self.run(
            lambda: stage_seed(
                stage=stage,
                actor=request.user,
                method=method,
                rng_seed=form.cleaned_data.get("rng_seed"),
            ),
            success=lambda s: _seeded_text(s, method),
            form=form,
        )
        if seeded is None and form.errors:
            return self.render_seeding(stage, seed_form=form, status=400)
        return HttpResponseRedirect(seeding_url(slug, stage.pk))


def _seeded_text(stage: Stage, method: str) -> str:
    """What seeding did, counting partnerships in a pairs stage (T9): "Seeded 50 players by
    rating.", "... in manual order.", "... at random (seed 7)." ("Seeded 50 players manual
    order." read wrong: the method's label was pasted in)."""
    n = stage.entrants.count() // (2 if stage.pairs else 1)
    words: dict[str, object] = {"n": n, "seed": stage.rng_seed}
    if method == Stage.Seeding.RANDOM:
        text = (
            _("Seeded %(n)s partnerships at random (seed %(seed)s).")
            if stage.pairs
            else _("Seeded %(n)s players at random (seed %(seed)s).")
        )
    elif method == Stage.Seeding.MANUAL:
        text = (
            _("Seeded %(n)s partnerships in manual order.")
            if stage.pairs
            else _("Seeded %(n)s players in manual order.")
        )
    else:
        # The rating case keeps its catalogued sentence ("Seeded 8 players by rating.").
        text = (
            _("Seeded %(n)s partnerships %(method)s.")
            if stage.pairs
            else _("Seeded %(n)s players %(method)s.")
        )
        words["method"] = _("by rating")
    return text % words


class ReorderView(DirectorTournamentMixin):
    """POST ``stages/<id>/reorder/``: save a manual seed order (T8)."""

    def post(self, request: HttpRequest, slug: str, stage_id: int) -> HttpResponse:
        stage = self.get_stage(stage_id)
        units = partnership_of_entries(tournament_id=stage.tournament_id) if stage.pairs else None
        form = ReorderForm(request.POST, units=units)
        if not form.is_valid():
            messages.error(request, " ".join(str(m) for ms in form.errors.values() for m in ms))
        else:
            self.run(
                lambda: stage_seed_reorder(
                    stage=stage,
                    actor=request.user,
                    order=form.order,
                    reason=form.cleaned_data.get("reason") or "",
                ),
                success=lambda result: (
                    _("Seed order saved.")
                    if result.changed
                    else _("The seed order is unchanged: nothing was saved.")
                ),
            )
        return HttpResponseRedirect(seeding_url(slug, stage.pk) + "#seeds")


class CheckInView(DirectorTournamentMixin):
    """POST ``entries/<id>/check-in/``: check an entry in or out (idempotent)."""

    def post(self, request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
        entry = self.get_entry(entry_id)
        form = CheckInForm(request.POST)
        if form.is_valid():
            value = form.cleaned_data["checked_in"]
            self.run(
                lambda: entry_update(entry=entry, actor=request.user, data={"checked_in": value}),
                success=(
                    _("%(player)s checked in.")
                    if value
                    else _("%(player)s is no longer checked in.")  # the Undo check-in button
                )
                % {"player": entry.player.name},
            )
        return self.back(reverse("brackets:stages", args=[slug]))


class CheckInManyView(DirectorTournamentMixin):
    """POST ``entries/check-in/``: check in every active player not checked in yet, or the
    ticked ones, in one step (:func:`tournament.services.entries_check_in`)."""

    def post(self, request: HttpRequest, slug: str) -> HttpResponse:
        back = self.back(reverse("brackets:stages", args=[slug]))
        form = CheckInManyForm(request.POST)
        if not form.is_valid():
            messages.error(request, _("Tick the players to check in."))
            return back
        self.run(
            lambda: entries_check_in(
                tournament=self.tournament, actor=request.user, entry_ids=form.entry_ids()
            ),
            success=lambda done: (
                ngettext("%(n)s player checked in.", "%(n)s players checked in.", len(done))
                % {"n": len(done)}
                if done
                else _("Nobody to check in: they are all checked in already.")
            ),
        )
        return back


class PinIssueView(DirectorTournamentMixin):
    """POST ``entries/<id>/pin/``: give a player a new confirmation PIN (issue 15), which also
    checks them in. The PIN is shown once, by the GET of the same address the POST redirects
    to (POST-redirect-GET: a reload shows no PIN and issues none, where a re-sent POST
    replaced the PIN just told to the player). It waits in the director's server-side session
    for that one view (``tournament.shown_once``; never in a message, which travels in a
    cookie), is not stored readable, replaces their previous PIN and lifts a lockout."""

    nav = "stages"

    def _slot(self, entry: Entry) -> str:
        return f"pin:{entry.pk}"

    def post(self, request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
        entry = self.get_entry(entry_id)
        result = self.run(lambda: entry_check_in(entry=entry, actor=request.user, issue_pin=True))
        back = self.back(reverse("brackets:stages", args=[slug]))
        if result is None:
            return back
        _, pin = result
        shown_once_keep(request, self._slot(entry), {"pin": pin, "back": back.url})
        return HttpResponseRedirect(reverse("brackets:entry-pin", args=[slug, entry.pk]))

    def get(self, request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
        entry = self.get_entry(entry_id)
        kept = shown_once_take(request, self._slot(entry))
        if kept is None or not isinstance(kept.get("pin"), str):  # shown already: the list
            return HttpResponseRedirect(reverse("brackets:stages", args=[slug]))
        response = render(
            request,
            "brackets/pin_issued.html",
            self.base_context(
                player=entry.player.name,
                pin=kept["pin"],
                back_url=str(kept.get("back") or reverse("brackets:stages", args=[slug])),
            ),
        )
        response["Cache-Control"] = "no-store"
        return response


class LateEntryView(DirectorTournamentMixin):
    """POST ``stages/<id>/entries/<entry>/add/``: late check-in into a running qualifying
    stage, from its next round (T1, T8)."""

    def post(self, request: HttpRequest, slug: str, stage_id: int, entry_id: int) -> HttpResponse:
        stage = self.get_stage(stage_id)
        entry = self.get_entry(entry_id)
        form = ReasonForm(request.POST)
        if not form.is_valid():
            # A reason too long was silently dropped (the entry added with no reason).
            messages.error(request, " ".join(str(m) for ms in form.errors.values() for m in ms))
            return HttpResponseRedirect(seeding_url(slug, stage.pk))
        reason = form.cleaned_data["reason"]
        self.run(
            lambda: stage_entry_add(stage=stage, actor=request.user, entry=entry, reason=reason),
            success=lambda se: (
                _("%(player)s joins %(stage)s from round %(round)s (seed %(seed)s).")
                % {
                    "player": entry.player.name,
                    "stage": stage.name,
                    "round": se.joined_round,
                    "seed": se.seed,
                }
            ),
        )
        return HttpResponseRedirect(seeding_url(slug, stage.pk))


class CsvImportView(DirectorTournamentMixin):
    """``players/import/``: upload a players CSV; the report names every bad row.

    Nothing is imported while a row is bad unless the director asks to import the valid rows
    (then the bad rows are listed in the action log as skipped).
    """

    nav = "import"

    def context(
        self,
        form: CsvImportForm,
        report: ImportReport | None = None,
        add_form: PlayerAddForm | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        first = Stage.objects.filter(tournament=self.tournament, number=1).first()
        entries = Entry.objects.filter(tournament=self.tournament)
        pairs = is_pairs_event(self.tournament)
        return self.base_context(
            form=form,
            add_form=add_form or PlayerAddForm(),
            report=report,
            first_stage=first,
            entries=entries.count(),
            # Everyone entered, by name: the director sees who is in before any stage exists,
            # with the rating seeding uses (T8), as the seeding page shows it.
            roster=roster_lines(entries.select_related("player").order_by("player__name", "id")),
            # T9: in a pairs event players are registered here, then paired into
            # partnerships; a player in no partnership plays no round.
            pairs=pairs,
            partnerships=Partnership.objects.filter(tournament=self.tournament).count()
            if pairs
            else None,
            unpaired=entries.filter(partnership_member__isnull=True).count() if pairs else None,
            columns="name, nickname, country, club, rating",
            **extra,
        )

    def get(self, request: HttpRequest, slug: str) -> HttpResponse:
        return render(request, "brackets/import.html", self.context(CsvImportForm()))

    def post(self, request: HttpRequest, slug: str) -> HttpResponse:
        form = CsvImportForm(request.POST, request.FILES)
        if not form.is_valid():
            return render(request, "brackets/import.html", self.context(form), status=400)
        data = form.cleaned_data
        entered = [
            player_key(name, club)
            for name, club in Entry.objects.filter(tournament=self.tournament).values_list(
                "player__name", "player__club"
            )
        ]
        report = parse_players_csv(data["content"], entered=entered)
        source = data.get("source") or ""
        text = data["content"]
        if isinstance(text, bytes):
            text = text.decode("utf-8-sig", errors="replace")
        if report.errors and (not data["import_valid"] or not report.can_import_valid_rows):
            retry = CsvImportForm(
                initial={
                    "csv_text": text,
                    "source": source,
                    "check_in": data["check_in"],
                    "import_valid": True,
                }
            )
            return render(
                request,
                "brackets/import.html",
                self.context(CsvImportForm(), report=report, retry=retry, source=source),
                status=400,
            )
        result = self.run(
            lambda: players_import_csv(
                tournament=self.tournament,
                actor=request.user,
                rows=report.players,
                check_in=data["check_in"],
                skipped_rows=report.bad_rows,
                source=source,
            ),
            success=lambda r: (
                ngettext(
                    "Imported %(n)s player (%(new)s new, %(known)s known)",
                    "Imported %(n)s players (%(new)s new, %(known)s known)",
                    len(r.entry_ids),
                )
                % {"n": len(r.entry_ids), "new": r.created, "known": r.reused}
                + (_(", checked in") if r.checked_in else "")
                + (
                    ngettext(
                        "; skipped %(n)s bad row (spreadsheet row %(rows)s)",
                        "; skipped %(n)s bad rows (spreadsheet rows %(rows)s)",
                        len(report.bad_rows),
                    )
                    % {"n": len(report.bad_rows), "rows": ", ".join(map(str, report.bad_rows))}
                    if report.bad_rows
                    else ""
                )
                + "."
            ),
        )
        if result is None:
            return render(
                request,
                "brackets/import.html",
                self.context(CsvImportForm(), report=report),
                status=400,
            )
        namesakes_notice(request, result.namesakes)
        return HttpResponseRedirect(reverse("brackets:import", args=[slug]))


class PlayerAddView(CsvImportView):
    """POST ``players/add/``: register one player by hand and enter them in the tournament.

    The same checks as a CSV row (:func:`brackets.csv_import.check_player`) and the same
    service underneath (:func:`brackets.services.registration.player_add`, through the CSV
    import's ``players_import_csv``): a known player (same name and club) is entered again
    rather than created twice; one already entered here is refused. A name that known players
    have, with no club to tell them apart, re-displays the form asking who this is (the same
    person, or a different one) and saves nothing until the director answers.
    """

    def get(self, request: HttpRequest, slug: str) -> HttpResponse:
        return HttpResponseRedirect(reverse("brackets:import", args=[slug]) + "#add-player")

    def post(self, request: HttpRequest, slug: str) -> HttpResponse:
        form = PlayerAddForm(request.POST)
        row = None
        answer = None
        if form.is_valid():
            data = form.cleaned_data
            row, errors = check_player(
                {k: data.get(k) or "" for k in ("name", "nickname", "country", "club", "rating")}
            )
            for error in errors:
                form.add_error(error.field, f"{form.fields[error.field].label}: {error.reason}")
            answer = form.same_name_answer("name")
            if row is not None:
                entered = {
                    player_key(name, club)
                    for name, club in Entry.objects.filter(tournament=self.tournament).values_list(
                        "player__name", "player__club"
                    )
                }
                if player_key(row.name, row.club) in entered:
                    form.add_error(
                        "name",
                        _("Name: %(name)s is already entered in this tournament.")
                        % {"name": row.name},
                    )
                    row = None
        if row is None or answer is None:
            return render(
                request,
                "brackets/import.html",
                self.context(CsvImportForm(), add_form=form),
                status=400,
            )
        typed = TypedPlayer(row, same_as=answer[0], different_from=answer[1])
        try:
            result = self.run(
                lambda: player_add(
                    tournament=self.tournament,
                    actor=request.user,
                    typed=typed,
                    check_in=form.cleaned_data["check_in"],
                ),
                success=lambda r: (
                    (
                        _("%(name)s added (known player entered again).")
                        if r.reused
                        else _("%(name)s added.")
                    )
                    # The player entered: a known player's own spelling when it was chosen.
                    % {"name": Entry.objects.get(pk=r.entry_ids[0]).player.name}
                ),
                reraise=(SameNameUnconfirmedError,),
                form=form,
            )
        except SameNameUnconfirmedError as exc:
            # A question, not an error: the form again, with the known players listed.
            return render(
                request,
                "brackets/import.html",
                self.context(
                    CsvImportForm(),
                    add_form=form,
                    same_name=form.same_name_warnings(exc.candidates),
                ),
            )
        if result is None:
            return render(
                request,
                "brackets/import.html",
                self.context(CsvImportForm(), add_form=form),
                status=400,
            )
        if not typed.different_from:
            # A new player who shares a known player's name but not their club or country
            # (no question was asked, as for an import): the same warning as an import's.
            namesakes_notice(request, result.namesakes)
        # The page's top: the confirmation (messages) sits just above the form for the next.
        return HttpResponseRedirect(reverse("brackets:import", args=[slug]))


class PlayerEditView(DirectorTournamentMixin):
    """``players/<entry_id>/edit/``: correct an entered player's name, nickname, club,
    country or rating (a typo at registration) without the admin.

    The same checks as adding a player (:func:`brackets.csv_import.check_player`); the change
    goes through ``tournament.services.player_update``, which decides who may change it: a
    player is one person across events, so their name, nickname, club, country and typed
    rating (it seeds every event they entered, T8) only staff or a director of every
    tournament they entered. Logged in this tournament's action log.
    """

    nav = "import"
    FIELDS = ("name", "nickname", "country", "club", "rating")

    def _form(self, entry: Entry, data: Any = None) -> PlayerEditForm:
        """The form, with every field shown but locked when the service would refuse a change
        (the player also entered an event this user does not direct): the page offers only
        what it will accept."""
        player = entry.player
        initial = {k: getattr(player, k) for k in self.FIELDS}
        initial["rating"] = "" if player.rating is None else str(player.rating)
        form = PlayerEditForm(data, initial=initial)
        if not player_editable(player=player, actor=self.request.user):
            for name in self.FIELDS:
                form.fields[name].disabled = True
        return form

    def get(self, request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
        entry = self.get_entry(entry_id)
        return self._render(entry, self._form(entry))

    def post(self, request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
        entry = self.get_entry(entry_id)
        player = entry.player
        form = self._form(entry, request.POST)
        if not form.is_valid():
            return self._render(entry, form, status=400)
        row, errors = check_player({k: form.cleaned_data.get(k) or "" for k in self.FIELDS})
        for error in errors:
            form.add_error(error.field, f"{form.fields[error.field].label}: {error.reason}")
        if row is not None:
            others = (
                Entry.objects.filter(tournament=self.tournament)
                .exclude(pk=entry.pk)
                .values_list("player__name", "player__club")
            )
            if player_key(row.name, row.club) in {player_key(n, c) for n, c in others}:
                form.add_error(
                    "name",
                    _("Name: another player entered here has this name and club."),
                )
                row = None
        if row is None:
            return self._render(entry, form, status=400)
        data = {k: getattr(row, k) for k in self.FIELDS}
        changed = {k: v for k, v in data.items() if getattr(player, k) != v}
        if not changed:
            messages.info(request, _("No change."))
            return HttpResponseRedirect(reverse("brackets:import", args=[slug]) + "#player-list")
        try:
            player_update(
                player=player, actor=request.user, data=changed, tournament=self.tournament
            )
        except PermissionDeniedError as exc:
            # Not a 403 page: the form says why (the player entered another event meanwhile).
            form.add_error(None, exc.message)
            return self._render(entry, form, status=403)
        except ApplicationError as exc:
            form.add_error(None, error_text(exc))
            return self._render(entry, form, status=400)
        messages.success(request, _("%(name)s saved.") % {"name": row.name})
        return HttpResponseRedirect(reverse("brackets:import", args=[slug]) + "#player-list")

    def _render(self, entry: Entry, form: PlayerEditForm, status: int = 200) -> HttpResponse:
        other_events = (
            Entry.objects.filter(player_id=entry.player_id)
            .exclude(tournament_id=self.tournament.pk)
            .count()
        )
        return render(
            self.request,
            "brackets/player_edit.html",
            self.base_context(
                entry=entry,
                form=form,
                other_events=other_events,
                identity_locked=form.fields["name"].disabled,
            ),
            status=status,
        )
