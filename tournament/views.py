"""Pages of the tournament app: the referee link exchange, the director's start page, and the
director's lifecycle and referee pages.

The referee link is ``/ref/#<key>``: the key rides in the URL fragment, which browsers never
send, so it reaches no server or proxy log. ``GET /ref/`` serves a page whose static script
(static/js/referee-link.js) POSTs the fragment here; the exchange stores only the credential's
id in a fresh session (never ``django.contrib.auth.login``: a credential is a capability, not
an account) and answers where to go. Every later request re-checks that credential.

Matches live in ``scoring`` (a later layer), so these views never import it: the exchange
answers with the referee's match list by URL name, which forwards to the current match.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect, ensure_csrf_cookie
from django.views.decorators.http import require_http_methods

from core.choice_labels import choice_label
from core.exceptions import ApplicationError, NotFoundError, PermissionDeniedError
from tournament.api.serializers import referee_link as referee_link_url
from tournament.auth import client_ip
from tournament.context import (
    SESSION_CREDENTIAL_KEY,
    Action,
    TournamentContext,
    context_for,
    principal_from_request,
    require,
)
from tournament.models import RefereeToken, Tournament, TournamentRole
from tournament.qr import qr_svg
from tournament.services import (
    RefereeTokenInvalidError,
    RefereeTokenThrottledError,
    referee_create,
    referee_token_issue,
    referee_token_resolve,
    referee_token_revoke,
    tournament_reopen,
    tournament_status_change,
)


@never_cache
@ensure_csrf_cookie
@csrf_protect
@require_http_methods(["GET", "POST"])
def referee_link(request: HttpRequest) -> HttpResponse:
    """``/ref/``: GET the exchange page; POST ``key`` -> a session holding the credential id.

    Unknown and revoked keys get the same answer (a revoked key reveals nothing); too many
    wrong keys from one address get 429, a valid key never does.
    """
    if request.method == "GET":
        response = render(request, "tournament/referee_link.html")
        response["Referrer-Policy"] = "no-referrer"
        return response
    key = _posted_key(request)
    try:
        token = referee_token_resolve(key=key, client_ip=client_ip(request))
    except RefereeTokenThrottledError as exc:
        return _link_problem(exc.message, status=429)
    except RefereeTokenInvalidError as exc:
        message = (
            exc.message
            if exc.code == "tournament_not_running"
            else gettext(
                "This referee link is not valid. It may have been revoked or mistyped: "
                "ask the tournament director for a new one."
            )
        )
        return _link_problem(message, status=404 if exc.code == "invalid_token" else 403)
    # A fresh session: whoever was signed in on this phone (say, the director) is signed out,
    # and the session holds the credential id only.
    logout(request)
    request.session.cycle_key()
    request.session[SESSION_CREDENTIAL_KEY] = token.pk
    target = reverse("scoring:referee-home") + f"?tournament={token.role.tournament.slug}&go=1"
    response = JsonResponse({"redirect": target})
    response["Referrer-Policy"] = "no-referrer"
    return response


def _posted_key(request: HttpRequest) -> str:
    """``key`` from the form body the page's script sends, or from a JSON object."""
    if request.content_type == "application/json":
        try:
            data = json.loads(request.body[:1024] or b"{}")
        except (ValueError, UnicodeDecodeError):
            return ""
        value = data.get("key", "") if isinstance(data, dict) else ""
    else:
        value = request.POST.get("key", "")
    return value[:200] if isinstance(value, str) else ""


def _link_problem(message: str, *, status: int) -> JsonResponse:
    response = JsonResponse({"error": {"code": "referee_link", "message": message}}, status=status)
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


# -- director pages: lifecycle and referees ------------------------------------------------------


def director_context(request: HttpRequest, slug: str, action: Action) -> TournamentContext:
    """The one context + check for a director page: login first, 404 unknown, 403 by table."""
    if principal_from_request(request).user is None:
        raise PermissionDenied("Sign in as a director of this tournament.")
    try:
        ctx = context_for(request, slug=slug)
        require(ctx, Action.VIEW_PRIVATE)
    except NotFoundError as exc:
        raise Http404(exc.message) from exc
    except PermissionDeniedError as exc:
        raise PermissionDenied(exc.message) from exc
    return ctx


class StatusForm(forms.Form):
    status = forms.ChoiceField(choices=Tournament.Status.choices)
    reason = forms.CharField(max_length=2000, required=False)


class ReopenForm(forms.Form):
    reason = forms.CharField(max_length=2000)


class RefereeForm(forms.Form):
    username = forms.SlugField(max_length=150)
    display_name = forms.CharField(max_length=150, required=False)


class IssueForm(forms.Form):
    user = forms.IntegerField(min_value=1)
    label = forms.CharField(max_length=60, required=False)


class RevokeForm(forms.Form):
    token = forms.IntegerField(min_value=1)


