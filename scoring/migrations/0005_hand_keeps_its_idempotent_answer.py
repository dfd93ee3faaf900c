"""Idempotent answers move onto the hand they recorded (README, rule decision 1).

The answer sent for a hand recorded with an Idempotency-Key is kept on that hand, with the
fingerprint of the request and the tournament version it carried, instead of in a separate
table swept after a TTL: one row written per hand instead of two (bench/bench_hands.py), and a
retry gets its original answer however late. Answers still held by the old table are copied
onto their hands before it is dropped. ``hand.recorded_by`` loses its own index: the unique
(recorded_by, idempotency_key) constraint serves the lookups.
"""

from typing import Any

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def copy_answers_to_hands(apps: Any, schema_editor: Any) -> None:
    Record = apps.get_model("scoring", "IdempotencyRecord")
    Hand = apps.get_model("scoring", "Hand")
    for record in Record.objects.filter(response_status=201).iterator():
        body = record.response_body
        try:
            hand_id = int(body["hand"]["id"])
            version = int(body["tournament_version"])
        except (KeyError, TypeError, ValueError):
            continue
        stored = {**body, "hand": {**body["hand"], "id": None}, "tournament_version": None}
        Hand.objects.filter(
            pk=hand_id, recorded_by_id=record.user_id, idempotency_key=record.key
        ).update(
            idempotency_fingerprint=record.fingerprint,
            idempotent_response=stored,
            tournament_version=version,
        )


class Migration(migrations.Migration):

    dependencies = [
        ('scoring', '0004_lean_hand_indexes'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='hand',
            name='idempotency_fingerprint',
            field=models.CharField(blank=True, db_default="", default="", max_length=64),
        ),
        migrations.AddField(
            model_name='hand',
            name='idempotent_response',
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='hand',
            name='tournament_version',
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name='hand',
            name='recorded_by',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.RunPython(copy_answers_to_hands, migrations.RunPython.noop),
        migrations.DeleteModel(
            name='IdempotencyRecord',
        ),
    ]
