"""Who created each tournament (``Tournament.created_by``): its owner among its directors, whom
a co-director cannot remove and who may remove any co-director (docs/security.md, "Removing
a director").

Filled in for the tournaments that exist: the creator's director role is the one that
``tournament_create`` made, the only way to a director role that neither a co-director
invitation (``DirectorInvitation.role``) nor staff (``role_grant``, logged as ``role.grant``
with the role as its target) granted. The oldest such role of each tournament names its
creator; a tournament with none (its creator was removed, or every director was granted
later) keeps no owner, and its directors follow the other rules.

Backwards: the column goes.
"""

from __future__ import annotations

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

ROLE_TARGET = "tournament.tournamentrole"  # ActionLog.target_type of a role, frozen here


def creators_fill(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]
    Tournament = apps.get_model("tournament", "Tournament")
    Role = apps.get_model("tournament", "TournamentRole")
    Invitation = apps.get_model("tournament", "DirectorInvitation")
    ActionLog = apps.get_model("tournament", "ActionLog")
    invited = set(
        Invitation.objects.filter(role__isnull=False).values_list("role_id", flat=True)
    )
    granted = {
        int(target)
        for target in ActionLog.objects.filter(
            verb="role.grant", target_type=ROLE_TARGET
        ).values_list("target_id", flat=True)
        if str(target).isascii() and str(target).isdigit()
    }
    creators: dict[int, int] = {}
    for pk, tournament_id, user_id in (
        Role.objects.filter(role="director").order_by("id").values_list("id", "tournament_id", "user_id")
    ):
        if pk in invited or pk in granted or tournament_id in creators:
            continue
        creators[tournament_id] = user_id
    for tournament_id, user_id in creators.items():
        Tournament.objects.filter(pk=tournament_id).update(created_by_id=user_id)


class Migration(migrations.Migration):
    dependencies = [
        ("tournament", "0008_referee_names_per_tournament"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="created_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(creators_fill, migrations.RunPython.noop),
    ]