def _run(request: HttpRequest, call: Any, success: str) -> Any:
    try:
        result = call()
    except PermissionDeniedError as exc:
        raise PermissionDenied(exc.message) from exc
    except ApplicationError as exc:
        text = (
            gettext("%(message)s [rule %(rule)s]") % {"message": exc.message, "rule": exc.rule}
            if exc.rule
            else exc.message
        )
        messages.error(request, text)
        return None
    messages.success(request, success)
    return result


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def lifecycle(request: HttpRequest, slug: str) -> HttpResponse:
    """``/director/tournaments/<slug>/lifecycle/``: move the status forward, or reopen."""
    ctx = director_context(request, slug, Action.VIEW_PRIVATE)
    tournament = ctx.tournament
    if request.method == "POST":
        actor = ctx.actor
        if "reopen" in request.POST:
            reopen_form = ReopenForm(request.POST)
            if reopen_form.is_valid():
                _run(
                    request,
                    lambda: tournament_reopen(
                        tournament=tournament,
                        actor=actor,
                        reason=reopen_form.cleaned_data["reason"],
                    ),
                    gettext("Tournament reopened."),
                )
            else:
                messages.error(request, gettext("Give a reason to reopen."))
        else:
            form = StatusForm(request.POST)
            if form.is_valid():
                _run(
                    request,
                    lambda: tournament_status_change(
                        tournament=tournament, actor=actor, **form.cleaned_data
                    ),
                    gettext("Status changed."),
                )
            else:
                messages.error(request, gettext("Choose a status."))
        return HttpResponseRedirect(reverse("tournament:lifecycle", args=[slug]))
    order = [s.value for s in Tournament.Status]
    later = order[order.index(tournament.status) + 1 :]
    return render(
        request,
        "tournament/lifecycle.html",
        {
            "tournament": tournament,
            "next_statuses": [(s, choice_label(Tournament.Status, s)) for s in later],
            "finished": tournament.status == Tournament.Status.FINISHED,
        },
    )


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def referees(request: HttpRequest, slug: str) -> HttpResponse:
    """``/director/tournaments/<slug>/referees/``: create referees (new tournament-scoped
    identities), issue a credential (shown ONCE, with its link and QR code), revoke."""
    ctx = director_context(request, slug, Action.VIEW_PRIVATE)
    tournament, actor = ctx.tournament, ctx.actor
    issued: dict[str, Any] | None = None
    if request.method == "POST":
        op = request.POST.get("op", "")
        if op == "create":
            form: forms.Form = RefereeForm(request.POST)
            if form.is_valid():
                _run(
                    request,
                    lambda: referee_create(tournament=tournament, actor=actor, **form.cleaned_data),
                    gettext("Referee created. Issue them a credential."),
                )
            else:
                messages.error(request, gettext("A referee name is letters, digits, - or _."))
        elif op == "issue":
            form = IssueForm(request.POST)
            role = (
                TournamentRole.objects.filter(
                    tournament=tournament,
                    user_id=form.cleaned_data["user"],
                    role=TournamentRole.Role.REFEREE,
                )
                .select_related("user")
                .first()
                if form.is_valid()
                else None
            )
            if role is None:
                messages.error(request, gettext("No such referee in this tournament."))
            else:
                token = _run(
                    request,
                    lambda: referee_token_issue(
                        tournament=tournament,
                        actor=actor,
                        user=role.user,
                        label=form.cleaned_data.get("label") or "",
                    ),
                    gettext("Credential issued: print or show it now, it is not shown again."),
                )
                if token is not None:
                    link = referee_link_url(token.key)
                    issued = {
                        "token": token,
                        "username": role.user.get_username(),
                        "key": token.key,
                        "link": link,
                        "qr": qr_svg(link),
                    }
        elif op == "revoke":
            form = RevokeForm(request.POST)
            token_obj = (
                RefereeToken.objects.select_related("role__tournament")
                .filter(pk=form.cleaned_data["token"], role__tournament=tournament)
                .first()
                if form.is_valid()
                else None
            )
            if token_obj is None:
                messages.error(request, gettext("No such credential in this tournament."))
            else:
                _run(
                    request,
                    lambda: referee_token_revoke(token=token_obj, actor=actor),
                    gettext("Credential revoked: it stops working at once."),
                )
        if issued is None:
            return HttpResponseRedirect(reverse("tournament:referees", args=[slug]))
    return _referees_page(request, tournament, issued)


def _referees_page(
    request: HttpRequest, tournament: Tournament, issued: dict[str, Any] | None
) -> HttpResponse:
    roles = list(
        TournamentRole.objects.filter(tournament=tournament, role=TournamentRole.Role.REFEREE)
        .select_related("user")
        .order_by("user__username")
    )
    tokens = list(
        RefereeToken.objects.filter(role__tournament=tournament)
        .select_related("role__user")
        .order_by("-created_at", "-id")
    )
    response = render(
        request,
        "tournament/referees.html",
        {
            "tournament": tournament,
            "referees": roles,
            "tokens": tokens,
            "issued": issued,
            "writable": tournament.status != Tournament.Status.FINISHED,
        },
    )
    response["Cache-Control"] = "no-store"
    return response
