"""Removals made from the Django admin: a role, several roles, an account that holds roles.

The admin deleted rows directly, past the rule the services enforce: a tournament keeps at
least one director (docs/security.md, "Removing a director";
:func:`tournament.services.roles.director_removal_refusal`). Deleting its last director's
role, a bulk delete of roles, or deleting the account of its last director left a tournament
nobody could manage but a superuser. The admin now asks :func:`director_removals_refusals`
first (to refuse with a message before its confirmation page) and removes through these
services, which lock the tournaments and ask again (two staff deleting at once), and log each
removed role as the directors page does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from core.exceptions import ApplicationError, PermissionDeniedError
from tournament.models import Tournament, TournamentRole
from tournament.principal import holds_permission
from tournament.services.common import User
from tournament.services.roles import last_director_refusal, role_remove_locked


def director_removals_refusals(*, roles: Iterable[TournamentRole]) -> list[ApplicationError]:
    """One refusal per tournament that removing ``roles`` together would leave without a
    director (none: they may go), naming the tournament: the message an admin reads."""
    removing = Counter(
        role.tournament_id for role in roles if role.role == TournamentRole.Role.DIRECTOR
    )
    if not removing:
        return []
    held = Counter(
        TournamentRole.objects.filter(
            tournament_id__in=removing, role=TournamentRole.Role.DIRECTOR
        ).values_list("tournament_id", flat=True)
    )
    left_without = sorted(tid for tid, count in removing.items() if held[tid] - count < 1)
    names = dict(Tournament.objects.filter(pk__in=left_without).values_list("pk", "name"))
    refusals = []
    for tournament_id in left_without:
        rule = last_director_refusal()
        message = _("%(tournament)s: %(rule)s Give it another director first.") % {
            "tournament": names.get(tournament_id, tournament_id),
            "rule": rule.message,
        }
        refusals.append(
            ApplicationError(message, code=rule.code, rule=rule.rule, status=rule.status_code)
        )
    return refusals


def _locked(tournament_ids: Iterable[int]) -> dict[int, Tournament]:
    """Lock the tournaments (``FOR NO KEY UPDATE``, in id order: two removals never wait on
    each other crosswise), as :func:`tournament.services.roles.role_revoke` does."""
    return {
        t.pk: t
        for t in Tournament.objects.select_for_update(no_key=True)
        .filter(pk__in=set(tournament_ids))
        .order_by("pk")
    }


def _require_permission(actor: User, permission: str) -> None:
    if not holds_permission(actor, permission):
        raise PermissionDeniedError(
            _("Only staff allowed to delete roles and accounts in the admin may."),
            code="not_allowed",
        )


@transaction.atomic
def roles_remove_by_staff(*, role_ids: Iterable[int], actor: User) -> int:
    """Remove the roles (the admin's delete and bulk delete), each logged with its
    credentials and its holder's pending invitations (:func:`role_remove_locked`), unless a
    tournament would be left without a director: then none (the refusals merged). Returns
    how many were removed."""
    _require_permission(actor, "tournament.delete_tournamentrole")
    return _roles_remove(TournamentRole.objects.filter(pk__in=set(role_ids)), actor=actor)


def _roles_remove(selected: QuerySet[TournamentRole], *, actor: User) -> int:
    """Remove the ``selected`` roles under their tournaments' locks, unless one would be left
    without a director (then none); how many were removed."""
    tournaments = _locked(selected.values_list("tournament_id", flat=True))
    # Read after the locks: a removal that held them before this one has committed.
    roles = list(selected.order_by("pk"))
    _refuse(director_removals_refusals(roles=roles))
    for role in roles:
        role_remove_locked(role=role, tournament=tournaments[role.tournament_id], actor=actor)
    return len(roles)


@transaction.atomic
def users_delete_by_staff(*, user_ids: Iterable[int], actor: User) -> int:
    """Delete the accounts (the admin's delete and bulk delete), their roles removed first
    as :func:`roles_remove_by_staff` removes them, unless a tournament would be left without
    a director. Returns how many accounts were deleted."""
    _require_permission(actor, "auth.delete_user")
    ids = set(user_ids)
    _roles_remove(TournamentRole.objects.filter(user_id__in=ids), actor=actor)
    users = list(get_user_model().objects.filter(pk__in=ids))
    for user in users:
        user.delete()
    return len(users)


def _refuse(refusals: list[ApplicationError]) -> None:
    if len(refusals) == 1:
        raise refusals[0]
    if refusals:
        first = refusals[0]
        raise ApplicationError(
            " ".join(r.message for r in refusals),
            code=first.code,
            rule=first.rule,
            status=first.status_code,
        )
