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
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, logout
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect, ensure_csrf_cookie
from django.views.decorators.http import require_http_methods

from core.choice_labels import choice_label
from core.exceptions import ApplicationError, NotFoundError, PermissionDeniedError, readable_rule
from core.form_words import REASON_ERRORS, no_control_characters
from core.views import api_error
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
from tournament.referee_names import (
    REFEREE_NAME_ALLOWED,
    REFEREE_NAME_MAX_LENGTH,
    REFEREE_NAME_PATTERN,
    person_name,
    referee_name_key,
    shown_username,
)
from tournament.services import (
    RefereeTokenInvalidError,
    RefereeTokenThrottledError,
    referee_create,
    referee_token_issue,
    referee_token_resolve,
    referee_token_revoke,
    tournament_create_allowed,
    tournament_reopen,
    tournament_status_change,
)
from tournament.shown_once import shown_once_keep, shown_once_take


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
        return _link_refused(exc)
    # A fresh session: whoever was signed in on this phone (say, the director) is signed out,
    # and the session holds the credential id only.
    logout(request)
    request.session.cycle_key()
    request.session[SESSION_CREDENTIAL_KEY] = token.pk
    # Not a browser-session cookie (SESSION_EXPIRE_AT_BROWSER_CLOSE is for accounts): a phone
    # closed mid-match keeps its link; the credential is re-checked on every request.
    request.session.set_expiry(settings.SESSION_COOKIE_AGE)
    target = reverse("scoring:referee-home") + f"?tournament={token.role.tournament.slug}&go=1"
    response = JsonResponse({"redirect": target})
    response["Referrer-Policy"] = "no-referrer"
    return response


def _posted_key(request: HttpRequest) -> str:
    """``key`` from the form body the page's script sends, or from a JSON object. Any string
    may come out (a NUL, a lone surrogate): ``referee_token_resolve`` checks its shape before
    a lookup and counts an odd one as a wrong key."""
    if request.content_type == "application/json":
        try:
            data = json.loads(request.body[:1024] or b"{}")
        except (ValueError, UnicodeDecodeError):
            return ""
        value = data.get("key", "") if isinstance(data, dict) else ""
    else:
        value = request.POST.get("key", "")
    return value[:200] if isinstance(value, str) else ""


def _link_refused(exc: RefereeTokenInvalidError) -> JsonResponse:
    """A valid key of a tournament that is not running says so (and, once it is finished,
    that the referee's work is done); any other refusal says only that the link is not
    valid (a revoked key reveals nothing)."""
    if exc.code != "tournament_not_running":
        message = gettext(
            "This referee link is not valid. It may have been revoked or mistyped: "
            "ask the tournament director for a new one."
        )
        return _link_problem(message, status=404 if exc.code == "invalid_token" else 403)
    if exc.extra.get("tournament_status") == Tournament.Status.FINISHED:
        done = gettext("Your work as referee is done: thank you!")
        return _link_problem(f"{exc.message} {done}", status=403, code="tournament_finished")
    return _link_problem(exc.message, status=403)


def _link_problem(message: str, *, status: int, code: str = "referee_link") -> JsonResponse:
    response = JsonResponse({"error": {"code": code, "message": message}}, status=status)
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
    user = request.user
    tournament_list = list(tournaments)
    may_create = tournament_create_allowed(actor=user)
    context = {
        "tournaments": tournament_list,
        # A user who may not create one sees why instead of a button that answers 403: an
        # account made by a co-director invitation directs its tournament and no more.
        "may_create": may_create,
        "invited_only": not may_create and bool(tournament_list),
        # The admin link only for staff the admin lets do something (superuser, or a model
        # permission): it would otherwise open on "no permission to view or edit anything".
        "may_admin": bool(
            user.is_active and user.is_staff and (user.is_superuser or user.get_all_permissions())
        ),
    }
    return render(request, "tournament/director_home.html", context)


# -- director pages: lifecycle and referees ------------------------------------------------------


def director_context(request: HttpRequest, slug: str, action: Action) -> TournamentContext:
    """The one context + check for a director page: login first, 404 unknown, 403 by table."""
    if principal_from_request(request).user is None:
        raise PermissionDenied(gettext("Sign in as a director of this tournament."))
    try:
        ctx = context_for(request, slug=slug)
        require(ctx, Action.VIEW_PRIVATE)
    except NotFoundError as exc:
        raise Http404(exc.message) from exc
    except PermissionDeniedError as exc:
        raise PermissionDenied(exc.message) from exc
    return ctx


REASON_MAX_LENGTH = 2000


class StatusForm(forms.Form):
    status = forms.ChoiceField(
        choices=Tournament.Status.choices,
        error_messages={
            "required": gettext_lazy("Status: choose one."),
            "invalid_choice": gettext_lazy("Status: choose one of the statuses offered."),
        },
    )
    reason = forms.CharField(
        max_length=REASON_MAX_LENGTH,
        required=False,
        error_messages=REASON_ERRORS,
        validators=[no_control_characters],
    )


