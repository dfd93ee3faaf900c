"""The spectators' replay of a hand entered move by move (issue 15).

``/live/<slug>/matches/<id>/hands/<n>/replay/``: public as the other live pages (a draft is
invisible, ``live_conditional``), for a live hand that carries a play log. The frames (the
deal, then the position after every move) come from the engine (``scoring.moves``); the page
steps through them with ``static/js/replay.js``. ``…/hands/0/replay/`` opens the latest one.
"""

from __future__ import annotations

import json
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _

from live.http import live_conditional, request_tournament
from scoring.models import Match, Seat
from scoring.moves import hand_replay, replay_numbers
from scoring.presenters.match import seat_label


def move_text(move: dict[str, Any] | None, labels: list[str]) -> str:
    """One move in words, as the entry page says it ("B · Bob plays 6-3 on the right")."""
    if move is None:
        return _("The deal")
    seat = int(move["seat"])
    params = {
        "seat": labels[seat] if seat < len(labels) else "ABCD"[seat],
        "tile": move.get("tile"),
    }
    kind = move["kind"]
    if kind == "pose":
        return _("%(seat)s poses %(tile)s") % params
    if kind == "play":
        if move.get("end") == "left":
            return _("%(seat)s plays %(tile)s on the left") % params
        return _("%(seat)s plays %(tile)s on the right") % params
    if kind == "draw":
        return _("%(seat)s draws %(tile)s") % params
    return _("%(seat)s passes") % params


def _result_text(frame: dict[str, Any], labels: list[str]) -> str:
    if frame.get("result") == "domino" and frame.get("winner") is not None:
        return _("%(seat)s dominoes") % {"seat": labels[int(frame["winner"])]}
    counts = ", ".join(f"{label} {c}" for label, c in zip(labels, frame["counts"], strict=False))
    return _("Blocked; counts: %(counts)s") % {"counts": counts}


@live_conditional(html=True)
def hand_replay_page(request: HttpRequest, slug: str, match_id: int, number: int) -> HttpResponse:
    t = request_tournament(request)
    match = (
        Match.objects.select_related("tournament", "table")
        .filter(pk=match_id, tournament_id=t.id)
        .first()
    )
    if match is None:
        raise Http404("No such match.")
    numbers = replay_numbers(match=match)
    if number == 0:
        if not numbers:
            raise Http404("No hand of this match was entered move by move.")
        return HttpResponseRedirect(
            reverse(
                "live:hand-replay",
                kwargs={"slug": t.slug, "match_id": match.pk, "number": numbers[-1]},
            )
        )
    replay = hand_replay(match=match, number=number)
    if replay is None:
        raise Http404("This hand has no move-by-move record.")
    seats = Seat.objects.filter(match=match).select_related("entry__player").order_by("seat")
    labels = [seat_label(s.seat, s.entry.player.name) for s in seats]
    frames = replay.frames
    for frame in frames:
        frame["text"] = move_text(frame["move"], labels)
    table = match.table.number if match.table is not None else None
    title = (
        _("Table %(table)s · hand %(n)s") % {"table": table, "n": number}
        if table
        else _("Hand %(n)s") % {"n": number}
    )
    earlier = [n for n in numbers if n < number]
    later = [n for n in numbers if n > number]

    def url(n: int) -> str:
        return reverse(
            "live:hand-replay", kwargs={"slug": t.slug, "match_id": match.pk, "number": n}
        )

    return render(
        request,
        "live/hand_replay.html",
        {
            "t": t,
            "tournament": match.tournament,
            "title": title,
            "hand": replay.hand,
            "labels": labels,
            "frames": frames,
            "frames_json": json.dumps(frames),
            "labels_json": json.dumps(labels),
            "result": _result_text(frames[-1], labels),
            "previous_url": url(earlier[-1]) if earlier else "",
            "next_url": url(later[0]) if later else "",
            "match_url": reverse("live:match", kwargs={"slug": t.slug, "match_id": match.pk}),
        },
    )
