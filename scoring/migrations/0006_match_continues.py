"""A forfeit's continuation match (T7) points at the match it continues.

Until now the link lived only in the action log entry of the forfeit
(``data.continuation_match_id``), which the brackets read to make a round wait for the
continuation. It becomes a column, unique (a match is continued at most once), and the
existing links are copied from the action log. The log entries stay as they are (audit).
"""

from typing import Any

import django.db.models.deletion
from django.db import migrations, models


def copy_links_from_the_action_log(apps: Any, schema_editor: Any) -> None:
    ActionLog = apps.get_model("tournament", "ActionLog")
    Match = apps.get_model("scoring", "Match")
    logs = ActionLog.objects.filter(verb="match.forfeit", target_type="scoring.match")
    for target_id, data in logs.values_list("target_id", "data").iterator():
        continuation = (data or {}).get("continuation_match_id")
        if continuation and str(target_id).isdigit():
            Match.objects.filter(pk=continuation, continues__isnull=True).update(
                continues_id=int(target_id)
            )


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0005_hand_keeps_its_idempotent_answer"),
        ("tournament", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="continues",
            field=models.OneToOneField(
                blank=True,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="continuation",
                to="scoring.match",
            ),
        ),
        migrations.RunPython(copy_links_from_the_action_log, migrations.RunPython.noop),
    ]
