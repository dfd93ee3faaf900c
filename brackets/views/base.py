"""The one scoping mixin of the director pages, and how they show a service's error.

STYLE.md §7: every page of a tournament resolves the one tournament context ONCE
(``tournament.context.context_for``, from the ``slug`` in the URL), checks with ``require`` that
the user directs it (a superuser directs every tournament), and looks up
stages, rounds and entries only within it, so another tournament's ids answer 404.
Anonymous visitors are sent to the login page; signed-in users who do not direct the
tournament get 403.

Every POST calls one service; an expected failure (:class:`ApplicationError`, or a
:class:`BracketError` that escaped a service) becomes an error message naming the rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django import forms
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponseRedirect
from django.http.response import HttpResponseBase
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views import View

from brackets.engine import BracketError
from brackets.models import Round, Stage
from core.exceptions import (
    ApplicationError,
    NotFoundError,
    PermissionDeniedError,
    readable_rule,
)
from tournament.context import Action, TournamentContext, context_for, require
from tournament.models import Entry, Partnership, Tournament

T = TypeVar("T")


def error_text(exc: ApplicationError | BracketError) -> str:
    """The message a director reads: the service's message, naming its rule if it has one."""
    message = exc.message
    rule = readable_rule(exc.rule)
    if isinstance(exc, ApplicationError):
        details = [m for msgs in exc.fields.values() for m in msgs if m not in message]
        if details and len(details) <= 3:
            message = f"{message} ({'; '.join(details)})"
    if rule and rule not in message:
        message = _("%(message)s [rule %(rule)s]") % {"message": message, "rule": rule}
    return message


class DirectorTournamentMixin(LoginRequiredMixin, View):
    """A director page under ``/director/tournaments/<slug>/``."""

    tournament: Tournament
    tournament_context: TournamentContext
    nav: str = ""  # which nav link is current

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not request.user.is_authenticated:
            return self.handle_no_permission()
        # The one tournament context and the one check (tournament.context): every director
        # page needs VIEW_PRIVATE; its POSTs call services, which check MANAGE and the gate.
        try:
            self.tournament_context = context_for(request, slug=kwargs["slug"])
            require(self.tournament_context, Action.VIEW_PRIVATE)
        except NotFoundError as exc:
            raise Http404(exc.message) from exc
        except PermissionDeniedError as exc:
            raise PermissionDenied(
                _("Only a director of %(name)s may see this page.")
                % {"name": self.tournament_context.tournament.name}
            ) from exc
        self.tournament = self.tournament_context.tournament
        try:
            return super().dispatch(request, *args, **kwargs)
        except NotFoundError as exc:
            raise Http404(exc.message) from exc
        except PermissionDeniedError as exc:
            raise PermissionDenied(exc.message) from exc

    # -- scoped lookups (404 for another tournament's ids) ----------------------------------

    def get_stage(self, stage_id: int) -> Stage:
        stage = Stage.objects.filter(pk=stage_id, tournament=self.tournament).first()
        if stage is None:
            raise Http404("No such stage in this tournament.")
        return stage

    def get_round(self, round_id: int) -> Round:
        rnd = (
            Round.objects.select_related("stage")
            .filter(pk=round_id, stage__tournament=self.tournament)
            .first()
        )
        if rnd is None:
            raise Http404("No such round in this tournament.")
        return rnd

    def get_entry(self, entry_id: int) -> Entry:
        entry = (
            Entry.objects.select_related("player", "tournament")
            .filter(pk=entry_id, tournament=self.tournament)
            .first()
        )
        if entry is None:
            raise Http404("No such entry in this tournament.")
        return entry

    def get_partnership(self, pair_id: int) -> Partnership:
        partnership = (
            Partnership.objects.select_related("tournament")
            .filter(pk=pair_id, tournament=self.tournament)
            .first()
        )
        if partnership is None:
            raise Http404("No such partnership in this tournament.")
        return partnership

    # -- helpers ------------------------------------------------------------------------------

    def base_context(self, **extra: Any) -> dict[str, Any]:
        return {"tournament": self.tournament, "nav": self.nav, **extra}

    def run(
        self,
        call: Callable[[], T],
        *,
        success: str | Callable[[T], str] = "",
        reraise: tuple[type[ApplicationError], ...] = (),
        form: forms.Form | None = None,
    ) -> T | None:
        """Call a service; on an expected failure add its message and return ``None``.

        ``form``: an error naming its fields is shown under them instead (the page
        re-displays the form). ``reraise``: errors the page answers itself (a form
        re-displayed with a question)."""
        try:
            result = call()
        except (NotFoundError, PermissionDeniedError):
            raise
        except (ApplicationError, BracketError) as exc:
            if isinstance(exc, reraise):
                raise
            fields = exc.fields if isinstance(exc, ApplicationError) else {}
            named = [f for f in fields if form is not None and f in form.fields]
            if form is not None and named:
                for name in named:
                    for text in fields[name]:
                        form.add_error(name, text)
            else:
                messages.error(self.request, error_text(exc))
            return None
        text = success(result) if callable(success) else success
        if text:
            messages.success(self.request, text)
        return result

    def back(self, default: str) -> HttpResponseRedirect:
        """Redirect to the form's ``next`` (same site only) or ``default``."""
        target = self.request.POST.get("next") or ""
        if target and url_has_allowed_host_and_scheme(
            target,
            allowed_hosts={self.request.get_host()},
            require_https=self.request.is_secure(),
        ):
            return HttpResponseRedirect(target)
        return HttpResponseRedirect(default)


def namesakes_notice(request: HttpRequest, names: tuple[str, ...]) -> None:
    """After an import: the new players who share a name with a known player (another club,
    or several known players of that name), so the director checks them; the import did not
    ask, as a form does (``brackets.services.imports.ImportResult.namesakes``)."""
    if not names:
        return
    messages.warning(
        request,
        ngettext(
            "%(n)s new player has the name of a known player: %(names)s. Check that this is "
            "a different person; if not, a staff member merges the two on the “Possible "
            "duplicate players” page.",
            "%(n)s new players have the names of known players: %(names)s. Check that these "
            "are different people; if not, a staff member merges them on the “Possible "
            "duplicate players” page.",
            len(names),
        )
        % {"n": len(names), "names": ", ".join(names)},
    )
