"""The hot path's lock-and-authorise statement: the match row locked and the actor's roles
read in one round trip."""

from __future__ import annotations

import functools

from core.exceptions import ApplicationError, NotFoundError, PermissionDeniedError
from core.sql import Columns, default_connection, prepared_cursor
from core.sql import column as sql_column
from core.sql import table as sql_table
from scoring.models import Match
from scoring.selectors import match_missing
from scoring.services.common import Actor, _require_authenticated, _require_match_visible
from scoring.services.idempotency import (
    KEYED_COLUMNS,
    _StoredAnswer,
    keyed_hand_join,
    stored_answer_from,
)
from tournament.context import (
    PERMISSIONS,
    PUBLIC_STATUSES,
    STATUS_GATES,
    Action,
    RefereeActor,
    Role,
)
from tournament.models import Tournament, TournamentRole

_MATCH_COLUMNS: Columns[Match] = Columns(Match, alias="m")


def _lock_for_recording_sql() -> str:
    """``SELECT <match>, <tournament status>, <actor is director>, <actor is referee>,
    <the actor's hand with this idempotency key> ... FOR NO KEY UPDATE OF m``."""
    return _lock_for_recording_statement(default_connection().vendor)


@functools.lru_cache(maxsize=4)
def _lock_for_recording_statement(vendor: str) -> str:
    roles = sql_table(TournamentRole)
    role_exists = (
        f"EXISTS (SELECT 1 FROM {roles} r "  # noqa: S608 (names from _meta)
        f"WHERE r.{sql_column(TournamentRole, 'tournament')} = "
        f"m.{sql_column(Match, 'tournament')} "
        f"AND r.{sql_column(TournamentRole, 'user')} = %s "
        f"AND r.{sql_column(TournamentRole, 'role')} = %s)"
    )
    status = (
        f"(SELECT t.{sql_column(Tournament, 'status')} FROM {sql_table(Tournament)} t "  # noqa: S608
        f"WHERE t.{sql_column(Tournament, 'id')} = m.{sql_column(Match, 'tournament')})"
    )
    sql = (
        f"SELECT {_MATCH_COLUMNS.sql}, {status}, {role_exists}, {role_exists}, "  # noqa: S608
        f"{KEYED_COLUMNS.sql} FROM {sql_table(Match)} m {keyed_hand_join()} "
        f"WHERE m.{sql_column(Match, 'id')} = %s"
    )
    if default_connection().features.has_select_for_update_of:
        sql += " FOR NO KEY UPDATE OF m"  # PostgreSQL; SQLite serialises writers anyway
    return sql


def _lock_match_for_recording(
    match_id: int, actor: Actor, key: str = ""
) -> tuple[Match, bool, _StoredAnswer | None]:
    """Lock the match (as :func:`_lock_match`) and authorise ``actor`` in the same query.

    The role checks ride along as ``EXISTS`` subqueries, so the hot path pays one round trip
    for the lock and the permission; the hand ``actor`` already recorded with the
    idempotency ``key`` (if any) rides along too, so a retried submission is answered from
    this one statement (its row is read in the statement's snapshot: a hand committed while
    the lock waited is not in it, and the caller's later checks find that one).

    The statement is precompiled (``core.sql``): compiling the equivalent queryset with its
    two subqueries cost about a third of a hand's Python time (bench/bench_hands.py).
    Returns the match, whether the actor is a director and the stored answer for ``key``.
    Raises 404 for an unknown match (and a hidden draft's) and 403 unless the actor is a
    director of the tournament or the referee assigned to this match (whose referee role must
    still stand).
    """
    _require_authenticated(actor)
    params = [
        actor.pk,
        TournamentRole.Role.DIRECTOR.value,
        actor.pk,
        TournamentRole.Role.REFEREE.value,
        actor.pk,
        key,
        match_id,
    ]
    with prepared_cursor() as cursor:
        cursor.execute(_lock_for_recording_sql(), params)
        row = cursor.fetchone()
    if row is None:
        raise NotFoundError(match_missing(match_id), code="not_found")
    keyed = len(KEYED_COLUMNS.attnames)
    match = _MATCH_COLUMNS.instance(row[: -3 - keyed])
    status, actor_is_director, actor_is_referee = row[-3 - keyed : -keyed]
    stored = stored_answer_from(row[-keyed:])
    if status not in PUBLIC_STATUSES:  # a draft: off the hot path, the one visibility rule
        _require_match_visible(actor, match)
    # A credential is never a director, whatever else its identity holds (the table).
    is_director = not isinstance(actor, RefereeActor) and bool(
        getattr(actor, "is_superuser", False) or actor_is_director
    )
    # A credential acts only in its own tournament (its identity's role is there anyway).
    assigned = (
        bool(actor_is_referee)
        and match.referee_id == actor.pk
        and getattr(actor, "tournament_id", match.tournament_id) == match.tournament_id
    )
    roles = ({Role.DIRECTOR} if is_director else set()) | ({Role.REFEREE} if assigned else set())
    if not roles & PERMISSIONS[Action.RECORD_HAND]:
        raise PermissionDeniedError(
            "Only the referee assigned to this match or a director may do this.",
            code="not_match_referee",
        )
    if status not in STATUS_GATES[Action.RECORD_HAND]:
        raise ApplicationError(
            f"The tournament is {status}: hands are recorded only while it is running.",
            code=f"tournament_{status}",
            rule="lifecycle",
            status=409,
            fields={"status": [f"Tournament is {status}."]},
        )
    return match, bool(is_director), stored
