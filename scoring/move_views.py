"""The move-by-move entry page of a feature table (issue 15).

``/matches/<id>/moves/``: the referee taps each seat's tiles, then every pose, play, draw and
pass in order; after each tap the page asks the engine (``POST …/hands/check/``, a dry run)
and shows the position or the rule a move breaks. The finished log is recorded through the
ordinary hand endpoint. Who may see the page: the match's referee (a credential of its
tournament) or a director, as the referee page; the entry itself is offered at feature tables
(``Table.feature``) and always to directors.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from scoring.engine import RuleViolation
from scoring.engine.rules import Opening
from scoring.error_messages import ERROR_MESSAGES
from scoring.models import Match, Seat
from scoring.moves import deal_facts, move_entry_allowed
from scoring.presenters.match import match_view, ruleset_of
from scoring.views import match_page_context
from tournament.context import Action, principal_from_request

#: The referee's words for the engine's move codes (``scoring.engine.turns``), in the page's
#: language; ``%(seat)s`` is the seat that moved, ``%(tile)s`` the tile. Other codes fall back
#: to ``scoring.error_messages`` and then to the API's message.
MOVE_ERROR_MESSAGES: dict[str, Promise] = {
    "not_your_turn": gettext_lazy("It is not %(seat)s's turn."),
    "wrong_poser": gettext_lazy("%(seat)s does not pose this hand."),
    "forced_pose_tile": gettext_lazy("This hand is a forced pose: it opens with %(tile)s."),
    "pose_expected": gettext_lazy("The hand starts with the pose."),
    "already_posed": gettext_lazy("The hand is already posed."),
    "tile_not_held": gettext_lazy("%(seat)s does not hold %(tile)s."),
    "tile_missing": gettext_lazy("Tap a tile."),
    "tile_does_not_match": gettext_lazy("%(tile)s does not match an open end."),
    "end_ambiguous": gettext_lazy("%(tile)s fits both ends: choose the end."),
    "pass_while_playable": gettext_lazy("%(seat)s holds a tile that plays, so cannot pass."),
    "draw_while_playable": gettext_lazy("%(seat)s holds a tile that plays, so cannot draw."),
    "must_draw": gettext_lazy("%(seat)s cannot play and must draw from the boneyard."),
    "no_boneyard": gettext_lazy("This deal has no boneyard to draw from."),
    "boneyard_reserve": gettext_lazy("The boneyard is down to its reserve: pass instead."),
    "tile_not_in_boneyard": gettext_lazy("%(tile)s is not in the boneyard."),
    "draw_tile_missing": gettext_lazy("Tap the tile that was drawn."),
    "hand_over": gettext_lazy("The hand is over: record it."),
    # The engine names R11 (no "sporting" in tournament play); the forced pose itself is R5.
    "sporting_not_allowed": gettext_lazy(
        "This hand is a forced pose (R5): %(seat)s must pose 6-6; no other tile may open it "
        "in tournament play"
    ),
    "invalid_deal": gettext_lazy("The deal is not complete or a tile is listed twice."),
    "log_incomplete": gettext_lazy("The hand is not over yet."),
}


def _messages_json() -> str:
    table = {code: str(message) for code, message in ERROR_MESSAGES.items()}
    table.update({code: str(message) for code, message in MOVE_ERROR_MESSAGES.items()})
    return json.dumps(table)


def _match(match_id: int) -> Match:
    match = (
        Match.objects.select_related("tournament", "table", "referee").filter(pk=match_id).first()
    )
    if match is None:
        raise Http404("No such match.")
    return match


@never_cache
@require_GET
def match_moves(request: HttpRequest, match_id: int) -> HttpResponse:
    """``/matches/<id>/moves/``: enter the next hand move by move (feature tables)."""
    principal = principal_from_request(request)
    if principal.is_anonymous:
        return redirect_to_login(request.get_full_path())
    match = _match(match_id)
    ctx = match_page_context(request, match)

    seats = list(Seat.objects.filter(match=match).select_related("entry__player").order_by("seat"))
    view = match_view(match, seats, [])
    open_ = match.status in (Match.Status.IN_PROGRESS, Match.Status.SCHEDULED)
    may_write = ctx.can(Action.RECORD_HAND)
    allowed = move_entry_allowed(actor=ctx.actor, match=match)
    try:
        ruleset = ruleset_of(match)
        facts: dict[str, Any] = deal_facts(ruleset, match.n_players)
    except RuleViolation:
        facts = {}
    else:
        # The first hand under lot_then_rotate: whoever won the lot poses it (R6).
        facts["lot_choice"] = (
            match.status == Match.Status.SCHEDULED and ruleset.opening is Opening.LOT_THEN_ROTATE
        )
    slug = match.tournament.slug
    return render(
        request,
        "scoring/moves/entry.html",
        {
            "match": match,
            "view": view,
            "is_director": ctx.is_director,
            "feature": bool(match.table and match.table.feature),
            "can_enter": open_ and may_write and allowed and bool(facts),
            "entry_closed": not (open_ and may_write),
            "not_feature": open_ and may_write and not allowed,
            "can_toggle": ctx.is_director and match.table_id is not None and ctx.can(Action.MANAGE),
            "number": match.hands_count + 1,
            "seats_json": json.dumps([s.label for s in view.seats]),
            "deal_json": json.dumps(facts),
            "messages_json": _messages_json(),
            "csrf_token_value": get_token(request),
            "check_url": reverse("scoring-api:hand-check", args=[match.pk]),
            "hands_url": reverse("scoring-api:hand-list", args=[match.pk]),
            "feature_url": reverse("scoring-api:table-feature", args=[match.pk]),
            "referee_url": reverse("scoring:match-referee", args=[match.pk]),
            "replay_url": reverse(
                "live:hand-replay", kwargs={"slug": slug, "match_id": match.pk, "number": 0}
            ),
        },
    )
