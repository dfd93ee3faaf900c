"""A change of a circuit or of its members bumps the version of its tournaments.

Why: a member tournament's live pages say "Part of <circuit>" and cache that line per
tournament version (``live.presenters.documents.part_of_links``; pages answer 304 on an
unchanged version), so adding a tournament to a circuit, removing it, or renaming, moving or
(un)publishing the circuit must give those tournaments a new version. Circuits are managed in
the admin, one save at a time: the bump runs after the save commits.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import F

from circuits.models import Circuit, CircuitTournament
from tournament.models import Tournament


def _bump(tournament_ids: list[int]) -> None:
    if tournament_ids:
        transaction.on_commit(
            lambda: Tournament.objects.filter(pk__in=tournament_ids).update(
                version=F("version") + 1
            )
        )


def on_member_changed(sender: Any, instance: CircuitTournament, **kwargs: Any) -> None:
    _bump([instance.tournament_id])


def on_circuit_saved(sender: Any, instance: Circuit, **kwargs: Any) -> None:
    _bump(list(instance.members.values_list("tournament_id", flat=True)))


def on_circuit_deleting(sender: Any, instance: Circuit, **kwargs: Any) -> None:
    _bump(list(instance.members.values_list("tournament_id", flat=True)))
