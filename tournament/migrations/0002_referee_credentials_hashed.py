"""Referee credentials become hashed capabilities (issue 12, docs/security.md).

1. ``key`` (plaintext) -> ``prefix`` + ``key_hash`` (SHA-256). Existing keys are hashed and
   REVOKED: their plaintext sat in the database and, as ``/ref/<key>/``, in access logs, so
   directors issue new ones (shown once, link ``/ref/#<key>``).
2. No tournament role stays on a staff or superuser account (a director could give them one).
3. Referee identities (a referee role, no usable password, no other role) become inactive:
   they can never sign in; they act only through a credential.
"""

from __future__ import annotations

import hashlib

from django.db import migrations, models
from django.db.models import Q
from django.utils import timezone

UNUSABLE_PASSWORD_PREFIX = "!"


def forwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    Token = apps.get_model("tournament", "RefereeToken")
    Role = apps.get_model("tournament", "TournamentRole")
    User = apps.get_model("auth", "User")
    now = timezone.now()
    for token in Token.objects.all().only("pk", "key", "revoked_at"):
        key = token.key or ""
        Token.objects.filter(pk=token.pk).update(
            prefix=f"legacy{token.pk}",
            key_hash=hashlib.sha256(key.encode()).hexdigest(),
            key="",
            revoked_at=token.revoked_at or now,
        )
    Role.objects.filter(Q(user__is_staff=True) | Q(user__is_superuser=True)).delete()
    referee_only = (
        Role.objects.filter(role="referee")
        .exclude(user__in=Role.objects.exclude(role="referee").values("user"))
        .values("user")
    )
    User.objects.filter(pk__in=referee_only, password__startswith=UNUSABLE_PASSWORD_PREFIX).update(
        is_active=False
    )


def backwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    # The plaintext is gone: old rows keep their (revoked) hash; nothing to restore.
    Token = apps.get_model("tournament", "RefereeToken")
    for token in Token.objects.all().only("pk", "key_hash"):
        Token.objects.filter(pk=token.pk).update(key=f"gone{token.key_hash[:40]}")


class Migration(migrations.Migration):
    dependencies = [("tournament", "0001_initial"), ("auth", "0012_alter_user_first_name_max_length")]

    operations = [
        migrations.RemoveConstraint(model_name="refereetoken", name="refereetoken_key_long"),
        migrations.AddField(
            model_name="refereetoken",
            name="prefix",
            field=models.CharField(max_length=16, null=True),
        ),
        migrations.AddField(
            model_name="refereetoken",
            name="key_hash",
            field=models.CharField(max_length=64, default=""),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="refereetoken",
            name="key",
            field=models.CharField(max_length=64, blank=True),
        ),
        migrations.RunPython(forwards, backwards),
        migrations.RemoveField(model_name="refereetoken", name="key"),
        migrations.AlterField(
            model_name="refereetoken",
            name="prefix",
            field=models.CharField(max_length=16, unique=True),
        ),
        migrations.AddConstraint(
            model_name="refereetoken",
            constraint=models.CheckConstraint(
                condition=Q(key_hash__regex=r"^[0-9a-f]{64}$"), name="refereetoken_key_hashed"
            ),
        ),
    ]
