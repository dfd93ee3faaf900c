"""Migration tournament 0008: referee identities made before names were per tournament move into
their tournament's namespace (``ref:<tournament id>:<name>``); anything else keeps its user
name; the same user rows stay the matches' referees; backwards gives the bare names back.

The schema does not change between 0007 and 0008, so the rows are made with today's models,
except the tournaments: their table has gained a column since (``created_by``, 0009).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from scoring.models import Match
from tests.factories import PlayerFactory, UserFactory, scheduled_match
from tournament.models import ActionLog, Tournament, TournamentRole
from tournament.referee_names import person_name

BEFORE = [("tournament", "0007_revoke_credentials_of_finished_tournaments")]
AFTER = [("tournament", "0008_referee_names_per_tournament")]

User = get_user_model()


def _migrate(targets: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def _migrate_all() -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


def _tournament(n: int) -> Tournament:
    """A tournament row made with the models of 0007 (today's class would write the columns
    added since), as today's class for the foreign keys of the other rows."""
    executor = MigrationExecutor(connection)
    old = executor.loader.project_state(BEFORE).apps.get_model("tournament", "Tournament")
    row = old.objects.create(name=f"Old {n}", slug=f"old-{n}", ruleset={})
    return Tournament(pk=row.pk, name=row.name, slug=row.slug)


def _identity(username: str, **kwargs: Any) -> Any:
    """A referee identity as ``referee_create`` made them: inactive, no usable password."""
    user = UserFactory(username=username, is_active=False, **kwargs)
    user.set_unusable_password()
    user.save()
    return user


def _role(tournament: Any, user: Any, role: str = "referee") -> None:
    TournamentRole.objects.create(tournament=tournament, user=user, role=role)


@pytest.mark.django_db(transaction=True)
def test_0008_moves_old_referee_identities_into_their_tournament_s_names() -> None:
    try:
        _migrate(BEFORE)
        t1, t2 = _tournament(1), _tournament(2)
        ana = _identity("ana", first_name="Ana Ruiz")
        _role(t1, ana)
        match = scheduled_match(t1, referee=ana)
        gone = _identity("gone")  # removed from t2: only the log that made it names it
        ActionLog.objects.create(
            tournament=t2, verb="referee.create", data={"user_id": gone.pk, "username": "gone"}
        )
        multi = _identity("multi")  # a referee of two tournaments (data from before 0002)
        _role(t1, multi)
        _role(t2, multi)
        both = _identity("both")  # a referee here, a director there
        _role(t1, both)
        _role(t2, both, "director")
        director = UserFactory(username="dir")  # active, a password
        _role(t1, director, "director")
        awake = UserFactory(username="awake", is_active=True)
        awake.set_unusable_password()
        awake.save()
        _role(t1, awake)
        player = _identity("player-ref")
        PlayerFactory(user=player)
        _role(t1, player)
        long_name = "x" * 150  # would not fit with the prefix
        _role(t1, _identity(long_name))
        staff = _identity("staff-ref", is_staff=True)
        _role(t1, staff)

        _migrate(AFTER)
        names = dict(User.objects.values_list("pk", "username"))
        assert names[ana.pk] == f"ref:{t1.pk}:ana"
        assert names[gone.pk] == f"ref:{t2.pk}:gone"
        for user in (multi, both, director, awake, player, staff):
            assert names[user.pk] == user.username, user.username
        assert long_name in names.values()
        # The same rows: the match's referee, the role, the name pages show.
        assert Match.objects.get(pk=match.pk).referee_id == ana.pk
        assert TournamentRole.objects.filter(user_id=ana.pk, tournament=t1).exists()
        assert person_name(User.objects.get(pk=ana.pk)) == "Ana Ruiz"
        assert person_name(User.objects.get(pk=gone.pk)) == "gone"

        UserFactory(username="Gone")  # meanwhile an account took the bare name (in any case)
        _migrate(BEFORE)
        assert User.objects.get(pk=ana.pk).username == "ana"
        assert User.objects.get(pk=gone.pk).username == f"ref:{t2.pk}:gone"
    finally:
        _migrate_all()
