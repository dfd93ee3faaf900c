"""Backfill ``Match.sudden_death`` (0009) from the action log that used to be its only record.

Before 0009 the tables a director kept playing for a sudden-death hand when calling time (T3)
were known only from the newest ``round.call_time`` entry of their round. The pages and the
next call now read the match's own column, so a match kept by a call made before 0009 and
still open is marked here. Backwards: nothing to undo (0009's reverse drops the column).
"""

from typing import Any

from django.db import migrations


def forwards(apps: Any, schema_editor: Any) -> None:
    ActionLog = apps.get_model("tournament", "ActionLog")
    Match = apps.get_model("scoring", "Match")
    newest: dict[str, dict[str, Any]] = {}
    calls = ActionLog.objects.filter(verb="round.call_time").order_by("created_at", "pk")
    for target_id, data in calls.values_list("target_id", "data").iterator():
        newest[target_id] = data if isinstance(data, dict) else {}
    kept = {
        int(match_id)
        for data in newest.values()
        for match_id in data.get("sudden_death") or []
        if str(match_id).isdigit()
    }
    if kept:
        Match.objects.filter(pk__in=kept, status__in=["scheduled", "in_progress"]).update(
            sudden_death=True
        )


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0009_match_sudden_death"),
        ("tournament", "0005_table_confirmation"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
