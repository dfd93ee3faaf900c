"""Create and edit a tournament: name, dates, venue, ruleset preset and every override (§1).

The form (:mod:`brackets.tournament_forms`) validates the ruleset with the engine; the
services (``tournament_create`` / ``tournament_update``) validate again and store it. The
creator becomes the tournament's director (``tournament_create``). Status changes belong to
the lifecycle page, not to this form.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views import View

from brackets.tournament_forms import TournamentForm, preset_labels, preset_values
from brackets.views.base import DirectorTournamentMixin
from core.exceptions import ApplicationError, PermissionDeniedError, readable_rule
from tournament.models import Tournament
from tournament.partnerships import PAIRS, is_partnership_ruleset, tournament_entry_format_set
from tournament.selectors import user_directs_any
from tournament.services import tournament_create, tournament_create_allowed, tournament_update

#: Refusals whose field text is a bare "Taken.": the form shows the whole message there
#: (which slug is taken), chosen by code so that a translated page finds it too.
_WHOLE_MESSAGE_CODES = frozenset({"slug_taken"})


def _service_error_to_form(form: TournamentForm, exc: ApplicationError) -> None:
    """Show a service's refusal on the field it names (``ruleset_overrides.<key>`` etc.)."""
    placed = False
    for name, texts in (exc.fields or {}).items():
        field = name.removeprefix("ruleset_overrides.")
        field = f"rule_{field}" if name.startswith("ruleset_overrides.") else field
        if field in form.fields:
            if exc.code in _WHOLE_MESSAGE_CODES:
                texts = [exc.message]
            for message in texts:
                form.add_error(field, message)
            placed = True
    if not placed:
        rule = readable_rule(exc.rule)
        text = exc.message + (f" ({rule})" if rule and rule not in exc.message else "")
        form.add_error(None, text)


def _context(form: TournamentForm, **extra: Any) -> dict[str, Any]:
    return {
        "form": form,
        "presets": preset_values(),
        "preset_labels": preset_labels(),
        **extra,
    }


class TournamentCreateView(LoginRequiredMixin, View):
    """``/director/new/``: a new tournament in draft; the creator directs it (staff and
    directors only: ``Action.CREATE_TOURNAMENT``)."""

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if request.user.is_authenticated and not tournament_create_allowed(actor=request.user):
            if user_directs_any(user=request.user):
                # A co-director (invited): "only ... tournament directors" would read as if
                # they were not one (docs/director-guide.md, "Co-directors").
                raise PermissionDenied(
                    _(
                        "You joined as a co-director through an invitation: you direct the "
                        "tournaments you were invited to and cannot create new ones. Ask the "
                        "site's staff if you need to."
                    )
                )
            raise PermissionDenied(_("Only staff or tournament directors may create tournaments."))
        return super().dispatch(request, *args, **kwargs)

    def get(self, request: HttpRequest) -> HttpResponse:
        form = TournamentForm(initial={"ruleset_preset": "wsod"})
        return render(request, "brackets/tournament_form.html", _context(form, creating=True))

    def post(self, request: HttpRequest) -> HttpResponse:
        form = TournamentForm(request.POST)
        valid = form.is_valid()
        if valid or form.slug_taken_only():
            # A double submission (its typed slug now taken by the first one) leads to the
            # tournament the first one created.
            again = _just_created(request, form.cleaned_data)
            if again is not None:
                return again
        if valid:
            d = form.cleaned_data
            try:
                # One transaction: a refused entry format creates nothing. Pairs (T9) goes
                # through the Partnerships service, as on the Settings page.
                with transaction.atomic():
                    tournament = tournament_create(
                        actor=request.user,
                        name=d["name"],
                        slug=d["slug"],
                        venue=d.get("venue") or "",
                        starts_on=d.get("starts_on"),
                        ends_on=d.get("ends_on"),
                        ruleset_preset=d["ruleset_preset"],
                        ruleset_overrides=form.overrides(),
                    )
                    entry_format = d.get("entry_format") or (
                        PAIRS if is_partnership_ruleset(tournament.ruleset) else ""
                    )
                    if entry_format and entry_format != tournament.entry_format:
                        tournament = tournament_entry_format_set(
                            tournament=tournament, actor=request.user, entry_format=entry_format
                        )
                    # Confirmation at the table (issue 15), chosen with the event.
                    confirmation = d.get("confirmation") or ""
                    if confirmation and confirmation != tournament.confirmation:
                        tournament = tournament_update(
                            tournament=tournament,
                            actor=request.user,
                            data={"confirmation": confirmation},
                        )
            except PermissionDeniedError:
                raise
            except ApplicationError as exc:
                # A double click's second request, when the first took the slug meanwhile.
                again = _just_created(request, d) if exc.code == "slug_taken" else None
                if again is not None:
                    return again
                _service_error_to_form(form, exc)
            else:
                # A pairs event's entries are registered on the Partnerships page (T9), not
                # on the Players page the individual wording sends the director to.
                if tournament.entry_format == PAIRS:
                    created = _(
                        "%(name)s created, in draft: only its directors see it until you open "
                        "registration on the Lifecycle page. Next: create its first stage "
                        "below, then register the partnerships on the Partnerships page (T9)."
                    )
                else:
                    created = _(
                        "%(name)s created, in draft: only its directors see it until you open "
                        "registration on the Lifecycle page. Next: create its first stage "
                        "below, then add the players on the Players page."
                    )
                messages.success(request, created % {"name": tournament.name})
                return HttpResponseRedirect(reverse("brackets:stages", args=[tournament.slug]))
        return render(
            request, "brackets/tournament_form.html", _context(form, creating=True), status=400
        )


