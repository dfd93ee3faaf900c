"""The director's bracket (stages to the final table and the final places) and the action
log (who, when, what, why)."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from brackets.views.base import DirectorTournamentMixin
from brackets.views.presenters import build_bracket, user_label
from tournament.selectors import action_log_list

LOG_PAGE_SIZE = 50

# What each logged verb means, for the log page (unknown verbs show as they are).
VERBS = {
    "stage.create": "Stage created",
    "stage.update": "Stage settings changed",
    "stage.seed": "Stage seeded",
    "stage.reorder": "Seed order changed",
    "stage.add_entry": "Late entry added",
    "stage.withdraw": "Player withdrawn",
    "stage.disqualify": "Player disqualified",
    "stage.finish": "Stage finished",
    "round.publish": "Round published",
    "round.close": "Round closed",
    "round.call_time": "Time called (T3)",
    "round.replace_player": "Player replaced",
    "match.override": "Result set by the director",
    "match.forfeit": "Forfeit (T7)",
    "match.assign_referee": "Referee changed",
    "hand.void": "Hand voided",
    "entry.withdrawn": "Entry withdrawn",
    "entry.disqualified": "Entry disqualified",
    "referee_token.revoke": "Referee link revoked",
    "players.import": "Players imported (CSV)",
}


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
        rows: list[dict[str, Any]] = [
            {
                "log": log,
                "who": user_label(log.actor) if log.actor else "system",
                "what": VERBS.get(log.verb, log.verb),
                "target": f"{log.target_type.split('.')[-1]} {log.target_id}".strip(),
            }
            for log in page.object_list
        ]
        verbs = sorted(
            set(
                action_log_list(tournament=self.tournament)
                .order_by()
                .values_list("verb", flat=True)
                .distinct()
            )
        )
        return render(
            request,
            "brackets/action_log.html",
            self.base_context(
                rows=rows,
                page=page,
                verb=verb,
                verbs=[(v, VERBS.get(v, v)) for v in verbs],
            ),
        )
