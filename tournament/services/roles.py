"""Tables and roles: create tables, grant and revoke roles (by staff, or through a co-director
invitation), create referees."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core.exceptions import ApplicationError, NotFoundError, PermissionDeniedError
from core.visible_text import name_clean, names_check
from tournament.models import (
    DirectorInvitation,
    Table,
    Tournament,
    TournamentRole,
)
from tournament.referee_names import (
    REFEREE_NAME_ALLOWED,
    REFEREE_NAME_MAX_LENGTH,
    person_name,
    referee_name_allowed,
    referee_name_normalized,
    referee_username,
)
from tournament.selectors import referee_name_taken
from tournament.services.common import (
    User,
    _action,
    action_log_record,
    require_director,
)
from tournament.services.credentials import invitation_revoke_locked
from tournament.services.tournaments import tournament_version_bump

# -- tables and roles ---------------------------------------------------------------------------


@transaction.atomic
def table_create(*, tournament: Tournament, actor: User, number: int, label: str = "") -> Table:
    require_director(actor=actor, tournament=tournament)
    names_check({"label": label}, labels={"label": _("Label")})
    label = name_clean(label)
    if Table.objects.filter(tournament=tournament, number=number).exists():
        raise ApplicationError(
            _("Table %(number)s exists.") % {"number": number},
            code="table_exists",
            fields={"number": [_("Taken.")]},
        )
    table = Table.objects.create(tournament=tournament, number=number, label=label)
    tournament_version_bump(tournament_id=tournament.pk)
    return table


@transaction.atomic
def role_grant(*, tournament: Tournament, actor: User, user: User, role: str) -> TournamentRole:
    """Make an EXISTING account a co-director of ``tournament`` (idempotent).

    Only an account holding ``tournament.add_tournamentrole`` may do this (superusers, staff
    given it in the admin; never the staff flag alone: docs/security.md), never a director: a
    director cannot hand a role to an arbitrary account, whose id is public. Staff and
    superuser accounts never get a tournament role this way, and the referee role is never
    granted to an account: referees are tournament-scoped identities created by
    :func:`referee_create`.
    """
    require_director(actor=actor, tournament=tournament, action=_action("GRANT_ROLE"))
    if role not in TournamentRole.Role.values:
        raise ApplicationError(
            _("Unknown role %(role)s.") % {"role": repr(role)},
            code="bad_role",
            fields={"role": [_("director or referee")]},
        )
    if role == TournamentRole.Role.REFEREE:
        raise ApplicationError(
            _(
                "The referee role is not given to an account: create a referee for this "
                "tournament (POST referees/) and issue them a credential."
            ),
            code="referee_is_not_an_account",
            fields={"role": [_("Create a referee instead.")]},
        )
    if getattr(user, "is_staff", False) or getattr(user, "is_superuser", False):
        raise ApplicationError(
            _("Staff and superuser accounts are never given a tournament role."),
            code="privileged_account",
            fields={"user": [_("A staff or superuser account.")]},
        )
    if not getattr(user, "is_active", False):
        raise ApplicationError(
            _("This account cannot sign in (a referee identity?)."),
            code="inactive_account",
            fields={"user": [_("Inactive account.")]},
        )
    obj, created = TournamentRole.objects.get_or_create(tournament=tournament, user=user, role=role)
    if created:
        action_log_record(
            tournament=tournament,
            actor=actor,
            verb="role.grant",
            target=obj,
            data={"user_id": user.pk, "role": role},
        )
    return obj


def role_grant_by_invitation(*, invitation: DirectorInvitation, user: User) -> TournamentRole:
    """Make ``user``, the NEW account an invitation just created, a director of the
    invitation's one tournament (docs/security.md), logged as :func:`role_grant` is.

    The invitation is the authority, not the new account: a director of that tournament issued
    it, so the log names the issuer as the actor. The caller
    (:func:`tournament.services.invitations.director_invitation_accept`) holds the invitation's
    row lock inside its transaction and has checked that the invitation is usable and that its
    issuer still directs the tournament. Never an account that existed before, never staff.
    """
    if getattr(user, "is_staff", False) or getattr(user, "is_superuser", False):
        raise ApplicationError(
            _("Staff and superuser accounts are never given a tournament role."),
            code="privileged_account",
        )
    role = TournamentRole.objects.create(
        tournament_id=invitation.tournament_id, user=user, role=TournamentRole.Role.DIRECTOR
    )
    action_log_record(
        tournament=invitation.tournament,
        actor=invitation.issued_by,
        verb="role.grant",
        target=role,
        data={
            "user_id": user.pk,
            "role": role.role,
            "username": user.get_username(),
            "invitation": invitation.prefix,
        },
    )
    return role


#: The rule a refused removal names (docs/security.md, "Removing a director").
REMOVAL_RULE = "co_directors"


def director_removal_refusal(
    *, role: TournamentRole, actor: User, tournament: Tournament, directors: int
) -> ApplicationError | None:
    """Why ``actor``, a director of ``tournament``, may not remove ``role``, or ``None``.

    The rule (docs/security.md, "Removing a director"): any director removes a referee. A
    director role may be removed by its holder (stepping down), by the director who invited
    its holder (``DirectorInvitation.role``), by the director who created the tournament
    (``Tournament.created_by``, whom no co-director removes), and by a superuser; in every
    case one director must remain (``directors``: how many the tournament has, counted under
    :func:`role_revoke`'s lock). An invitation is for sharing the work: it gives no power over
    the director who sent it, nor over the other co-directors.

    Pure over what the caller loaded (``role.user`` and ``role.invitation``), so the directors
    page offers **Remove** exactly where the service would accept it.
    """
    if role.role != TournamentRole.Role.DIRECTOR:
        return None
    name = person_name(role.user)
    own = role.user_id == actor.pk
    if not (own or getattr(actor, "is_superuser", False)):
        invitation = getattr(role, "invitation", None)  # the reverse one-to-one, or none
        if role.user_id == tournament.created_by_id:
            return PermissionDeniedError(
                _(
                    "%(name)s created this tournament: a co-director cannot remove them. "
                    "Only they can step down."
                )
                % {"name": name},
                code="director_is_owner",
                rule=REMOVAL_RULE,
            )
        invited_by_actor = invitation is not None and invitation.issued_by_id == actor.pk
        if actor.pk != tournament.created_by_id and not invited_by_actor:
            return PermissionDeniedError(
                _(
                    "You did not invite %(name)s: a director removes only the co-directors "
                    "they invited, or themselves (stepping down). The director who created "
                    "the tournament may remove any co-director."
                )
                % {"name": name},
                code="director_not_invited_by_you",
                rule=REMOVAL_RULE,
            )
    if directors <= 1:
        return last_director_refusal()
    return None


def last_director_refusal() -> ApplicationError:
    """The refusal of a removal that would leave a tournament without a director (409): the
    directors page's, the API's and the admin's (:mod:`tournament.services.staff_removals`)."""
    return ApplicationError(
        _("A tournament keeps at least one director."),
        code="last_director",
        rule=REMOVAL_RULE,
        status=409,
    )


def director_roles_removable(
    *, tournament: Tournament, actor: User, roles: list[TournamentRole]
) -> set[int]:
    """The ids of the director ``roles`` (of ``tournament``, with ``user`` and ``invitation``
    loaded) that ``actor`` could remove now: the service's own rule, for the directors page.
    Empty when the actor may not remove roles at all (the table, the lifecycle gate)."""
    from tournament.context import Action, actor_may

    if tournament.status not in _removal_statuses() or not actor_may(
        actor, tournament.pk, Action.MANAGE_REFEREES
    ):
        return set()
    directors = sum(1 for r in roles if r.role == TournamentRole.Role.DIRECTOR)
    return {
        r.pk
        for r in roles
        if director_removal_refusal(role=r, actor=actor, tournament=tournament, directors=directors)
        is None
    }


def _removal_statuses() -> frozenset[str]:
    from tournament.context import STATUS_GATES, Action

    return STATUS_GATES[Action.MANAGE_REFEREES]


@transaction.atomic
def role_revoke(*, role: TournamentRole, actor: User) -> None:
    """Remove a role (logged) by the rule of :func:`director_removal_refusal`; its referee
    credentials are deleted with it, and a removed director's pending co-director invitations
    are revoked (an invitation issued before the removal must not bring its issuer's power
    back through a new account).

    Removals in one tournament run one at a time: the tournament's row is locked
    (``FOR NO KEY UPDATE``, which leaves inserts that reference it alone) before anything is
    checked, so two directors removing each other at once cannot both see two directors and
    leave none. The second one waits, then finds itself no longer a director (403) or the
    other the last one (409).
    """
    action = _action("MANAGE_REFEREES")
    require_director(actor=actor, tournament=role.tournament, action=action)
    tournament = Tournament.objects.select_for_update(no_key=True).get(pk=role.tournament_id)
    # Everything below reads after the lock: under READ COMMITTED each statement sees what a
    # removal that held the lock before this one committed.
    require_director(actor=actor, tournament=tournament, action=action)
    current = (
        TournamentRole.objects.select_related("user", "invitation")
        .filter(pk=role.pk, tournament_id=tournament.pk)
        .first()
    )
    if current is None:
        raise NotFoundError(
            _("No role %(id)s in this tournament.") % {"id": role.pk}, code="not_found"
        )
    role = current
    directors = TournamentRole.objects.filter(
        tournament_id=tournament.pk, role=TournamentRole.Role.DIRECTOR
    ).count()
    refusal = director_removal_refusal(
        role=role, actor=actor, tournament=tournament, directors=directors
    )
    if refusal is not None:
        raise refusal
    role_remove_locked(role=role, tournament=tournament, actor=actor)


def role_remove_locked(*, role: TournamentRole, tournament: Tournament, actor: User) -> None:
    """Delete ``role`` (logged), its referee credentials with it, and revoke the pending
    co-director invitations of a removed director (an invitation issued before the removal
    must not bring its issuer's power back through a new account). The caller holds the
    tournament's row lock and has applied the removal rule."""
    action_log_record(
        tournament=tournament,
        actor=actor,
        verb="role.revoke",
        target=role,
        data={"user_id": role.user_id, "role": role.role},
    )
    if role.role == TournamentRole.Role.DIRECTOR:
        pending = DirectorInvitation.objects.select_for_update().filter(
            tournament_id=tournament.pk,
            issued_by_id=role.user_id,
            revoked_at__isnull=True,
            used_at__isnull=True,
        )
        for invitation in pending:
            invitation_revoke_locked(
                invitation,
                tournament=tournament,
                actor=actor,
                at=timezone.now(),
                because="issuer_removed",
            )
    role.delete()  # its credentials go with it (cascade): they stop working at once


def referee_name_clean(name: object) -> str:
    """The typed referee name as stored (:func:`tournament.referee_names.referee_name_normalized`),
    or a 400 naming the field ``username``: required, at most ``REFEREE_NAME_MAX_LENGTH``
    characters (the user column also holds the tournament's prefix), and only the characters
    of ``REFEREE_NAME_PATTERN``: the same rule as the referees page, so a name made through
    the API can also be typed there."""
    cleaned = referee_name_normalized(name if isinstance(name, str) else "")
    if not cleaned:
        message = _("Referee name: required.")
        raise ApplicationError(message, code="required", fields={"username": [message]})
    if len(cleaned) > REFEREE_NAME_MAX_LENGTH:
        message = _(
            "Referee name: at most %(limit_value)d characters (this one has %(show_value)d)."
        ) % {"limit_value": REFEREE_NAME_MAX_LENGTH, "show_value": len(cleaned)}
        raise ApplicationError(message, code="max_length", fields={"username": [message]})
    if not referee_name_allowed(cleaned):
        message = str(REFEREE_NAME_ALLOWED)
        raise ApplicationError(message, code="invalid", fields={"username": [message]})
    return cleaned


def _referee_name_taken(name: str) -> ApplicationError:
    message = _("This tournament already has a referee named '%(name)s': choose another name.") % {
        "name": name
    }
    return ApplicationError(message, code="username_taken", fields={"username": [message]})


@transaction.atomic
def referee_create(
    *, tournament: Tournament, actor: User, username: str, display_name: str = ""
) -> TournamentRole:
    """Create a NEW tournament-scoped referee identity (docs/security.md) named ``username``,
    the name the director types.

    It is a user row only so that ``Match.referee`` and ``Hand.recorded_by`` keep pointing at
    a user (the hot-path SQL is unchanged): no password, not staff, **inactive** (Django never
    signs it in), one referee role in this one tournament. It acts only through a credential
    (:func:`referee_token_issue`).

    Its user name is ``ref:<tournament id>:<name>`` (``tournament.referee_names``): a name no
    sign-up can make, so a name is refused only when THIS tournament already has a referee of
    that name, in any case; whether a site account of that name exists is neither checked
    nor revealed (it was a username oracle).
    """
    require_director(actor=actor, tournament=tournament, action=_action("MANAGE_REFEREES"))
    # A display name with nothing visible is none (the page shows the name instead).
    names_check({"display_name": display_name}, labels={"display_name": _("Display name")})
    display_name = name_clean(display_name)
    name = referee_name_clean(username)
    # One creation at a time per tournament: the unique user name column does not see "Ana"
    # and "ana" as one name, the check below does. FOR NO KEY UPDATE does not block inserts
    # that reference the tournament (their KEY SHARE lock); it is held for two inserts.
    Tournament.objects.select_for_update(no_key=True).filter(pk=tournament.pk).values_list(
        "pk", flat=True
    ).first()
    taken = referee_name_taken(tournament_id=tournament.pk, name=name)
    if taken is not None:
        raise _referee_name_taken(taken)
    user_model = get_user_model()
    user = user_model(
        username=referee_username(tournament_id=tournament.pk, name=name),
        first_name=display_name[:150],
        is_active=False,
        is_staff=False,
    )
    user.set_unusable_password()
    try:
        with transaction.atomic():  # the same name raced in (SQLite locks no row)
            user.save()
    except IntegrityError as exc:
        raise _referee_name_taken(name) from exc
    role = TournamentRole.objects.create(
        tournament=tournament, user=user, role=TournamentRole.Role.REFEREE
    )
    action_log_record(
        tournament=tournament,
        actor=actor,
        verb="referee.create",
        target=role,
        data={"user_id": user.pk, "username": name},
    )
    return role
