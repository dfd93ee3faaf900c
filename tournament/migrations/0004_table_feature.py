"""Tables get a ``feature`` flag: move-by-move entry and spectator replays (issue 15)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("tournament", "0003_partnership_entries")]

    operations = [
        migrations.AddField(
            model_name="table",
            name="feature",
            field=models.BooleanField(default=False),
        ),
    ]
