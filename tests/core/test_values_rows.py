"""core.sql.values_rows: a values_list queryset's rows, exactly as iterating it gives them.

On PostgreSQL plain columns come back through a prepared statement in binary format; a
column that needs a converter (JSON, and on SQLite datetimes and booleans) or any other shape
of queryset falls back to the ORM. Runs on both databases (the embedded run checks the
fallback is the whole story there).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.sql import values_rows
from tests.factories import EntryFactory, PlayerFactory, TournamentFactory
from tournament.models import Entry, Player, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def players() -> list[Player]:
    # Text with accents and an emoji, an empty club, a missing rating, negative numbers.
    return [
        PlayerFactory(name="José Núñez", club="Dominó Club 🁫", rating=1500),
        PlayerFactory(name="Ana", club="", rating=None),
        PlayerFactory(name="Zoë O'Brien", club="Ponce", rating=-3),
    ]


def _same(queryset: Any) -> list[tuple[Any, ...]]:
    rows = values_rows(queryset)
    assert rows == list(queryset)
    assert all(type(row) is tuple for row in rows)
    return rows


def test_plain_columns_and_a_join_come_back_as_the_orm_gives_them(players: list[Player]) -> None:
    tournament = TournamentFactory()
    for player in players:
        EntryFactory(tournament=tournament, player=player)
    rows = _same(
        Entry.objects.filter(tournament=tournament)
        .order_by("player__name")
        .values_list("id", "player__name", "player__club", "player__rating", "checked_in")
    )
    assert [r[1] for r in rows] == ["Ana", "José Núñez", "Zoë O'Brien"]
    assert [r[3] for r in rows] == [None, 1500, -3]
    assert {type(r[4]) for r in rows} == {bool}


def test_it_runs_one_statement_with_the_querysets_parameters(players: list[Player]) -> None:
    queryset = Player.objects.filter(rating__gte=0).order_by("id").values_list("id", "name")
    with CaptureQueriesContext(connection) as queries:
        rows = values_rows(queryset)
    assert rows == [(players[0].pk, "José Núñez")]
    assert len(queries.captured_queries) == 1
    # Logged with its text, as every statement is (a prepared one too).
    assert "tournament_player" in queries.captured_queries[0]["sql"]


@pytest.mark.postgres
def test_on_postgresql_plain_columns_are_read_in_binary_from_a_prepared_statement(
    players: list[Player], monkeypatch: pytest.MonkeyPatch
) -> None:
    import core.sql

    asked: list[bool] = []
    real = core.sql.prepared_cursor

    def spy(*, binary: bool = False) -> Any:
        asked.append(binary)
        return real(binary=binary)

    monkeypatch.setattr(core.sql, "prepared_cursor", spy)
    _same(Player.objects.order_by("id").values_list("id", "name", "rating"))
    assert asked == [True]


@pytest.mark.parametrize(
    "shape",
    [
        # A JSON column has a converter (from_db_value): the ORM reads it.
        lambda: Tournament.objects.order_by("id").values_list("id", "ruleset"),
        # A datetime (a converter on SQLite; plain on PostgreSQL): the same rows either way.
        lambda: Tournament.objects.order_by("id").values_list("id", "created_at"),
        lambda: Player.objects.order_by("id").values_list("name", flat=True),
        lambda: Player.objects.order_by("id").values_list("id", "name", named=True),
        lambda: Player.objects.order_by("id").values("id", "name"),
        lambda: Player.objects.order_by("id"),
    ],
    ids=["json", "datetime", "flat", "named", "values", "instances"],
)
def test_any_other_shape_gives_what_iterating_gives(players: list[Player], shape: Any) -> None:
    TournamentFactory(ruleset={"target": 6, "name": "Señor"})
    queryset = shape()
    assert values_rows(queryset) == list(queryset)


def test_an_empty_in_is_an_empty_list_without_a_query(players: list[Player]) -> None:
    with CaptureQueriesContext(connection) as queries:
        assert values_rows(Player.objects.filter(pk__in=[]).values_list("id")) == []
    assert queries.captured_queries == []
