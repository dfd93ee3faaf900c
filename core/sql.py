"""Precompiled SQL for hot paths: model columns, their converters, and rows back as instances.

The ORM compiles a queryset into SQL on every call; for a referee's hand submission that
compilation cost more Python time than the rules engine and the database together
(``bench/bench_hands.py``). These helpers do the compiling once per process and keep the
ORM's semantics where it matters:

* column names come from the model's ``_meta`` and are quoted by the connection;
* values read back go through exactly the converters the ORM applies (the backend's and the
  field's ``from_db_value``: JSON decoding, SQLite booleans and datetimes...);
* values written go through each field's ``get_db_prep_save`` (:func:`prep_save`), but for
  a plain ``JSONField``'s object on PostgreSQL, which orjson encodes (:func:`json_dumps`).

Everything here is vendor-neutral SQL; a caller that needs a PostgreSQL-only clause (row
locks, data-modifying CTEs) decides on ``connection.vendor`` itself. Use only where a
benchmark shows the ORM's compile time matters; everywhere else the ORM is the rule.

:func:`prepared_cursor` runs such fixed statements as PostgreSQL prepared statements: parsed,
analysed and planned once per connection instead of on every execution.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar

import orjson
from django.core.exceptions import EmptyResultSet
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorWrapper
from django.db.models import Field, JSONField, Model, QuerySet
from django.db.models.query import ValuesListIterable

M = TypeVar("M", bound=Model)


def default_connection() -> BaseDatabaseWrapper:
    """The default connection itself: ``django.db.connection`` is a proxy that looks the
    connection up again (a context-local lookup) on every attribute access, which the hot
    path did dozens of times per hand."""
    return connections[DEFAULT_DB_ALIAS]


def quote(name: str) -> str:
    return str(default_connection().ops.quote_name(name))


def table(model: type[Model]) -> str:
    """The model's quoted table name."""
    return quote(model._meta.db_table)


def json_dumps(value: Any) -> bytes | str:
    """``value`` as JSON for a ``jsonb`` parameter: orjson's bytes, or where orjson refuses the
    value (a dict with keys that are not strings, an integer beyond 64 bits, a lazy
    translation) the standard library's text, which also raises for what is not JSON at all.

    PostgreSQL parses the text into the same ``jsonb`` value either way (it keeps no spacing);
    orjson costs a fraction of ``json.dumps`` for the hand store's seven JSON parameters
    (bench/RESULTS.md). One difference: a NaN or infinite float, which ``json.dumps`` writes as
    a token PostgreSQL rejects, is ``null`` here.
    """
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value)


def jsonb(value: Any) -> Any:
    """``value`` as a PostgreSQL ``jsonb`` parameter encoded by :func:`json_dumps`."""
    from psycopg.types.json import Jsonb  # only on PostgreSQL

    return Jsonb(value, dumps=json_dumps)


def prep_save(field: Field[Any, Any], value: Any, db: BaseDatabaseWrapper) -> Any:
    """``field.get_db_prep_save(value, db)``, as ``Model.save`` adapts a value, but for a plain
    ``JSONField`` (no custom encoder) holding a dict or a list on PostgreSQL, which is
    encoded by :func:`json_dumps` (Django's own adapter there is ``json.dumps``)."""
    if (
        type(value) in (dict, list)
        and db.vendor == "postgresql"
        and isinstance(field, JSONField)
        and field.encoder is None
    ):
        return jsonb(value)
    return field.get_db_prep_save(value, db)


