"""Take back the six-love given a forfeit (T7) used to store on the winners' seats.

``match_forfeit`` gave the opponent at a two-player table, and both partners of the winning
partnership (R42), one ``six_love_given``. A forfeit is never a six-love won at the table
(README rule decision 6, R31c): the standings did not count it for a partnership, the Leaders
page (which sums the seats) did. The seats of a match a forfeit ended that won it (placing 1,
not the forfeiting seat) lose that one: no six-love can have been given before the forfeit, a
six-love ends the match. Backwards: nothing (a later forfeit stored none to put back).
"""

from typing import Any

from django.db import migrations
from django.db.models import F


def _winners(apps: Any) -> Any:
    Seat = apps.get_model("scoring", "Seat")
    return Seat.objects.filter(
        match__status="finished", match__end_reason="forfeit", forfeited=False, placing=1
    )


def forwards(apps: Any, schema_editor: Any) -> None:
    _winners(apps).filter(six_love_given__gt=0).update(six_love_given=F("six_love_given") - 1)


class Migration(migrations.Migration):
    dependencies = [("scoring", "0010_sudden_death_from_call_time")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
