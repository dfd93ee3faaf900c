"""The director's dispute queue (issue 15): ``/director/tournaments/<slug>/disputes/``.

Every open dispute with both versions of the hand (the referee's record and the player's
claim); the director upholds or corrects it with a reason (scoring.confirmation.dispute_resolve,
logged in the action log). Access: the route table (VIEW_PRIVATE to see, DECIDE_MATCH to act).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from core.exceptions import ApplicationError, NotFoundError, PermissionDeniedError
from dominoes.digits import parse_int
from scoring import confirmation
from tournament.context import Action, context_for, require


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def dispute_queue(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        ctx = context_for(request, slug=slug)
        require(ctx, Action.VIEW_PRIVATE if request.method == "GET" else Action.DECIDE_MATCH)
    except NotFoundError:
        raise Http404("No such tournament.") from None
    except PermissionDeniedError:
        raise PermissionDenied(
            _("Only a director of this tournament may resolve disputes.")
        ) from None
    tournament = ctx.tournament
    error = ""
    if request.method == "POST":
        # 0: no such match. Scoped to this URL's tournament: a match of another one is not
        # found here, whatever its disputes or the caller's rights there.
        match_id = parse_int(request.POST.get("match_id", "")) or 0
        try:
            confirmation.dispute_resolve(
                match_id=match_id,
                actor=request.user,
                decision=request.POST.get("decision"),
                reason=request.POST.get("reason", ""),
                tournament_id=tournament.pk,
            )
        except PermissionDeniedError:
            raise PermissionDenied(
                _("Only a director of this tournament may resolve disputes.")
            ) from None
        except NotFoundError:
            error = _("No such match in this tournament.")
        except ApplicationError as exc:
            error = exc.message
        else:
            messages.success(request, _("Dispute resolved."))
            return HttpResponseRedirect(reverse("scoring:dispute-queue", args=[slug]))
    open_rows = confirmation.disputes_for(tournament=tournament)
    resolved = [
        r
        for r in confirmation.disputes_for(tournament=tournament, open_only=False)
        if r.dispute.status != "open"
    ]
    return render(
        request,
        "scoring/dispute_queue.html",
        {"tournament": tournament, "rows": open_rows, "resolved": resolved, "error": error},
        status=400 if error else 200,
    )