def _concrete(model: type[Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or not field.concrete:
        raise ValueError(f"{model.__name__}.{name} is not a concrete column")
    return field


class Columns(Generic[M]):
    """Some (default: all) concrete columns of ``model`` in a SELECT list under ``alias``.

    ``sql`` is the column list; :meth:`values` converts a row (its leading columns, when the
    query selects more) as the ORM would; :meth:`instance` builds the model instance
    (``Model.from_db``, so it is a normal saved instance). Built lazily and cached per
    database vendor, so a module can declare its columns at import time.
    """

    def __init__(self, model: type[M], names: Sequence[str] | None = None, alias: str = "") -> None:
        self.model = model
        self._names = tuple(names) if names is not None else None
        self.alias = alias
        self._compiled: dict[
            str, tuple[str, list[Field[Any, Any]], list[Any], list[Any], list[str]]
        ] = {}

    def _compile(self) -> tuple[str, list[Field[Any, Any]], list[Any], list[Any], list[str]]:
        db = default_connection()
        vendor = db.vendor
        compiled = self._compiled.get(vendor)
        if compiled is None:
            if self._names is None:
                fields: list[Field[Any, Any]] = list(self.model._meta.concrete_fields)
            else:
                fields = [_concrete(self.model, n) for n in self._names]
            prefix = f"{quote(self.alias)}." if self.alias else ""
            sql = ", ".join(f"{prefix}{quote(f.column)}" for f in fields)  # type: ignore[arg-type]
            cols = [f.get_col(self.alias or self.model._meta.db_table) for f in fields]
            # As SQLCompiler.get_converters: the backend's converters, then the field's.
            converters: list[Any] = [
                [*db.ops.get_db_converters(c), *c.get_db_converters(db)] for c in cols
            ]
            compiled = (sql, fields, cols, converters, [f.attname for f in fields])
            self._compiled[vendor] = compiled
        return compiled

    @property
    def sql(self) -> str:
        return self._compile()[0]

    @property
    def attnames(self) -> list[str]:
        return list(self._compile()[4])

    def values(self, row: Sequence[Any]) -> list[Any]:
        """The row's first ``len(columns)`` values, converted (later ones are the caller's)."""
        db = default_connection()
        _, fields, cols, converters, _ = self._compile()
        out = list(row[: len(fields)])
        for i, chain in enumerate(converters):
            if chain:
                value = out[i]
                for convert in chain:
                    value = convert(value, cols[i], db)
                out[i] = value
        return out

    def dicts(self, rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
        names = self.attnames
        return [dict(zip(names, self.values(r), strict=True)) for r in rows]

    def instance(self, row: Sequence[Any]) -> M:
        if self._names is not None:
            raise TypeError("instance() needs every concrete column (Columns(model))")
        return self.model.from_db(DEFAULT_DB_ALIAS, self._compile()[4], self.values(row))


class Insert(Generic[M]):
    """``INSERT INTO model (every concrete column but an auto pk)``: SQL and parameters.

    :meth:`params` reads the values from an unsaved instance as ``Model.save`` does
    (``pre_save`` then ``get_db_prep_save``: defaults were applied by the constructor, JSON and
    datetimes are adapted). :meth:`select_sql` is the ``INSERT ... SELECT`` form, where some
    columns take an SQL expression instead of a plain parameter.
    """

    def __init__(self, model: type[M]) -> None:
        self.model = model
        self._compiled: dict[str, tuple[str, list[Field[Any, Any]]]] = {}

    @property
    def sql(self) -> str:
        return self._compile()[0]

    def _compile(self) -> tuple[str, list[Field[Any, Any]]]:
        vendor = default_connection().vendor
        compiled = self._compiled.get(vendor)
        if compiled is None:
            pk = self.model._meta.pk
            fields = [
                f
                for f in self.model._meta.concrete_fields
                if not (f is pk and getattr(f, "db_returning", False))
            ]
            columns = ", ".join(quote(f.column) for f in fields)  # type: ignore[arg-type]
            placeholders = ", ".join(["%s"] * len(fields))
            sql = f"INSERT INTO {table(self.model)} ({columns}) VALUES ({placeholders})"  # noqa: S608
            compiled = (sql, fields)
            self._compiled[vendor] = compiled
        return compiled

    def select_sql(self, expressions: Mapping[str, str], source: str) -> str:
        """``INSERT INTO ... SELECT <%s or expressions[name]>, ... FROM <source>``."""
        fields = self._compile()[1]
        columns = ", ".join(quote(f.column) for f in fields)  # type: ignore[arg-type]
        select = ", ".join(expressions.get(f.name, "%s") for f in fields)
        return f"INSERT INTO {table(self.model)} ({columns}) SELECT {select} FROM {source}"  # noqa: S608

    def params(self, instance: M, without: Iterable[str] = ()) -> list[Any]:
        """Parameters for :attr:`sql` or :meth:`select_sql`: one per column, in order, but
        for the fields named in ``without`` (those :meth:`select_sql` gave an expression that
        takes no parameter)."""
        db = default_connection()
        skip = set(without)
        return [
            prep_save(f, f.pre_save(instance, True), db)
            for f in self._compile()[1]
            if f.name not in skip
        ]


def column(model: type[Model], name: str) -> str:
    """The quoted column of field ``name``."""
    return quote(_concrete(model, name).column)  # type: ignore[arg-type]


@functools.cache
def _preparing_cursor_class(binary: bool = False) -> type[Any]:
    import psycopg  # only on PostgreSQL

    class PreparingCursor(psycopg.Cursor[Any]):
        """Server-side binding, and every statement prepared on first use (and with
        ``binary``, results in PostgreSQL's binary format)."""

        def execute(
            self, query: Any, params: Any = None, *, prepare: bool | None = None, **kw: Any
        ) -> Any:
            prepare = True if prepare is None else prepare
            if binary:
                kw.setdefault("binary", True)
            return super().execute(query, params, prepare=prepare, **kw)

        def _convert_query(self, query: Any, params: Any = None) -> Any:
            # Keep the converted statement where Django's query log reads it
            # (DatabaseOperations.last_executed_query: ``cursor._query``), which a server-side
            # binding cursor no longer sets: captured queries show the statement's text
            # (with $n placeholders) instead of None.
            converted = super()._convert_query(query, params)
            self._query = converted
            return converted

    return PreparingCursor


@contextlib.contextmanager
def prepared_cursor(*, binary: bool = False) -> Iterator[CursorWrapper]:
    """A cursor for a hot path's fixed statements (``with prepared_cursor() as cursor``).

    On PostgreSQL the parameters are bound server-side and each statement is prepared on
    the connection the first time it runs: later executions skip parsing, analysis and
    planning, which were about 40 % of PostgreSQL's CPU for a recorded hand
    (bench/bench_hands.py). Django's own cursors bind client-side and never prepare. It is
    still Django's cursor wrapper, so database errors are Django's (``IntegrityError``...),
    ``connection.execute_wrapper`` and the test suite's query capture see every statement.

    Prepared statements live on the server connection, so they need one that stays with
    this process (a direct connection, Django's psycopg pool or a pooler that supports them):
    ``DATABASE_PREPARED_STATEMENTS=false`` turns them off (psycopg's ``prepare_threshold``
    None), and this becomes an ordinary cursor with server-side binding. Elsewhere (SQLite)
    it is ``connection.cursor()``. Only statements whose text is fixed belong here: every
    distinct text is a prepared statement on every connection (psycopg keeps 100).

    ``binary``: results come back in PostgreSQL's binary format, which psycopg reads with
    less work than text (integers above all): for reads of thousands of rows
    (:func:`values_rows`).
    """
    db = default_connection()
    if db.vendor != "postgresql":
        with db.cursor() as cursor:
            yield cursor
        return
    db.close_if_health_check_failed()
    db.ensure_connection()
    db.validate_thread_sharing()
    raw = _preparing_cursor_class(binary)(db.connection)
    # As BaseDatabaseWrapper.cursor(): the debug wrapper when queries are being logged.
    cursor = db.make_debug_cursor(raw) if db.queries_logged else db.make_cursor(raw)
    with cursor:
        yield cursor


def _commits_on_leaving(db: BaseDatabaseWrapper) -> bool:
    """True inside the outermost ``atomic`` block of a transaction it will commit on exit
    (not in a savepoint, not after ``set_autocommit(False)``, not one marked for rollback)."""
    return (
        db.in_atomic_block
        and db.commit_on_exit
        and len(db.atomic_blocks) == 1
        and not db.needs_rollback
    )


def execute_and_commit(cursor: CursorWrapper, sql: str, params: Sequence[Any]) -> bool:
    """Execute the last statement of a transaction and COMMIT it in the same round trip.

    On PostgreSQL, inside the outermost ``atomic`` block (which would commit right after
    anyway), the statement and ``COMMIT`` are sent together in a psycopg pipeline: the
    server commits without waiting for the client to read the result and send ``COMMIT``.
    Row locks the statement takes are held only while the server executes and commits it,
    not across a network round trip and a wait for this process's GIL. That is what the hand
    store needs: every hand of a tournament bumps the tournament's version row, so those
    locks queue referees behind one another (bench/bench_hands.py measures it).

    Returns True when it committed. The ``atomic`` block then ends as usual: Django's commit
    finds nothing to commit (psycopg skips ``COMMIT`` outside a transaction) and the
    ``on_commit`` callbacks run as always. So nothing that can fail may come after it in
    the block: an exception there would no longer roll anything back. Errors of the
    statement or of the commit (deferred constraints) are raised here as Django's
    (``IntegrityError``...) and nothing is committed. Elsewhere (a savepoint, a transaction
    opened without ``atomic``, SQLite, a libpq without pipeline mode) it executes the
    statement and returns False; the enclosing block commits.

    The ``COMMIT`` goes through Django's cursor, so ``execute_wrapper`` and query logging see
    it; Django's debug log (``connection.queries``) also lists the block's own ``COMMIT``,
    which psycopg then skips.
    """
    db = default_connection()
    if db.vendor != "postgresql" or not _commits_on_leaving(db) or not _pipelines():
        cursor.execute(sql, params)
        return False
    # COMMIT goes through a Django cursor (opened before the pipeline), so execute_wrapper and
    # query logging see it; errors surface when the pipeline syncs, outside the cursors' own
    # translation into Django's exceptions, hence wrap_database_errors.
    with db.cursor() as commit, db.wrap_database_errors, db.connection.pipeline():
        cursor.execute(sql, params)
        commit.execute("COMMIT")
    return True


@functools.cache
def _pipelines() -> bool:
    """psycopg's pipeline mode needs libpq 14 or later (the binary package bundles one)."""
    import psycopg  # only on PostgreSQL

    return bool(psycopg.Pipeline.is_supported())


def values_rows(queryset: QuerySet[Any, Any]) -> list[tuple[Any, ...]]:
    """The rows of a ``values_list(...)`` queryset, exactly as iterating it gives them, for a
    read of thousands of rows.

    On PostgreSQL, when no column needs a converter (plain integers, booleans, text), its
    SQL runs as a prepared statement with binary results (:func:`prepared_cursor`): a
    5,000-player stage's 15,000 seat rows cost about half the client CPU of the ORM's
    iteration (bench/RESULTS.md). Anything else (another vendor, a converter, a flat or named
    ``values_list``, extra or annotated columns) iterates the queryset.
    """
    db = connections[queryset.db]
    query = queryset.query
    if (
        db.vendor != "postgresql"
        or queryset._iterable_class is not ValuesListIterable
        or query.extra_select
        or query.annotation_select
    ):
        return list(queryset)
    compiler = query.get_compiler(queryset.db)
    try:
        sql, params = compiler.as_sql()
    except EmptyResultSet:
        return []
    if compiler.has_extra_select or compiler.get_converters([col for col, _, _ in compiler.select]):
        return list(queryset)
    with prepared_cursor(binary=True) as cursor:
        cursor.execute(sql, params)
        rows: list[tuple[Any, ...]] = cursor.fetchall()
    return rows
