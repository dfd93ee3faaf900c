"""Finishing a tournament revokes its referee credentials (docs/security.md); before, a finish
only stopped them, and a reopen made them work again. This applies the rule to the tournaments
already finished: their active credentials are revoked at the moment each finished (its
``updated_at``, a finished tournament being read-only), as the finish now does, so a
referee's short read after a recent finish keeps working and a reopen revives none.

No action log entry: nobody decided this; the migration is the record. Backwards: nothing to
undo (a credential revoked here cannot be told from one revoked by a finish).
"""

from __future__ import annotations

from django.db import migrations


def forwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    Tournament = apps.get_model("tournament", "Tournament")
    Token = apps.get_model("tournament", "RefereeToken")
    finished = Tournament.objects.filter(status="finished").values_list("pk", "updated_at")
    for tournament_id, finished_at in finished:
        Token.objects.filter(role__tournament_id=tournament_id, revoked_at__isnull=True).update(
            revoked_at=finished_at
        )


class Migration(migrations.Migration):
    dependencies = [("tournament", "0006_director_invitation")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
