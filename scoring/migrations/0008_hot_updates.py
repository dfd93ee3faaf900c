"""Room on every page for the rows a recorded hand rewrites (PostgreSQL only).

Every hand updates its match row (the engine snapshot, the hand count, the versions), its
seats' rows and the tournament's version row. With pages filled to 100 % the new row version
rarely fits on the old one's page, so PostgreSQL writes it elsewhere and adds an entry to every
index of the table (nine on the match), which it must later vacuum. With free space left on
each page the update is a heap-only tuple (HOT) update: no index is touched, and the dead
versions are pruned from the page as it is read. bench/bench_hands.py measured the share of
PostgreSQL's CPU in a recorded hand before and after (docs/operations.md).

``ALTER TABLE ... SET (fillfactor = ...)`` applies to pages written from now on; an existing
database gets the full effect after ``VACUUM FULL`` of these tables in a quiet hour (optional).
SQLite (the embedded default) has no such setting: nothing to do there.
"""

from django.db import migrations

FILLFACTORS = {
    "scoring_match": 50,
    "scoring_seat": 50,
    "tournament_tournament": 50,
}


def _set(apps, schema_editor, reset: bool = False) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for table, fillfactor in FILLFACTORS.items():
        quoted = schema_editor.quote_name(table)
        if reset:
            schema_editor.execute(f"ALTER TABLE {quoted} RESET (fillfactor)")
        else:
            schema_editor.execute(f"ALTER TABLE {quoted} SET (fillfactor = {int(fillfactor)})")


def forwards(apps, schema_editor) -> None:
    _set(apps, schema_editor)


def backwards(apps, schema_editor) -> None:
    _set(apps, schema_editor, reset=True)


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0007_table_confirmation"),
        ("tournament", "0005_table_confirmation"),
    ]

    operations = [migrations.RunPython(forwards, backwards, elidable=False)]
