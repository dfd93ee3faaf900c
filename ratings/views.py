"""The public player pages: the directory of players with their ratings, and a player's
profile (rating, rating history as chart and table, statistics and tournaments)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.html import format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET

from core.page_links import player_links
from ratings.charts import bar_chart, line_chart
from ratings.selectors import (
    DIRECTORY_ORDERS,
    HistoryLine,
    directory_lines,
    player_directory,
    player_profile,
    public_tournament,
)
from ratings.stats import (
    SEAT_STATS,
    forfeited_hands_counted,
    player_stats,
    tournament_leaders,
)

STAT_LABELS = {
    "match_wins": _("Match wins"),
    "hands_won": _("Hands won"),
    "domino_wins": _("Domino wins (R18)"),
    "block_wins": _("Block wins (R19)"),
    "llaves": _("Llaves"),
    "ties": _("Tied hands"),
    "replays_won": _("Replays won"),
    # A reset (R31a, R31d, R32) sends every score to 0; a six-love is a match won while others
    # are on 0 (R31c): different things, so the label names the reset rules, not "Six Love".
    "resets_caused": _("Resets caused (R31, R32)"),
    "six_love_given": _("Six-loves given"),
    "six_love_received": _("Six-loves received"),
}


DIRECTORY_PAGE_SIZE = 50


@require_GET
def player_directory_page(request: HttpRequest) -> HttpResponse:
    """``/players/``: every player of a public tournament, by rating or by name, searchable
    by name, nickname or club; 50 a page."""
    query = request.GET.get("q", "")[:100]
    order = request.GET.get("order", "rating")
    if order not in DIRECTORY_ORDERS:
        order = "rating"
    page = Paginator(player_directory(query=query, order=order), DIRECTORY_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    lines = directory_lines(page.object_list)
    # The rank in the rating list (rated players only; not while searching).
    ranked = order == "rating" and not query
    rows = [
        {
            "line": line,
            "rank": page.start_index() + i if ranked and line.rating is not None else None,
        }
        for i, line in enumerate(lines)
    ]
    return render(
        request,
        "ratings/player_directory.html",
        {"page": page, "rows": rows, "query": query, "order": order},
    )


@require_GET
def player_profile_page(request: HttpRequest, player_id: int) -> HttpResponse:
    profile = player_profile(player_id=player_id, user=request.user)
    if profile is None:
        raise Http404("No such player.")
    chart = line_chart([c.display_after for c in profile.history])
    stats = player_stats(player_id=player_id)
    wins = bar_chart(
        [
            (str(STAT_LABELS["domino_wins"]), stats.totals.get("domino_wins", 0)),
            (str(STAT_LABELS["block_wins"]), stats.totals.get("block_wins", 0)),
        ]
    )
    return render(
        request,
        "ratings/player_profile.html",
        {
            "profile": profile,
            "chart": chart,
            "history_rows": _history_rows(profile.history),
            "stats": stats,
            "stat_rows": [(STAT_LABELS[n], stats.totals.get(n, 0)) for n in SEAT_STATS],
            "wins_chart": wins,
            # The circuits the player has points in (registered by circuits: layering).
            "circuit_links": player_links(player_id),
        },
    )


@require_GET
def tournament_leaders_page(request: HttpRequest, slug: str) -> HttpResponse:
    """``/stats/<slug>/``: each statistic's leaders in a tournament, the players ranked in its
    top ten (level players share a rank; public, never a draft)."""
    tournament = public_tournament(slug=slug)
    if tournament is None:
        raise Http404("No such tournament.")
    boards = tournament_leaders(tournament_id=tournament.pk)
    return render(
        request,
        "ratings/leaders.html",
        {
            "tournament": tournament,
            "boards": [(stat, STAT_LABELS[stat], board) for stat, board in boards.items()],
            # Every board empty: say why (hands in play count once their match ends).
            "any_leader": any(board.rows or board.rest for board in boards.values()),
            # T7: these boards count the hands of forfeited matches; the standings do not.
            "forfeited_hands": forfeited_hands_counted(tournament_id=tournament.pk),
        },
    )


def _history_rows(history: list[HistoryLine]) -> SafeString:
    """The history table's rows, escaped and joined in one pass: a player with hundreds of
    rated matches would otherwise cost a template loop of thousands of nodes."""
    zone = timezone.get_current_timezone()
    return format_html_join(
        "\n",
        '<tr><td class="date">{}</td><td>{}</td><td>{} / {}</td><td>{}</td><td>{}</td></tr>',
        (
            (
                c.rated_at.astimezone(zone).strftime("%Y-%m-%d %H:%M"),
                c.tournament_name,
                *c.shown_place,
                c.display_after,
                f"{c.display_change:+d}",
            )
            for c in history
        ),
    )
