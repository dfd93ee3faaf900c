"""The hand store: the one write of a checked hand.

A recorded hand writes four things in one transaction: the tournament's version bump, the
hand row (with a key: its answer for retries), the match's changed columns and every seat's
results. :class:`HandStore` builds those statements once, from one column list per table,
and runs them on either of two paths:

- **pipelined** (PostgreSQL): the four statements as data-modifying CTEs of ONE statement,
  sent with its COMMIT (``core.sql.execute_and_commit``), so the tournament row's lock (every
  hand of a tournament takes it) is held only while the server runs it;
- **portable** (the SQLite demo, any other vendor): the same statements, one after another,
  inside the caller's transaction.

The column lists: the hand row is every concrete column of ``Hand`` (``core.sql.Insert``), the
match row the columns the service changed plus ``updated_at``, the seats
:data:`SEAT_COLUMNS` (seat, points, the R35 statistics :data:`STAT_FIELDS`, placing). A new
column is therefore added in one place (the model, or :data:`STAT_FIELDS`) and both paths
store it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import Field
from django.utils import timezone

from core.exceptions import NotFoundError
from core.sql import (
    Insert,
    default_connection,
    execute_and_commit,
    jsonb,
    prep_save,
    prepared_cursor,
)
from core.sql import column as sql_column
from core.sql import table as sql_table
from scoring.engine.match import MatchState
from scoring.models import Hand, Match, Seat
from scoring.presenters.bodies import hand_recorded_body
from scoring.services.idempotency import _answer
from tournament.services import tournament_version_bump, tournament_version_bump_sql

STAT_FIELDS = (
    "hands_won",
    "domino_wins",
    "block_wins",
    "llaves",
    "ties",
    "replays_won",
    "resets_caused",
    "playoffs_won",
    "six_love_given",
    "six_love_received",
)
#: Every seat column a hand writes, in the order of a seat's row.
SEAT_COLUMNS = ("seat", "points", *STAT_FIELDS, "placing")

_HAND_INSERT: Insert[Hand] = Insert(Hand)


# -- seats ----------------------------------------------------------------------------------------


def seats_write_sql(
    *,
    match_id: int,
    n: int,
    state: MatchState,
    placings: Sequence[int | None] | None,
) -> tuple[str, list[Any]]:
    """``UPDATE seat ... FROM <one row per seat>`` writing every seat's points, statistics
    (R35) and placing in one statement, and its parameters.

    Written as SQL because the equivalent ORM ``Case``/``When`` expression (12 columns x 4
    seats) is costlier to compile than the rest of the hand. On PostgreSQL the rows travel as
    ONE JSON parameter (``jsonb_to_recordset``), so the statement text is the same for every
    hand and stays within psycopg's statement cache (at most 50 parameters). Elsewhere (the
    SQLite demo, >= 3.33) they are ``VALUES`` rows with unnamed columns (column1...).
    """
    rows = [
        [
            i,
            state.scores[i],
            *(getattr(state.stats[i], name) for name in STAT_FIELDS),
            None if placings is None else placings[i],
        ]
        for i in range(n)
    ]
    db = default_connection()
    sql = _seats_write_statement(db.vendor, n)
    if db.vendor == "postgresql":
        payload = jsonb([dict(zip(SEAT_COLUMNS, row, strict=True)) for row in rows])
        return sql, [timezone.now(), payload, match_id]
    return sql, [timezone.now(), *(v for row in rows for v in row), match_id]


@functools.lru_cache(maxsize=8)
def _seats_write_statement(vendor: str, n: int) -> str:
    """The statement of :func:`seats_write_sql` (its text depends only on the vendor, and
    on SQLite on the number of seats)."""
    quote = default_connection().ops.quote_name  # PLACING is a reserved word in PostgreSQL
    table = quote(Seat._meta.db_table)
    columns = SEAT_COLUMNS[1:]
    if vendor == "postgresql":
        record = ", ".join(f"{quote(name)} integer" for name in SEAT_COLUMNS)
        assignments = ", ".join(f"{quote(name)} = v.{quote(name)}" for name in columns)
        return (
            f"UPDATE {table} SET {assignments}, {quote('updated_at')} = %s "  # noqa: S608
            f"FROM jsonb_to_recordset(%s::jsonb) AS v({record}) "
            f"WHERE {table}.match_id = %s AND {table}.seat = v.{quote('seat')}"
        )
    width = len(SEAT_COLUMNS)
    values = ", ".join(["(" + ", ".join(["%s"] * width) + ")"] * n)
    assignments = ", ".join(
        f"{quote(name)} = CAST(v.column{j + 2} AS integer)" for j, name in enumerate(columns)
    )
    return (
        f"UPDATE {table} SET {assignments}, {quote('updated_at')} = %s "  # noqa: S608
        f"FROM (VALUES {values}) AS v WHERE {table}.match_id = %s AND {table}.seat = v.column1"
    )


def seats_write(
    *,
    match_id: int,
    n: int,
    state: MatchState,
    placings: Sequence[int | None] | None,
) -> None:
    """Every seat's points, statistics (R35) and placing in ONE statement (also used by the
    corrections, which refold a match without a new hand)."""
    sql, params = seats_write_sql(match_id=match_id, n=n, state=state, placings=placings)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


# -- match ----------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _match_update_statement(
    vendor: str, names: tuple[str, ...]
) -> tuple[str, tuple[Field[Any, Any], ...]]:
    """``UPDATE match SET <names> WHERE id`` and the fields whose values it takes (cached:
    building it costs more than the engine's work for a hand)."""
    fields = tuple(Match._meta.get_field(name) for name in names)
    assert all(isinstance(f, Field) and f.concrete for f in fields)  # concrete columns only
    assignments = ", ".join(f"{sql_column(Match, name)} = %s" for name in names)
    sql = f"UPDATE {sql_table(Match)} SET {assignments} WHERE {sql_column(Match, 'id')} = %s"  # noqa: S608
    return sql, fields  # type: ignore[return-value]


def match_update_sql(match: Match, fields: Sequence[str]) -> tuple[str, list[Any]]:
    """``UPDATE match SET <fields>, updated_at WHERE id`` and its parameters."""
    match.updated_at = timezone.now()
    db = default_connection()
    sql, model_fields = _match_update_statement(
        db.vendor, tuple(dict.fromkeys([*fields, "updated_at"]))
    )
    params = [prep_save(f, getattr(match, f.attname), db) for f in model_fields]
    return sql, [*params, match.pk]


# -- the store ------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def pipelined_statement(match_sql: str, seats_sql: str) -> str:
    """The PostgreSQL statement of :meth:`HandStore.write` (cached: its text depends only on
    the match columns written).

    Kept within psycopg's statement cache (4,096 characters, 50 parameters; asserted in the
    tests): beyond that psycopg re-parses the query text on every execution.
    """
    hand_insert = _HAND_INSERT.select_sql({"tournament_version": "t.version"}, "t")
    # All or nothing: without the tournament's row (impossible while the locked match
    # refers to it) no part writes, as the statement may commit on its own.
    ctes = [
        f"t(version) AS ({tournament_version_bump_sql()})",
        f"h AS ({hand_insert} RETURNING {sql_column(Hand, 'id')} AS id)",
        f"m AS ({match_sql} AND EXISTS (SELECT FROM t) RETURNING 1)",
        f"s AS ({seats_sql} AND EXISTS (SELECT FROM t) RETURNING 1)",
    ]
    return f"WITH {', '.join(ctes)} SELECT h.id, t.version FROM h, t"  # noqa: S608


class HandStore:
    """Stores a checked hand: the hand, the match's changed ``fields``, every seat's results
    and the tournament's version bump, as the transaction's only write and last statement.

    ``HandStore(hand=..., match=..., fields=..., state=..., placings=...).write()`` returns
    the 201 answer; the hand gets its id and tournament version. Nothing after it in the
    caller's transaction may fail (on PostgreSQL it may already have committed).
    """

    __slots__ = ("fields", "hand", "match", "placings", "state")

    def __init__(
        self,
        *,
        hand: Hand,
        match: Match,
        fields: Sequence[str],
        state: MatchState,
        placings: Sequence[int] | None,
    ) -> None:
        self.hand = hand
        self.match = match
        self.fields = list(fields)
        self.state = state
        self.placings = placings

    def write(self) -> dict[str, Any]:
        """Write the hand (pipelined on PostgreSQL, portable elsewhere); return its answer."""
        hand, match = self.hand, self.match
        stored = hand_recorded_body(hand=hand, match=match, tournament_version=None)
        if hand.idempotency_key:
            hand.idempotent_response = stored
        if default_connection().vendor == "postgresql":
            version = self._write_pipelined()
        else:
            version = self._write_portable()
        hand.tournament_version = version
        hand._state.adding = False
        hand._state.db = DEFAULT_DB_ALIAS
        return _answer(stored, hand.pk, version)

    def _match_and_seats(self) -> tuple[tuple[str, list[Any]], tuple[str, list[Any]]]:
        match = self.match
        seats = seats_write_sql(
            match_id=match.pk, n=match.n_players, state=self.state, placings=self.placings
        )
        return match_update_sql(match, self.fields), seats

    def _write_pipelined(self) -> int:
        """ONE statement: data-modifying CTEs each run exactly once, and the hand takes the
        bumped tournament version from the ``t`` CTE. In the outermost atomic block the
        COMMIT travels with it (``core.sql.execute_and_commit``)."""
        hand, match = self.hand, self.match
        (match_sql, match_params), (seats_sql, seats_params) = self._match_and_seats()
        params = [
            match.tournament_id,
            *_HAND_INSERT.params(hand, without=["tournament_version"]),
            *match_params,
            *seats_params,
        ]
        with prepared_cursor() as cursor:
            # The last statement of the transaction; it commits with it when the caller's
            # atomic block is the outermost one. Nothing after it may fail.
            execute_and_commit(cursor, pipelined_statement(match_sql, seats_sql), params)
            row = cursor.fetchone()
        if row is None:  # the tournament is PROTECTed by the match's foreign key
            raise NotFoundError("Tournament not found.", code="not_found")
        hand.pk = int(row[0])
        return int(row[1])

    def _write_portable(self) -> int:
        """The same statements in order, in the caller's transaction."""
        hand, match = self.hand, self.match
        version = tournament_version_bump(tournament_id=match.tournament_id)
        hand.tournament_version = version
        (match_sql, match_params), (seats_sql, seats_params) = self._match_and_seats()
        with connection.cursor() as cursor:
            cursor.execute(_HAND_INSERT.sql, _HAND_INSERT.params(hand))
            hand.pk = cursor.lastrowid
            cursor.execute(match_sql, match_params)
            cursor.execute(seats_sql, seats_params)
        return version
