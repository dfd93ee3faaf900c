"""The director's bracket (stages to the final table and the final places) and the action
log (who, when, what, why)."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from brackets.models import Round, Stage
from brackets.presenters.bracket import build_bracket
from brackets.presenters.director import user_label
from brackets.views.base import DirectorTournamentMixin
from scoring.models import Match
from tournament.models import ActionLog, Entry, Tournament
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


def _ids(logs: list[ActionLog], target_type: str) -> list[int]:
    return [
        int(x.target_id) for x in logs if x.target_type == target_type and x.target_id.isdigit()
    ]


def _targets(tournament: Tournament, logs: list[ActionLog]) -> dict[tuple[str, str], str]:
    """Readable names of the page's log targets (a query per kind of target, at most four)."""
    out: dict[tuple[str, str], str] = {}
    if ids := _ids(logs, "brackets.round"):
        for r in Round.objects.filter(pk__in=ids, stage__tournament=tournament).select_related(
            "stage"
        ):
            label = r.get_kind_display() if r.kind == Round.Kind.FINAL else f"round {r.number}"
            out["brackets.round", str(r.pk)] = f"{r.stage.name}, {label}"
    if ids := _ids(logs, "brackets.stage"):
        for stage in Stage.objects.filter(pk__in=ids, tournament=tournament):
            out["brackets.stage", str(stage.pk)] = f"stage {stage.number}, {stage.name}"
    if ids := _ids(logs, "tournament.entry"):
        for e in Entry.objects.filter(pk__in=ids, tournament=tournament).select_related("player"):
            out["tournament.entry", str(e.pk)] = e.player.name
    if ids := _ids(logs, "scoring.match"):
        for m in Match.objects.filter(pk__in=ids, tournament=tournament).select_related("table"):
            out["scoring.match", str(m.pk)] = m.label or f"match #{m.pk}"
    return out


def _target_url(tournament: Tournament, log: ActionLog) -> str:
    if log.target_type == "brackets.round" and log.target_id.isdigit():
        return reverse("brackets:round", args=[tournament.slug, int(log.target_id)])
    if log.target_type == "scoring.match" and log.target_id.isdigit():
        return reverse("scoring:match-referee", args=[int(log.target_id)])
    return ""


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
        targets = _targets(self.tournament, logs)
        rows: list[dict[str, Any]] = [
            {
                "log": log,
                "who": user_label(log.actor) if log.actor else "system",
                "what": VERBS.get(log.verb, log.verb),
                "target": targets.get((log.target_type, log.target_id))
                or (f"{log.target_type.split('.')[-1]} #{log.target_id}" if log.target_id else ""),
                "target_url": _target_url(self.tournament, log),
            }
            for log in logs
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