class ReopenForm(forms.Form):
    reason = forms.CharField(
        max_length=REASON_MAX_LENGTH,
        error_messages={
            **REASON_ERRORS,
            "required": gettext_lazy("Reason: required to reopen a finished tournament."),
        },
        validators=[no_control_characters],
    )


def _user_max_length(name: str) -> int:
    """The column's limit: a referee is a user row (``referee_create``)."""
    field = get_user_model()._meta.get_field(name)
    assert isinstance(field, models.CharField), name
    assert field.max_length is not None, name
    return int(field.max_length)


class RefereeForm(forms.Form):
    """A new referee: each problem is one message under its field, naming the field and the
    limit or the rule ("Display name: at most 150 characters (this one has 200)."); the page
    keeps what was typed."""

    username = forms.SlugField(
        # The typed name; its user name also holds the tournament's prefix (referee_names).
        max_length=REFEREE_NAME_MAX_LENGTH,
        label=gettext_lazy("New referee (name without spaces)"),
        widget=forms.TextInput(
            attrs={
                "pattern": REFEREE_NAME_PATTERN,
                "title": REFEREE_NAME_ALLOWED,
                "autocomplete": "off",
            }
        ),
        error_messages={
            "required": gettext_lazy("Referee name: required."),
            "invalid": REFEREE_NAME_ALLOWED,
            "max_length": gettext_lazy(
                "Referee name: at most %(limit_value)d characters (this one has %(show_value)d)."
            ),
        },
    )
    display_name = forms.CharField(
        max_length=_user_max_length("first_name"),
        required=False,
        label=gettext_lazy("Display name"),
        error_messages={
            "max_length": gettext_lazy(
                "Display name: at most %(limit_value)d characters (this one has %(show_value)d)."
            ),
        },
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "ref-%s")
        super().__init__(*args, **kwargs)
        self.fields["display_name"].widget.attrs["id"] = "ref-display"


class IssueForm(forms.Form):
    user = forms.IntegerField(min_value=1)
    label = forms.CharField(max_length=60, required=False)


class RevokeForm(forms.Form):
    token = forms.IntegerField(min_value=1)


def _service_text(exc: ApplicationError) -> str:
    """A service's refusal as the page says it, naming its rule if it has one."""
    rule = readable_rule(exc.rule)
    if rule and rule not in exc.message:
        return gettext("%(message)s [rule %(rule)s]") % {"message": exc.message, "rule": rule}
    return exc.message


def _run(request: HttpRequest, call: Any, success: str) -> Any:
    try:
        result = call()
    except PermissionDeniedError as exc:
        raise PermissionDenied(exc.message) from exc
    except ApplicationError as exc:
        messages.error(request, _service_text(exc))
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
    if request.method != "POST":
        return _lifecycle_page(request, tournament)
    actor = ctx.actor
    reopen = "reopen" in request.POST
    form: forms.Form = ReopenForm(request.POST) if reopen else StatusForm(request.POST)
    # A refusal shows the page again (400) with the message under the field it names and
    # what was typed kept; before, every refusal of the form redirected with "Choose a status."
    if form.is_valid():
        try:
            if reopen:
                tournament_reopen(tournament=tournament, actor=actor, **form.cleaned_data)
            else:
                tournament_status_change(tournament=tournament, actor=actor, **form.cleaned_data)
        except PermissionDeniedError as exc:
            raise PermissionDenied(exc.message) from exc
        except ApplicationError as exc:
            field = next((name for name in exc.fields if name in form.fields), None)
            form.add_error(field, _service_text(exc))
        else:
            messages.success(
                request,
                gettext("Tournament reopened.") if reopen else gettext("Status changed."),
            )
            return HttpResponseRedirect(reverse("tournament:lifecycle", args=[slug]))
    tournament.refresh_from_db()
    return _lifecycle_page(request, tournament, form=form, status=400)


def _lifecycle_page(
    request: HttpRequest,
    tournament: Tournament,
    *,
    form: forms.Form | None = None,
    status: int = 200,
) -> HttpResponse:
    order = [s.value for s in Tournament.Status]
    later = order[order.index(tournament.status) + 1 :]
    return render(
        request,
        "tournament/lifecycle.html",
        {
            "tournament": tournament,
            "next_statuses": [(s, choice_label(Tournament.Status, s)) for s in later],
            "finished": tournament.status == Tournament.Status.FINISHED,
            "form": form,
            "reason_max_length": REASON_MAX_LENGTH,
        },
        status=status,
    )


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def referees(request: HttpRequest, slug: str) -> HttpResponse:
    """``/director/tournaments/<slug>/referees/``: create referees (new tournament-scoped
    identities), issue a credential (shown ONCE, with its link and QR code, by the GET the
    POST redirects to: ``tournament.shown_once``), revoke."""
    ctx = director_context(request, slug, Action.VIEW_PRIVATE)
    tournament, actor = ctx.tournament, ctx.actor
    if request.method == "POST":
        op = request.POST.get("op", "")
        if op == "create":
            create_form = RefereeForm(request.POST)
            if not _referee_create(request, ctx, create_form):
                # The errors are on the form, once, and the inputs keep what was typed.
                return _referees_page(request, ctx, None, create_form=create_form, status=400)
        elif op == "issue":
            form: forms.Form
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
                if token is not None:  # shown by the GET this POST redirects to
                    shown_once_keep(
                        request,
                        _issued_slot(tournament),
                        {"token": token.pk, "key": token.key},
                    )
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
        else:
            unknown_op_refuse(request, op)
            return _referees_page(request, ctx, None, status=400)
        # POST-redirect-GET: a reload of the answer is a GET, which issues nothing.
        return HttpResponseRedirect(reverse("tournament:referees", args=[slug]))
    return _referees_page(request, ctx, _issued_take(request, tournament))


