"""Public spectator pages: server-rendered, mobile-first, kept live by static/js/live.js.

Every page is a conditional GET on the tournament version (:mod:`live.http`); its live region
is rendered once per version and language (:mod:`live.presenters.documents`), so a hall full
of phones re-fetching after an event mostly gets 304s, and otherwise a cached region inside the thin
site frame. The page root tells the script which websocket to follow and how (see live.js).
"""

from __future__ import annotations

import json
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from core.titles import round_title, table_title
from live import exports
from live.http import html_etag, live_conditional, request_tournament
from live.presenters.documents import html_region, json_document, part_of_links
from live.scope import PUBLIC_STATUSES
from tournament.models import Tournament

POLL_SECONDS = 15


def _page(
    request: HttpRequest,
    *,
    page: str,
    title: str | None,
    follow: str,
    extra: tuple[int, ...] = (),
    matches: list[int] | None = None,
    ws: str | None = None,
    body_class: str = "",
) -> HttpResponse:
    t = request_tournament(request)
    region = html_region(page, t, *extra)
    if region is None:
        raise Http404
    summary = json.loads(json_document("summary", t))
    if title is None:  # the home: "Live" while it plays, "Results" once finished
        finished = summary["tournament"].get("status") == "finished"
        title = _("Results") if finished else _("Live")
    ws_path = ws or f"/ws/live/{t.slug}/"
    return render(
        request,
        "live/page.html",
        {
            "t": t,
            "tournament": summary["tournament"],
            "page": page,
            "title": title,
            "region": region,
            "follow": follow,
            "matches": " ".join(str(m) for m in matches or []),
            "open_matches": summary.get("open_matches", {}),
            "ws": f"{ws_path}?lang={get_language()}",
            "etag": html_etag(t),
            "poll": POLL_SECONDS,
            "body_class": body_class,
            # "Part of <circuit>": the circuits register their links (core.page_links).
            "part_of": [] if page == "projector" else part_of_links(t),
        },
    )


@live_conditional(html=True)
def home(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(request, page="home", title=None, follow="finished")


@live_conditional(html=True)
def tables(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(request, page="tables", title=_("Live tables"), follow="tables")


@live_conditional(html=True)
def standings(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(request, page="standings", title=_("Standings"), follow="finished")


@live_conditional(html=True)
def bracket(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(request, page="bracket", title=_("Bracket"), follow="finished")


@live_conditional(html=True)
def player(request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
    t = request_tournament(request)
    data = json.loads(json_document("player", t, entry_id))
    if data is None:
        raise Http404
    return _page(
        request,
        page="player",
        title=data["entry"]["name"],
        follow="matches",
        extra=(entry_id,),
        matches=[m["match"]["id"] for m in data["matches"]],
    )


@live_conditional(html=True)
def match(request: HttpRequest, slug: str, match_id: int) -> HttpResponse:
    t = request_tournament(request)
    data = json.loads(json_document("match", t, match_id))
    if data is None:
        raise Http404
    return _page(
        request,
        page="match",
        title=_match_title(data["match"]),
        follow="matches",
        extra=(match_id,),
        matches=[match_id],
        ws=f"/ws/live/{t.slug}/matches/{match_id}/",
    )


def _match_title(match: dict[str, Any]) -> str:
    """ "Round 2 · Table 3", "Final table · Table 1": which table of which round, so a final
    does not read like any other table (the page shows the stage elsewhere). A pairs final is
    "The final (two partnerships)", as the bracket names it (T10)."""
    table = table_title(match.get("table_number"))
    rnd = match.get("round")
    if not rnd:
        return table
    name = round_title(rnd["kind"], rnd["number"], pairs=bool(rnd.get("pairs")))
    return f"{name} · {table}"


@live_conditional(html=True)
def projector(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(
        request,
        page="projector",
        title=_("Projector"),
        follow="tables finished",
        body_class="projector",
    )


def index(request: HttpRequest) -> HttpResponse:
    """Public tournaments, those in play first."""
    order = {Tournament.Status.RUNNING: 0, Tournament.Status.REGISTRATION: 1}
    rows: list[Any] = list(
        Tournament.objects.filter(status__in=PUBLIC_STATUSES).only(
            "name", "slug", "status", "venue", "starts_on"
        )[:200]
    )
    rows.sort(key=lambda t: (order.get(t.status, 2), t.name))
    return render(request, "live/index.html", {"tournaments": rows})


@live_conditional(html=False)
def export(request: HttpRequest, slug: str, kind: str, fmt: str) -> HttpResponse:
    """``/live/<slug>/export/<kind>.<csv|json>``: players, matches, hands or standings."""
    if kind not in exports.KINDS:
        raise Http404("No such export.")
    t = request_tournament(request)
    if fmt == "csv":
        response = HttpResponse(exports.export_csv(kind, t), content_type="text/csv; charset=utf-8")
    else:
        response = JsonResponse(exports.export_json(kind, t), safe=False)
    response["Content-Disposition"] = f'attachment; filename="{t.slug}-{kind}.{fmt}"'
    return response
