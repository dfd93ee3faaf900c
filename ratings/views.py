"""The public player profile: rating, rating history (chart and table) and tournaments."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.html import format_html_join
from django.utils.safestring import SafeString
from django.views.decorators.http import require_GET

from ratings.charts import line_chart
from ratings.selectors import HistoryLine, player_profile


@require_GET
def player_profile_page(request: HttpRequest, player_id: int) -> HttpResponse:
    profile = player_profile(player_id=player_id)
    if profile is None:
        raise Http404("No such player.")
    chart = line_chart([c.display_after for c in profile.history])
    return render(
        request,
        "ratings/player_profile.html",
        {"profile": profile, "chart": chart, "history_rows": _history_rows(profile.history)},
    )


def _history_rows(history: list[HistoryLine]) -> SafeString:
    """The history table's rows, escaped and joined in one pass: a player with hundreds of
    rated matches would otherwise cost a template loop of thousands of nodes."""
    zone = timezone.get_current_timezone()
    return format_html_join(
        "\n",
        "<tr><td>{}</td><td>{}</td><td>{} / {}</td><td>{}</td><td>{}</td></tr>",
        (
            (
                c.rated_at.astimezone(zone).strftime("%Y-%m-%d %H:%M"),
                c.tournament_name,
                c.placing,
                c.table_size,
                c.display_after,
                f"{c.display_change:+d}",
            )
            for c in history
        ),
    )
