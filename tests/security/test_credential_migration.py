"""Migration tournament 0002: old plaintext referee keys are hashed and revoked, tournament
roles leave staff and superuser accounts, password-less referee identities become inactive."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("tournament", "0001_initial")]
AFTER = [("tournament", "0002_referee_credentials_hashed")]


def _migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_0002_hashes_and_revokes_plaintext_keys_and_strips_privileged_roles() -> None:
    try:
        old = _migrate(BEFORE)
        user_model = old.get_model("auth", "User")
        tournament = old.get_model("tournament", "Tournament").objects.create(
            name="Old", slug="old-open", status="running"
        )
        role_model = old.get_model("tournament", "TournamentRole")
        token_model = old.get_model("tournament", "RefereeToken")
        root = user_model.objects.create(username="root", is_superuser=True, is_staff=True)
        referee = user_model.objects.create(username="ref", password="!unusable")
        director = user_model.objects.create(username="dir", password="pbkdf2_sha256$x")
        root_role = role_model.objects.create(tournament=tournament, user=root, role="referee")
        ref_role = role_model.objects.create(tournament=tournament, user=referee, role="referee")
        role_model.objects.create(tournament=tournament, user=director, role="director")
        plain = "A" * 32
        token_model.objects.create(role=ref_role, key=plain)
        token_model.objects.create(role=root_role, key="B" * 32)

        new = _migrate(AFTER)
        token_model = new.get_model("tournament", "RefereeToken")
        role_model = new.get_model("tournament", "TournamentRole")
        user_model = new.get_model("auth", "User")
        [token] = token_model.objects.all()  # root's went with its role
        assert token.key_hash == hashlib.sha256(plain.encode()).hexdigest()
        assert token.revoked_at is not None
        assert plain not in str(list(token_model.objects.values()))
        assert not role_model.objects.filter(user__username="root").exists()
        assert role_model.objects.filter(user__username="dir", role="director").exists()
        assert not user_model.objects.get(username="ref").is_active
        assert user_model.objects.get(username="dir").is_active

        _migrate(BEFORE)  # backwards runs
    finally:
        _migrate([("tournament", "0002_referee_credentials_hashed")])
        _migrate_all()


def _migrate_all() -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_0007_revokes_the_credentials_of_finished_tournaments_at_their_finish() -> None:
    """A reopen revives no credential of a tournament finished before the rule (finding C)."""
    before, after = (
        [("tournament", "0006_director_invitation")],
        [("tournament", "0007_revoke_credentials_of_finished_tournaments")],
    )
    try:
        old = _migrate(before)
        tournaments = old.get_model("tournament", "Tournament")
        role_model = old.get_model("tournament", "TournamentRole")
        token_model = old.get_model("tournament", "RefereeToken")
        user_model = old.get_model("auth", "User")
        tokens = {}
        for status in ("finished", "running"):
            tournament = tournaments.objects.create(name=status, slug=f"m-{status}", status=status)
            referee = user_model.objects.create(username=f"ref-{status}")
            role = role_model.objects.create(tournament=tournament, user=referee, role="referee")
            tokens[status] = token_model.objects.create(
                role=role, prefix=f"p-{status}", key_hash="a" * 64
            )
        finished = tournaments.objects.get(status="finished")

        new = _migrate(after)
        token_model = new.get_model("tournament", "RefereeToken")
        assert token_model.objects.get(pk=tokens["finished"].pk).revoked_at == finished.updated_at
        assert token_model.objects.get(pk=tokens["running"].pk).revoked_at is None

        _migrate(before)  # backwards runs
    finally:
        _migrate_all()
