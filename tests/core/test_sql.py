"""core.sql.execute_and_commit on PostgreSQL: the last statement and COMMIT in one round trip.

Real transactions (``transaction=True``): what another connection sees is the proof of when
the commit happened.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import IntegrityError, connection, connections, transaction

from core.sql import execute_and_commit

# PostgreSQL statements and prepared statements: skipped in the embedded run.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

TABLE = "core_sql_probe"
PARENT = "core_sql_probe_parent"


@pytest.fixture
def probe() -> Iterator[None]:
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE {PARENT} (id integer PRIMARY KEY)")
        cursor.execute(
            f"CREATE TABLE {TABLE} (id integer PRIMARY KEY, parent integer "
            f"REFERENCES {PARENT} (id) DEFERRABLE INITIALLY DEFERRED)"
        )
        cursor.execute(f"INSERT INTO {PARENT} VALUES (1)")
    yield
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {TABLE}, {PARENT}")


def _seen_elsewhere() -> list[int]:
    """The probe's rows as another connection (another thread) sees them now."""
    seen: list[int] = []

    def read() -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute(f"SELECT id FROM {TABLE} ORDER BY id")
                seen.extend(row[0] for row in cursor.fetchall())
        finally:
            connections.close_all()

    thread = threading.Thread(target=read)
    thread.start()
    thread.join(30)
    return seen


def _insert(cursor: Any, row_id: int, parent: int = 1) -> bool:
    sql = f"INSERT INTO {TABLE} VALUES (%s, %s) RETURNING id"
    return execute_and_commit(cursor, sql, [row_id, parent])


def _write_then_fail(hooks: list[str], row_id: int, parent: int = 1) -> None:
    """A block that writes row 2, then inserts ``row_id`` as its last statement."""
    with transaction.atomic(), connection.cursor() as cursor:
        transaction.on_commit(lambda: hooks.append("after commit"))
        cursor.execute(f"INSERT INTO {TABLE} VALUES (2, 1)")
        _insert(cursor, row_id, parent=parent)


def test_in_the_outermost_block_it_commits_with_the_statement(probe: None) -> None:
    hooks: list[str] = []
    with transaction.atomic(), connection.cursor() as cursor:
        transaction.on_commit(lambda: hooks.append("after commit"))
        assert _insert(cursor, 7) is True
        assert cursor.fetchone() == (7,)  # the statement's result is still read as usual
        assert _seen_elsewhere() == [7]  # committed before the block ends...
        assert hooks == []  # ... and the on_commit callbacks still wait for the block's end
    assert hooks == ["after commit"]
    assert _seen_elsewhere() == [7]
    with transaction.atomic():  # the connection goes on as usual
        assert _insert(connection.cursor(), 8) is True
    assert _seen_elsewhere() == [7, 8]


def test_the_commit_is_sent_before_the_statement_is_answered(probe: None) -> None:
    """One round trip: in libpq's trace of the connection, COMMIT leaves before the server's
    first answer to the statement comes back."""
    from psycopg import pq

    connection.ensure_connection()
    pgconn = connection.connection.pgconn
    with tempfile.TemporaryFile(mode="w+") as trace:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT 1")  # the transaction is open (psycopg's BEGIN went out)
            pgconn.trace(trace.fileno())
            pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
            try:
                assert _insert(cursor, 1) is True
            finally:
                pgconn.untrace()
        trace.seek(0)
        lines = [line.split("\t") for line in trace.read().splitlines()]
    first_answer = next(i for i, line in enumerate(lines) if line[0] == "B")
    commit = next(i for i, line in enumerate(lines) if line[0] == "F" and '"COMMIT"' in line[-1])
    assert commit < first_answer, lines
    assert [line[2].strip() for line in lines if line[0] == "B"][-1:] == ["ReadyForQuery"]
    assert lines[-1][-1].strip() == "I"  # idle: no transaction left open


def test_in_a_savepoint_the_outer_block_commits(probe: None) -> None:
    with transaction.atomic():
        with transaction.atomic(), connection.cursor() as cursor:
            assert _insert(cursor, 1) is False
        assert _seen_elsewhere() == []
    assert _seen_elsewhere() == [1]


def test_a_transaction_opened_without_atomic_is_left_to_its_owner(probe: None) -> None:
    transaction.set_autocommit(False)
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            assert _insert(cursor, 1) is False
        assert _seen_elsewhere() == []
        transaction.commit()
    finally:
        transaction.set_autocommit(True)
    assert _seen_elsewhere() == [1]


def test_a_failing_statement_raises_djangos_error_and_commits_nothing(probe: None) -> None:
    hooks: list[str] = []
    with transaction.atomic(), connection.cursor() as cursor:
        assert _insert(cursor, 1) is True
    with pytest.raises(IntegrityError):
        _write_then_fail(hooks, row_id=1)  # duplicate key
    assert hooks == []
    assert _seen_elsewhere() == [1]  # not 2: the block rolled back
    with transaction.atomic():  # and the connection is usable
        assert _insert(connection.cursor(), 3) is True
    assert _seen_elsewhere() == [1, 3]


def test_a_deferred_constraint_failing_at_commit_raises_and_commits_nothing(
    probe: None,
) -> None:
    """Django's foreign keys are checked at COMMIT: that failure is the caller's too."""
    hooks: list[str] = []
    with pytest.raises(IntegrityError):
        _write_then_fail(hooks, row_id=1, parent=99)  # no such parent: refused by the COMMIT
    assert hooks == []
    assert _seen_elsewhere() == []
    with transaction.atomic():
        assert _insert(connection.cursor(), 4) is True
    assert _seen_elsewhere() == [4]


def test_without_pipeline_mode_the_block_commits(
    probe: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A libpq older than 14 has no pipeline mode: the statement runs alone, nothing breaks."""
    import core.sql

    monkeypatch.setattr(core.sql, "_pipelines", lambda: False)
    with transaction.atomic(), connection.cursor() as cursor:
        assert _insert(cursor, 5) is False
        assert cursor.fetchone() == (5,)
        assert _seen_elsewhere() == []
    assert _seen_elsewhere() == [5]
