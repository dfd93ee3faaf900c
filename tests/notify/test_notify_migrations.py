"""Data migrations of the notify app, run backwards and forwards on the real database."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tests.factories import EntryFactory, PlayerFactory, TournamentFactory

BEFORE = [("notify", "0002_mail_language_ping")]
AFTER = [("notify", "0003_contact_per_entry")]


def _migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def _migrate_all() -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_0003_copies_each_players_address_to_every_entry_of_theirs() -> None:
    """Every event keeps mailing the address it had: a player's old address (and language)
    becomes the address of each of their entries. A player without an address gets none; an
    address of a player entered nowhere had no event to mail and goes with the old table.
    Backwards, a player gets the address of their entry changed last."""
    a, b = TournamentFactory(), TournamentFactory()
    shared, only_a, unaddressed, nowhere = (PlayerFactory() for _ in range(4))
    entries = {
        "shared_a": EntryFactory(tournament=a, player=shared),
        "shared_b": EntryFactory(tournament=b, player=shared),
        "only_a": EntryFactory(tournament=a, player=only_a),
        "unaddressed": EntryFactory(tournament=a, player=unaddressed),
    }
    try:
        old = _migrate(BEFORE)
        player_contact = old.get_model("notify", "PlayerContact")
        player_contact.objects.create(player_id=shared.pk, email="ana@example.org", language="es")
        player_contact.objects.create(player_id=only_a.pk, email="ben@example.org")
        player_contact.objects.create(player_id=nowhere.pk, email="cal@example.org")

        new = _migrate(AFTER)
        entry_contact = new.get_model("notify", "EntryContact")
        copied = {
            entry_id: (email, language)
            for entry_id, email, language in entry_contact.objects.values_list(
                "entry_id", "email", "language"
            )
        }
        assert copied == {
            entries["shared_a"].pk: ("ana@example.org", "es"),
            entries["shared_b"].pk: ("ana@example.org", "es"),
            entries["only_a"].pk: ("ben@example.org", ""),
        }

        # Tournament A's director changes their entry's address (A's entry is the older
        # row: the newest change wins, not the newest row); back to one per player.
        entry_contact.objects.filter(entry_id=entries["shared_a"].pk).update(
            email="ana@a.example", updated_at=timezone.now() + timedelta(minutes=1)
        )
        old = _migrate(BEFORE)
        player_contact = old.get_model("notify", "PlayerContact")
        assert dict(player_contact.objects.values_list("player_id", "email")) == {
            shared.pk: "ana@a.example",
            only_a.pk: "ben@example.org",
        }
    finally:
        _migrate_all()
