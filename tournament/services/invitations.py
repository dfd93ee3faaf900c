"""Co-director invitations (docs/security.md): a one-time link, ``/invite/#<key>``, with which
someone who has no account creates one that directs ONE tournament.

What an invitation grants is exactly that: one NEW account (active, not staff, no Django
permission, never allowed to create tournaments: ``tournament_create_allowed``) holding the
director role in the invitation's tournament. It never signs anyone in as an account that
existed before, nor gives a role to one (that stays staff's ``role_grant``).

The key is made, stored and compared like a referee credential's (:mod:`.credentials`, whose
helpers these are): ``<prefix>.<secret>``, a non-secret prefix for the lookup, only a SHA-256 of
the whole key stored, compared with :func:`hmac.compare_digest`; wrong keys count towards the
same per-address limit. It works until ``DIRECTOR_INVITATION_DAYS`` after it was issued, once,
while its issuer still directs the tournament and the tournament is not finished. Accepting
locks the invitation's row, so two sign-ups racing with one link make one account.
"""

from __future__ import annotations

import hmac
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.debug import sensitive_variables

from core.exceptions import ApplicationError
from tournament.models import DirectorInvitation, Tournament
from tournament.services.common import (
    User,
    _action,
    action_log_record,
    require_director,
)
from tournament.services.credentials import (
    KEY_SEPARATOR,
    RefereeTokenThrottledError,
    credential_failure_count,
    credential_hash,
    credential_key_new,
    credential_key_well_formed,
    invitation_revoke_locked,
)
from tournament.services.roles import role_grant_by_invitation

LABEL_MAX_LENGTH = DirectorInvitation._meta.get_field("label").max_length or 60


class InvitationInvalidError(ApplicationError):
    """Unknown, garbled or wrong-secret key (counted towards the per-address failure limit)."""

    status_code = 404


class InvitationGoneError(ApplicationError):
    """A real invitation that no longer works: expired, revoked or already used."""

    status_code = 410


class InvitationThrottledError(ApplicationError):
    """Too many wrong keys from one client address."""

    status_code = 429


def invitation_lifetime() -> timedelta:
    """How long a new invitation works (setting ``DIRECTOR_INVITATION_DAYS``, default 7)."""
    return timedelta(days=int(getattr(settings, "DIRECTOR_INVITATION_DAYS", 7)))


def director_invitation_link(key: str) -> str:
    """The link to hand over: the key rides in the fragment, which browsers never send, so it
    reaches no server, proxy or access log (the page's script posts it)."""
    path = reverse("tournament:director-invitation")
    return f"{settings.SITE_URL.rstrip('/')}{path}#{key}"


@transaction.atomic
def director_invitation_issue(
    *, tournament: Tournament, actor: User, label: str = ""
) -> DirectorInvitation:
    """Issue an invitation to direct ``tournament`` (its directors, while it is not finished).

    The returned instance carries ``key`` and ``link`` for this one answer; only the key's hash
    is stored. ``label`` is the director's note (the person's name), shown on their page only.
    """
    require_director(actor=actor, tournament=tournament, action=_action("INVITE_DIRECTOR"))
    label = (label or "").strip()
    if len(label) > LABEL_MAX_LENGTH:
        message = _("Label: at most %(limit)d characters (this one has %(count)d).") % {
            "limit": LABEL_MAX_LENGTH,
            "count": len(label),
        }
        raise ApplicationError(message, code="label_too_long", fields={"label": [message]})
    prefix, key = credential_key_new()
    invitation = DirectorInvitation.objects.create(
        tournament=tournament,
        prefix=prefix,
        key_hash=credential_hash(key),
        label=label,
        issued_by=actor,
        expires_at=timezone.now() + invitation_lifetime(),
    )
    action_log_record(
        tournament=tournament,
        actor=actor,
        verb="director_invitation.issue",
        target=invitation,
        data={"prefix": prefix, "label": label, "expires_at": invitation.expires_at},
    )
    invitation.key = key  # type: ignore[attr-defined]  # shown once, never stored
    invitation.link = director_invitation_link(key)  # type: ignore[attr-defined]
    return invitation


@transaction.atomic
def director_invitation_revoke(
    *, invitation: DirectorInvitation, actor: User
) -> DirectorInvitation:
    """Revoke an invitation at once (any director of its tournament; idempotent). A used one
    has nothing left to revoke: remove the co-director's role instead."""
    tournament = invitation.tournament
    require_director(actor=actor, tournament=tournament, action=_action("INVITE_DIRECTOR"))
    # The lock orders this against a sign-up with the same link: one of them wins, whole.
    locked = DirectorInvitation.objects.select_for_update().get(pk=invitation.pk)
    if locked.used_at is not None:
        raise ApplicationError(
            _("This invitation has already been used: there is nothing left to revoke."),
            code="invitation_used",
        )
    invitation_revoke_locked(locked, tournament=tournament, actor=actor, at=timezone.now())
    return locked


