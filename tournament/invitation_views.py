"""Pages of co-director invitations (docs/security.md, docs/director-guide.md).

* ``/director/tournaments/<slug>/directors/``: the tournament's directors, and the invitations:
  create one (its link is shown ONCE, with a QR code), list the pending ones, revoke.
* ``/invite/``: the sign-up page of a link ``/invite/#<key>``. The key rides in the URL
  fragment, which browsers never send, so it reaches no server or proxy log and no Referer; the
  page's static script (static/js/director-invitation.js) POSTs it to ask whether it still
  works (``op=check``, JSON), then puts it in the sign-up form's hidden field. The sign-up POST
  creates a NEW account through ``director_invitation_accept`` and signs that account in, in a
  fresh session. A caller signed in with an account is refused: an invitation never attaches to
  an existing account.

The views only translate between HTTP and the services, which hold every rule.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import SetPasswordMixin, UsernameField
from django.contrib.auth.password_validation import password_validators_help_texts
from django.db import models
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect, ensure_csrf_cookie
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods

from core.choice_labels import choice_label
from core.exceptions import ApplicationError
from core.form_words import LABEL_ERRORS
from tournament.auth import client_ip
from tournament.context import Action, TournamentContext, principal_from_request
from tournament.models import DirectorInvitation, Tournament, TournamentRole
from tournament.qr import qr_svg
from tournament.referee_names import person_name
from tournament.selectors import director_invitations_pending
from tournament.services import (
    InvitationGoneError,
    InvitationInvalidError,
    InvitationThrottledError,
    director_invitation_accept,
    director_invitation_check,
    director_invitation_issue,
    director_invitation_revoke,
    director_roles_removable,
    role_revoke,
)
from tournament.services.invitations import LABEL_MAX_LENGTH, invitation_lifetime
from tournament.shown_once import shown_once_keep, shown_once_take
from tournament.views import _run, _service_text, director_context, unknown_op_refuse

# -- the directors page ----------------------------------------------------------------------


class InvitationForm(forms.Form):
    label = forms.CharField(
        max_length=LABEL_MAX_LENGTH,
        required=False,
        label=gettext_lazy("Label (optional: the person's name)"),
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
        error_messages=LABEL_ERRORS,
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "invite-%s")
        super().__init__(*args, **kwargs)


class InvitationRevokeForm(forms.Form):
    invitation = forms.IntegerField(min_value=1)


class DirectorRemoveForm(forms.Form):
    role = forms.IntegerField(min_value=1)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def directors(request: HttpRequest, slug: str) -> HttpResponse:
    """``/director/tournaments/<slug>/directors/``: the directors, and invitations for someone
    with no account to become one (issue: the link is shown once, by the GET the POST
    redirects to: ``tournament.shown_once``; revoke)."""
    ctx = director_context(request, slug, Action.VIEW_PRIVATE)
    tournament, actor = ctx.tournament, ctx.actor
    form = InvitationForm()
    if request.method == "POST":
        op = request.POST.get("op", "")
        if op == "issue":
            form = InvitationForm(request.POST)
            if not form.is_valid():
                return _directors_page(request, ctx, None, form=form, status=400)
            issued = _run(
                request,
                lambda: director_invitation_issue(
                    tournament=tournament, actor=actor, label=form.cleaned_data["label"]
                ),
                gettext("Invitation created: send the link now, it is not shown again."),
            )
            if issued is not None:  # shown by the GET this POST redirects to
                shown_once_keep(
                    request,
                    _issued_slot(tournament),
                    {"invitation": issued.pk, "link": issued.link},
                )
        elif op == "revoke":
            revoke_form = InvitationRevokeForm(request.POST)
            invitation = (
                DirectorInvitation.objects.select_related("tournament")
                .filter(pk=revoke_form.cleaned_data["invitation"], tournament=tournament)
                .first()
                if revoke_form.is_valid()
                else None
            )
            if invitation is None:
                messages.error(request, gettext("No such invitation in this tournament."))
            else:
                _run(
                    request,
                    lambda: director_invitation_revoke(invitation=invitation, actor=actor),
                    gettext("Invitation revoked: its link stops working at once."),
                )
        elif op == "remove":
            return _director_remove(request, ctx, form=form)
        else:
            unknown_op_refuse(request, op)
            return _directors_page(request, ctx, None, form=form, status=400)
        # POST-redirect-GET: a reload of the answer is a GET, which creates nothing.
        return HttpResponseRedirect(reverse("tournament:directors", args=[slug]))
    return _directors_page(request, ctx, _issued_take(request, tournament), form=form)


def _issued_slot(tournament: Tournament) -> str:
    return f"directors:{tournament.pk}"


def _issued_take(request: HttpRequest, tournament: Tournament) -> DirectorInvitation | None:
    """The invitation just created on this page, with its link, for its one page view
    (``tournament.shown_once``); ``None`` after."""
    kept = shown_once_take(request, _issued_slot(tournament))
    if kept is None or not isinstance(kept.get("link"), str):
        return None
    if not isinstance(kept.get("invitation"), int):
        return None
    invitation = DirectorInvitation.objects.filter(
        pk=kept["invitation"], tournament=tournament
    ).first()
    if invitation is not None:
        invitation.link = kept["link"]  # type: ignore[attr-defined]  # shown once
    return invitation


def _director_remove(
    request: HttpRequest, ctx: TournamentContext, *, form: InvitationForm
) -> HttpResponse:
    """Remove a director (or step down) by the service's rule (``role_revoke``): a refusal
    shows the page again with its status (403 the rule, 409 the last director or the
    lifecycle gate) and the message naming the rule, whatever the POST was forged to ask."""
    tournament, actor = ctx.tournament, ctx.actor
    remove_form = DirectorRemoveForm(request.POST)
    role = (
        TournamentRole.objects.select_related("user", "tournament")
        .filter(
            pk=remove_form.cleaned_data["role"],
            tournament=tournament,
            role=TournamentRole.Role.DIRECTOR,
        )
        .first()
        if remove_form.is_valid()
        else None
    )
    if role is None:
        messages.error(request, gettext("No such director in this tournament."))
        return _directors_page(request, ctx, None, form=form, status=404)
    stepping_down = role.user_id == actor.pk
    name = person_name(role.user)
    try:
        role_revoke(role=role, actor=actor)
    except ApplicationError as exc:
        messages.error(request, _service_text(exc))
        return _directors_page(request, ctx, None, form=form, status=exc.status_code)
    if stepping_down and not actor.is_superuser:
        messages.success(
            request,
            gettext("You stepped down: you no longer direct %(tournament)s.")
            % {"tournament": tournament.name},
        )
        return HttpResponseRedirect(reverse("tournament:director-home"))
    messages.success(
        request, gettext("%(name)s no longer directs this tournament.") % {"name": name}
    )
    return HttpResponseRedirect(reverse("tournament:directors", args=[tournament.slug]))


def _directors_page(
    request: HttpRequest,
    ctx: TournamentContext,
    issued: DirectorInvitation | None,
    *,
    form: InvitationForm,
    status: int = 200,
) -> HttpResponse:
    tournament = ctx.tournament
    roles = list(
        TournamentRole.objects.filter(tournament=tournament, role=TournamentRole.Role.DIRECTOR)
        .select_related("user", "invitation__issued_by")
        .order_by("user__username")
    )
    # A Remove (or Step down) button only where the service would accept it.
    removable = director_roles_removable(tournament=tournament, actor=ctx.actor, roles=roles)
    for role in roles:
        role.removable = role.pk in removable  # type: ignore[attr-defined]
        role.is_owner = role.user_id == tournament.created_by_id  # type: ignore[attr-defined]
        role.is_me = role.user_id == ctx.actor.pk  # type: ignore[attr-defined]
    link = getattr(issued, "link", "")
    response = render(
        request,
        "tournament/directors.html",
        {
            "tournament": tournament,
            "directors": roles,
            "pending": list(director_invitations_pending(tournament=tournament)),
            "issued": issued,
            "issued_link": link,
            "issued_qr": qr_svg(link) if link else "",
            "form": form,
            "days": invitation_lifetime().days,
            # The services' own rule (table and lifecycle gate): no form that can only fail.
            "writable": ctx.can(Action.INVITE_DIRECTOR),
            "status_label": choice_label(Tournament.Status, tournament.status),
        },
        status=status,
    )
    response["Cache-Control"] = "no-store"
    return response


# -- the sign-up page of an invitation link ---------------------------------------------------


def _username_field() -> UsernameField:
    model_field = get_user_model()._meta.get_field(get_user_model().USERNAME_FIELD)
    assert isinstance(model_field, models.Field), model_field
    return UsernameField(
        max_length=getattr(model_field, "max_length", None) or 150,
        label=gettext_lazy("User name"),
        help_text=model_field.help_text,
        widget=forms.TextInput(attrs={"spellcheck": "false"}),
    )


class InvitationSignupForm(SetPasswordMixin, forms.Form):  # type: ignore[type-arg]
    """A user name and the password twice (Django's password fields and messages); the rules
    (a name free in any case, the password validators) are the service's. The validators'
    rules are shown under the first password by the page."""

    username = _username_field()
    password1, password2 = SetPasswordMixin.create_password_fields(label1=gettext_lazy("Password"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["password1"].help_text = ""

    def clean(self) -> dict[str, Any]:
        self.validate_passwords()
        super().clean()
        return self.cleaned_data


def _invited_text(invitation: DirectorInvitation) -> str:
    return gettext(
        "You are invited to direct %(tournament)s. Choose a user name and a password for your "
        "new account."
    ) % {"tournament": invitation.tournament.name}


def _signed_in_text(user: Any) -> str:
    return gettext(
        "You are signed in as %(user)s. An invitation makes a new account: sign out first, "
        "then open the link again. To make the account you are signed in with a co-director, "
        "ask the site's staff."
    ) % {"user": user.get_username()}


def _invitation_page(
    request: HttpRequest,
    *,
    form: InvitationSignupForm | None = None,
    key: str = "",
    invited: str = "",
    refusal: str = "",
    signed_in: bool = False,
    status: int = 200,
) -> HttpResponse:
    response = render(
        request,
        "tournament/director_invitation.html",
        {
            "form": form or InvitationSignupForm(),
            "key": key,
            "invited": invited,
            "refusal": refusal,
            "signed_in": signed_in,
            "password_rules": password_validators_help_texts(),
        },
        status=status,
    )
    # The key is never in a URL (only the fragment, which no Referer carries); same-origin, not
    # no-referrer: under no-referrer a browser posts the form with "Origin: null", which the
    # CSRF check refuses.
    response["Referrer-Policy"] = "same-origin"
    return response


def _json(body: dict[str, Any], *, status: int = 200) -> JsonResponse:
    response = JsonResponse(body, status=status)
    response["Referrer-Policy"] = "no-referrer"
    return response


def _posted_key(request: HttpRequest) -> str:
    value = request.POST.get("key", "")
    return value[:200] if isinstance(value, str) else ""


@never_cache
@sensitive_post_parameters("key", "password1", "password2")
@ensure_csrf_cookie
@csrf_protect
@require_http_methods(["GET", "POST"])
def director_invitation(request: HttpRequest) -> HttpResponse:
    """``/invite/``: GET the sign-up page; POST ``op=check`` + ``key`` -> JSON (does the
    invitation still work?); POST ``key``, ``username``, ``password1``, ``password2`` -> a NEW
    account directing the invitation's tournament, signed in, sent to its dashboard.

    Refusals: a signed-in account 403 (sign out first; never attached to it), a wrong key 404,
    an expired, revoked or used invitation 410, a finished tournament 409, too many wrong keys
    from one address 429; a form to correct is shown again with 400.
    """
    user = principal_from_request(request).user
    checking = request.method == "POST" and request.POST.get("op") == "check"
    if user is not None:
        text = _signed_in_text(user)
        if checking:
            return _json({"error": {"code": "signed_in", "message": text}}, status=403)
        return _invitation_page(request, refusal=text, signed_in=True, status=403)
    if request.method == "GET":
        return _invitation_page(request)
    key = _posted_key(request)
    if checking:
        try:
            usable = director_invitation_check(key=key, client_ip=client_ip(request))
        except ApplicationError as exc:
            body = {"error": {"code": exc.code, "message": exc.message}}
            return _json(body, status=exc.status_code)
        return _json({"message": _invited_text(usable)})
    form = InvitationSignupForm(request.POST)
    invitation: DirectorInvitation | None = None
    try:
        # A dead invitation is refused before its form is corrected; the sign-up itself checks
        # again under the invitation's row lock.
        invitation = director_invitation_check(key=key, client_ip=client_ip(request))
        if not form.is_valid():
            return _signup_again(request, form, key, invitation)
        new_user = director_invitation_accept(
            key=key,
            username=form.cleaned_data["username"],
            password=form.cleaned_data["password1"],
            client_ip=client_ip(request),
        )
    except (InvitationInvalidError, InvitationGoneError, InvitationThrottledError) as exc:
        return _invitation_page(request, refusal=exc.message, status=exc.status_code)
    except ApplicationError as exc:
        field = next((name for name in exc.fields if name in form.fields), None)
        if field is None or invitation is None:  # the tournament is finished (409)
            return _invitation_page(request, refusal=_service_text(exc), status=exc.status_code)
        for message in exc.fields[field]:
            form.add_error(field, message)
        return _signup_again(request, form, key, invitation)
    # A fresh session for the new account: whatever this browser held (a referee link's
    # session) is forgotten, and no earlier session id survives.
    request.session.flush()
    login(request, new_user, backend="django.contrib.auth.backends.ModelBackend")
    role = new_user.tournament_roles.select_related("tournament").get()
    messages.success(
        request,
        gettext("Welcome! You now direct %(tournament)s.") % {"tournament": role.tournament.name},
    )
    return HttpResponseRedirect(reverse("scoring:director-dashboard", args=[role.tournament.slug]))


def _signup_again(
    request: HttpRequest, form: InvitationSignupForm, key: str, invitation: DirectorInvitation
) -> HttpResponse:
    """The form again with its errors and the key in its hidden field (400)."""
    return _invitation_page(
        request, form=form, key=key, invited=_invited_text(invitation), status=400
    )