def _issued_slot(tournament: Tournament) -> str:
    return f"referees:{tournament.pk}"


def _issued_take(request: HttpRequest, tournament: Tournament) -> dict[str, Any] | None:
    """The credential just issued on this page, for its one page view (``tournament.
    shown_once``): the referee's name, the key, its link and QR code; ``None`` after."""
    kept = shown_once_take(request, _issued_slot(tournament))
    if kept is None or not isinstance(kept.get("token"), int):
        return None
    token = (
        RefereeToken.objects.filter(pk=kept["token"], role__tournament=tournament)
        .select_related("role__user")
        .first()
    )
    key = kept.get("key")
    if token is None or not isinstance(key, str):
        return None
    link = referee_link_url(key)
    return {
        "token": token,
        "username": person_name(token.role.user),
        "key": key,
        "link": link,
        "qr": qr_svg(link),
    }


def unknown_op_refuse(request: HttpRequest, op: str) -> None:
    """Say that the POST's ``op`` is not one the page knows; the caller shows the page again
    with status 400 (before, a redirect that did nothing and said nothing)."""
    messages.error(
        request,
        gettext("Unknown action %(op)s: reload the page and use its buttons.")
        % {"op": repr(op[:40])},
    )


def _referee_create(request: HttpRequest, ctx: TournamentContext, form: RefereeForm) -> bool:
    """Create the referee of a valid ``form``; a refusal becomes an error of the form, on the
    field it names (a taken name) or on the form (the lifecycle gate)."""
    if not form.is_valid():
        return False
    try:
        referee_create(tournament=ctx.tournament, actor=ctx.actor, **form.cleaned_data)
    except PermissionDeniedError as exc:
        raise PermissionDenied(exc.message) from exc
    except ApplicationError as exc:
        field = next((name for name in exc.fields if name in form.fields), None)
        form.add_error(field, _service_text(exc))
        return False
    messages.success(request, gettext("Referee created. Issue them a credential."))
    return True


def _referees_page(
    request: HttpRequest,
    ctx: TournamentContext,
    issued: dict[str, Any] | None,
    *,
    create_form: RefereeForm | None = None,
    status: int = 200,
) -> HttpResponse:
    tournament = ctx.tournament
    roles = sorted(  # by the typed name, as by user name before names were per tournament
        TournamentRole.objects.filter(tournament=tournament, role=TournamentRole.Role.REFEREE)
        .select_related("user")
        .order_by("pk"),
        key=lambda r: (referee_name_key(shown_username(r.user)), r.pk),
    )
    tokens = list(
        RefereeToken.objects.filter(role__tournament=tournament)
        .select_related("role__user")
        .order_by("-created_at", "-id")
    )
    active: dict[int, int] = {}
    for t in tokens:
        if t.revoked_at is None:
            active[t.role.user_id] = active.get(t.role.user_id, 0) + 1
    for role in roles:
        role.active_credentials = active.get(role.user_id, 0)  # type: ignore[attr-defined]
    response = render(
        request,
        "tournament/referees.html",
        {
            "tournament": tournament,
            "referees": roles,
            "tokens": tokens,
            "issued": issued,
            # The services' own rule (permission table and lifecycle gate): a finished
            # tournament shows no form that could only be refused.
            "writable": ctx.can(Action.MANAGE_REFEREES),
            "status_label": choice_label(Tournament.Status, tournament.status),
            "create_form": create_form or RefereeForm(),
        },
        status=status,
    )
    response["Cache-Control"] = "no-store"
    return response


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """403: the page says what was refused and where the caller's own pages are (a referee's
    matches, a director's tournaments, the sign-in page), in the page's language."""
    message = str(exception or "") or gettext("You may not open this page.")
    api = api_error(request, 403, "permission_denied", message)
    if api is not None:
        return api
    principal = principal_from_request(request)
    return render(
        request,
        "403.html",
        {
            "message": message,
            "is_referee": principal.referee is not None,
            "is_user": principal.user is not None,
        },
        status=403,
    )