@sensitive_variables("key")
def _invitation_for_key(*, key: Any, client_ip: str, lock: bool) -> DirectorInvitation:
    """The invitation whose key this is (whatever its state), or :class:`InvitationInvalidError`
    counted as a wrong key for ``client_ip`` (429 once over the limit)."""
    # Only a key shaped like an issued one reaches the database (a NUL in the prefix was a
    # PostgreSQL DataError, a 500); anything else is a wrong key, counted.
    prefix = key.split(KEY_SEPARATOR, 1)[0] if credential_key_well_formed(key) else ""
    invitation = None
    if prefix:
        rows = DirectorInvitation.objects.select_related("tournament", "issued_by")
        if lock:
            # Only the invitation's row: the tournament's is the hot row every hand updates.
            rows = rows.select_for_update(of=("self",))
        invitation = rows.filter(prefix=prefix).first()
    if invitation is None or not hmac.compare_digest(invitation.key_hash, credential_hash(key)):
        try:
            credential_failure_count(client_ip)
        except RefereeTokenThrottledError as exc:
            raise InvitationThrottledError(
                _("Too many wrong invitation links from this address: try again in a few minutes."),
                code="throttled",
            ) from exc
        raise InvitationInvalidError(
            _(
                "This invitation link is not valid. It may have been mistyped or cut short: "
                "ask the tournament director for a new one."
            ),
            code="invitation_invalid",
        )
    return invitation


def _require_usable(invitation: DirectorInvitation) -> None:
    """Refuse an invitation that no longer works, saying why (only the key's holder gets here:
    the secret has been checked)."""
    from tournament.context import STATUS_GATES, Action, actor_may

    words = {"tournament": invitation.tournament.name}
    if invitation.used_at is not None:
        raise InvitationGoneError(
            _(
                "This invitation has already been used: it makes one account only. If that "
                "account is yours, sign in with it; otherwise ask a director of %(tournament)s "
                "for a new invitation."
            )
            % words,
            code="invitation_used",
        )
    issuer = invitation.issued_by
    if (
        invitation.revoked_at is not None
        or issuer is None
        or not issuer.is_active
        or not actor_may(issuer, invitation.tournament_id, Action.INVITE_DIRECTOR)
    ):  # an invitation lasts only while the director who issued it directs the tournament
        raise InvitationGoneError(
            _("This invitation was withdrawn: ask a director of %(tournament)s for a new one.")
            % words,
            code="invitation_revoked",
        )
    if invitation.expires_at <= timezone.now():
        raise InvitationGoneError(
            _("This invitation has expired: ask a director of %(tournament)s for a new one.")
            % words,
            code="invitation_expired",
        )
    if invitation.tournament.status not in STATUS_GATES[Action.INVITE_DIRECTOR]:
        raise ApplicationError(
            _("%(tournament)s is finished: nobody can join it as a director now.") % words,
            code="tournament_finished",
            rule="lifecycle",
            status=409,
        )


@sensitive_variables("key")
def director_invitation_check(*, key: Any, client_ip: str) -> DirectorInvitation:
    """The usable invitation of ``key`` (the sign-up page asks before showing its form), or
    the refusal saying why. Reads only; wrong keys count as :func:`director_invitation_accept`
    counts them."""
    invitation = _invitation_for_key(key=key, client_ip=client_ip, lock=False)
    _require_usable(invitation)
    return invitation


def _new_account(*, username: Any, password: Any) -> Any:
    """An unsaved, valid NEW account (the user model's own username rules, a name not taken in
    any case, Django's password validators), or an error naming the form's field."""
    user_model = get_user_model()
    name_field = user_model._meta.get_field(user_model.USERNAME_FIELD)
    assert isinstance(name_field, models.Field), name_field
    username = user_model.normalize_username(username if isinstance(username, str) else "")
    try:
        username = name_field.clean(username, None)
    except ValidationError as exc:
        raise ApplicationError(
            " ".join(exc.messages), code="bad_username", fields={"username": exc.messages}
        ) from exc
    if user_model._default_manager.filter(
        **{f"{user_model.USERNAME_FIELD}__iexact": username}
    ).exists():
        message = _("This user name is taken: choose another.")
        raise ApplicationError(message, code="username_taken", fields={"username": [message]})
    user = user_model(
        **{user_model.USERNAME_FIELD: username}, is_active=True, is_staff=False, is_superuser=False
    )
    try:
        validate_password(password if isinstance(password, str) else "", user=user)
    except ValidationError as exc:
        raise ApplicationError(
            " ".join(exc.messages), code="weak_password", fields={"password1": exc.messages}
        ) from exc
    user.set_password(password)
    return user


@sensitive_variables("key", "password")
@transaction.atomic
def director_invitation_accept(*, key: Any, username: Any, password: Any, client_ip: str) -> Any:
    """Use an invitation: create a NEW account named ``username`` with ``password`` and make
    it a director of the invitation's tournament; returns the account (the caller signs it
    in).

    The invitation's row is locked for the whole transaction, so two sign-ups with one link
    make exactly one account (the second finds it used). The account is active, not staff,
    with no Django permission, and creates no tournaments (the role came by invitation). The
    grant is logged as ``role.grant`` by :func:`role_grant_by_invitation`.
    """
    invitation = _invitation_for_key(key=key, client_ip=client_ip, lock=True)
    _require_usable(invitation)
    user = _new_account(username=username, password=password)
    try:
        with transaction.atomic():  # a name taken meanwhile (another invitation) is a refusal
            user.save()
    except IntegrityError as exc:
        message = _("This user name is taken: choose another.")
        raise ApplicationError(
            message, code="username_taken", fields={"username": [message]}
        ) from exc
    role = role_grant_by_invitation(invitation=invitation, user=user)
    invitation.used_at, invitation.used_by, invitation.role = timezone.now(), user, role
    invitation.save(update_fields=["used_at", "used_by", "role", "updated_at"])
    return user
