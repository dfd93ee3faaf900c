"""The director's bracket (stages to the final table and the final places) and the action
log (who, when, what, why)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from brackets.presenters.action_log import log_rows, verb_choices
from brackets.presenters.bracket import build_bracket
from brackets.views.base import DirectorTournamentMixin
from tournament.selectors import action_log_list

LOG_PAGE_SIZE = 50


class BracketView(DirectorTournamentMixin):
    """``bracket/``: stages → rounds → tables → who went on, the final table, the places."""

    nav = "bracket"

    def get(self, request: HttpRequest, slug: str) -> HttpResponse:
        return render(
            request,
            "brackets/bracket.html",
            self.base_context(bracket=build_bracket(self.tournament)),
        )


class ActionLogView(DirectorTournamentMixin):
    """``log/``: the tournament's action log, newest first, filterable by action."""

    nav = "log"

    def get(self, request: HttpRequest, slug: str) -> HttpResponse:
        qs = action_log_list(tournament=self.tournament)
        verb = request.GET.get("verb", "")
        if verb:
            qs = qs.filter(verb=verb)
        page = Paginator(qs, LOG_PAGE_SIZE).get_page(request.GET.get("page"))
        logs = list(page.object_list)
        verbs = (
            action_log_list(tournament=self.tournament)
            .order_by()
            .values_list("verb", flat=True)
            .distinct()
        )
        return render(
            request,
            "brackets/action_log.html",
            self.base_context(
                rows=log_rows(self.tournament, logs),
                page=page,
                verb=verb,
                verbs=verb_choices(verbs),
            ),
        )
