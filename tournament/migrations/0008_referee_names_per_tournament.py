"""Referee names belong to their tournament (docs/security.md, "Referees"): a referee identity's
user name becomes ``ref:<tournament id>:<name>`` (``tournament.referee_names``), a namespace no
sign-up can enter (``:`` is refused by the user name validator). Before, the bare name was
checked against every site login, which told any director whether an account of that name
existed, and two tournaments could not both have a referee "Ana".

Renamed: the users that are referee identities of exactly one tournament: inactive, no usable
password, not staff, linked to no player, every role they hold a referee role of that one
tournament; a referee removed from its tournament (no role left) is found by the
``referee.create`` entry of the action log that made it. Left as they were, and still shown by
their user name: an identity with roles in more than one tournament (only data from before
referees were per tournament, migration 0002, can hold one), any other account, and a name
that would not fit the column or is taken. Only the user name changes: ``Match.referee`` and
``Hand.recorded_by`` keep pointing at the same rows, and the name pages show is the same.
Two referees of one tournament whose names differ only in case keep both names (new ones are
refused).

Backwards: each ``ref:<id>:<name>`` identity gets its bare name back where no user has that
name in any case (else it keeps the namespaced one).
"""

from __future__ import annotations

import re

from django.db import migrations

UNUSABLE_PASSWORD_PREFIX = "!"
PREFIX, SEPARATOR = "ref", ":"
NAMESPACED = re.compile(r"ref:(\d+):(.+)\Z", re.S)  # as tournament.referee_names, frozen here


def _referee_tournaments(apps) -> dict[int, set[int]]:  # type: ignore[no-untyped-def]
    """Candidate user id -> the tournaments it is a referee of; users holding any other role
    are left out."""
    Role = apps.get_model("tournament", "TournamentRole")
    ActionLog = apps.get_model("tournament", "ActionLog")
    tournaments: dict[int, set[int]] = {}
    other_roles: set[int] = set()
    for user_id, tournament_id, role in Role.objects.values_list("user_id", "tournament_id", "role"):
        if role == "referee":
            tournaments.setdefault(user_id, set()).add(tournament_id)
        else:
            other_roles.add(user_id)
    logs = ActionLog.objects.filter(verb="referee.create").values_list("tournament_id", "data")
    for tournament_id, data in logs.iterator():
        user_id = data.get("user_id") if isinstance(data, dict) else None
        if isinstance(user_id, int):
            tournaments.setdefault(user_id, set()).add(tournament_id)
    return {u: t for u, t in tournaments.items() if u not in other_roles}


def forwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    User = apps.get_model("auth", "User")
    Player = apps.get_model("tournament", "Player")
    limit = User._meta.get_field("username").max_length
    candidates = _referee_tournaments(apps)
    players = set(Player.objects.filter(user__isnull=False).values_list("user_id", flat=True))
    taken = set(User.objects.values_list("username", flat=True))
    users = User.objects.filter(
        pk__in=list(candidates), is_active=False, is_staff=False, is_superuser=False
    ).values_list("pk", "username", "password")
    for pk, username, password in users.iterator():
        if (
            len(candidates[pk]) != 1  # a referee of several tournaments: left unchanged
            or pk in players
            or not (password or "").startswith(UNUSABLE_PASSWORD_PREFIX)
            or NAMESPACED.match(username)
        ):
            continue
        [tournament_id] = candidates[pk]
        new = f"{PREFIX}{SEPARATOR}{tournament_id}{SEPARATOR}{username}"
        if len(new) > limit or new in taken:
            continue
        User.objects.filter(pk=pk).update(username=new)
        taken.discard(username)
        taken.add(new)


def backwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    User = apps.get_model("auth", "User")
    taken = {name.casefold() for name in User.objects.values_list("username", flat=True)}
    namespaced = User.objects.filter(
        username__startswith=f"{PREFIX}{SEPARATOR}", is_active=False
    ).values_list("pk", "username")
    for pk, username in namespaced.order_by("pk").iterator():
        found = NAMESPACED.match(username)
        if found is None or found.group(2).casefold() in taken:
            continue
        User.objects.filter(pk=pk).update(username=found.group(2))
        taken.add(found.group(2).casefold())


class Migration(migrations.Migration):
    dependencies = [("tournament", "0007_revoke_credentials_of_finished_tournaments")]

    operations = [migrations.RunPython(forwards, backwards)]
