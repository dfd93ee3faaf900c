"""Pages of the tournament app: the referee's private link and the director's start page.

Matches live in ``scoring`` (a later layer), so these views never import it: the private link
redirects by URL name to the referee's match list, which forwards to the current match.
"""

from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from tournament.auth import client_ip
from tournament.models import Tournament, TournamentRole
from tournament.services import (
    RefereeTokenInvalidError,
    RefereeTokenThrottledError,
    referee_token_resolve,
)

# Token-only referees have no password; the session remembers the model backend.
SESSION_BACKEND = "django.contrib.auth.backends.ModelBackend"


@never_cache
@require_GET
def referee_link(request: HttpRequest, key: str) -> HttpResponse:
    """``/ref/<key>/``: sign the referee in for this browser session, then go to their match.

    Unknown and revoked keys get the same 404 page (a revoked key reveals nothing); too many
    wrong keys from one address get 429 (the service's per-address counter, PITFALLS.md).
    """
    try:
        token = referee_token_resolve(key=key, client_ip=client_ip(request))
    except RefereeTokenThrottledError as exc:
        return _link_problem(request, exc.message, status=429)
    except RefereeTokenInvalidError:
        return _link_problem(
            request,
            "This referee link is not valid. It may have been revoked or mistyped: "
            "ask the tournament director for a new one.",
            status=404,
        )
    # login() rotates the session key, and flushes the session first when another account
    # (say, the director on a shared phone) was signed in.
    login(request, token.role.user, backend=SESSION_BACKEND)
    target = reverse("scoring:referee-home") + f"?tournament={token.role.tournament.slug}&go=1"
    response = HttpResponseRedirect(target)
    # The key is in this URL; never leak it to another site through Referer.
    response["Referrer-Policy"] = "no-referrer"
    return response


def _link_problem(request: HttpRequest, message: str, *, status: int) -> HttpResponse:
    response = render(
        request, "tournament/referee_link_invalid.html", {"message": message}, status=status
    )
    response["Referrer-Policy"] = "no-referrer"
    return response


@login_required
def director_home(request: HttpRequest) -> HttpResponse:
    """``/director/``: the tournaments this user directs (every one for a superuser)."""
    tournaments = Tournament.objects.order_by("-starts_on", "name", "id")
    if not request.user.is_superuser and request.user.pk is not None:
        tournaments = tournaments.filter(
            roles__user_id=request.user.pk, roles__role=TournamentRole.Role.DIRECTOR
        ).distinct()
    return render(request, "tournament/director_home.html", {"tournaments": list(tournaments)})