#: How long a second submission of the create form counts as the same one.
RESUBMIT_WINDOW = timedelta(minutes=2)


def _just_created(request: HttpRequest, data: Mapping[str, Any]) -> HttpResponse | None:
    """The answer to a create form sent again (a double click, a reload that re-posts): the
    tournament this user created with the same name (and the same slug, if one was typed)
    moments ago, instead of a second one ("resubmit-cup-2") or "The slug ... is taken" on a
    form where no slug was typed. ``None``: no such tournament, create one."""
    typed_slug = str(request.POST.get("slug", "")).strip().lower()
    recent = Tournament.objects.filter(
        name=str(data.get("name", "")).strip(),
        created_by_id=request.user.pk or 0,  # a superuser creator holds no role row
        created_at__gte=timezone.now() - RESUBMIT_WINDOW,
    )
    if typed_slug:
        recent = recent.filter(slug__iexact=typed_slug)
    tournament = recent.order_by("-created_at", "-pk").first()
    if tournament is None:
        return None
    messages.info(
        request,
        _("%(name)s was created a moment ago (the form was sent twice): here it is.")
        % {"name": tournament.name},
    )
    return HttpResponseRedirect(reverse("brackets:stages", args=[tournament.slug]))


class TournamentEditView(DirectorTournamentMixin):
    """``settings/``: change a tournament's details and ruleset (matches already started keep
    the ruleset they froze, §1)."""

    nav = "settings"

    def _initial(self) -> dict[str, Any]:
        t = self.tournament
        return {
            "name": t.name,
            "venue": t.venue,
            "starts_on": t.starts_on,
            "ends_on": t.ends_on,
            "ruleset_preset": t.ruleset_preset,
            "confirmation": t.confirmation,
            "entry_format": t.entry_format,
            **TournamentForm.initial_overrides(t.ruleset_overrides or {}),
        }

    def get(self, request: HttpRequest, slug: str) -> HttpResponse:
        form = TournamentForm(initial=self._initial(), editing=True)
        return render(request, "brackets/tournament_form.html", self.base_context(**_context(form)))

    def post(self, request: HttpRequest, slug: str) -> HttpResponse:
        form = TournamentForm(request.POST, initial=self._initial(), editing=True)
        if form.is_valid():
            d = form.cleaned_data
            t = self.tournament
            data: dict[str, Any] = {}
            for key in ("name", "venue", "starts_on", "ends_on", "ruleset_preset", "confirmation"):
                value = d.get(key) if key != "venue" else (d.get("venue") or "")
                if key == "confirmation":
                    value = value or "off"  # issue 15: confirmation at the table
                if value != getattr(t, key):
                    data[key] = value
            if form.overrides() != (t.ruleset_overrides or {}):
                data["ruleset_overrides"] = form.overrides()
            entry_format = d.get("entry_format") or t.entry_format
            try:
                # One transaction: a refused entry format leaves the settings unsaved too. The
                # format goes through the Partnerships service (T9); pairs after the ruleset it
                # needs, individual before the ruleset changes.
                with transaction.atomic():
                    if entry_format != t.entry_format and entry_format != PAIRS:
                        t = tournament_entry_format_set(
                            tournament=t, actor=request.user, entry_format=entry_format
                        )
                    if data:
                        t = tournament_update(tournament=t, actor=request.user, data=data)
                    if entry_format != t.entry_format:
                        tournament_entry_format_set(
                            tournament=t, actor=request.user, entry_format=entry_format
                        )
                        data["entry_format"] = entry_format
            except PermissionDeniedError:
                raise
            except ApplicationError as exc:
                _service_error_to_form(form, exc)
            else:
                from django.contrib import messages

                messages.success(
                    request, _("Tournament settings saved.") if data else _("No change.")
                )
                return HttpResponseRedirect(reverse("brackets:settings", args=[slug]))
        return render(
            request,
            "brackets/tournament_form.html",
            self.base_context(**_context(form)),
            status=400,
        )
