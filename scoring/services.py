"""Writes of the scoring app: create, start, record, void, override and forfeit matches.

Every write that changes a match locks its row (``SELECT ... FOR NO KEY UPDATE``), recomputes
the state with the engine from the stored non-void hands (the single source of truth), stores
the result and the snapshot in the same transaction, bumps ``Match.version`` and, last,
``Tournament.version``. Only after commit does it broadcast (``core.broadcast``) and, when a
match ended or reopened, emit the domain event ``core.events.match_finished`` /
``match_reopened`` (brackets and ratings handle them; scoring never imports either).

Engine rejections become ``ApplicationError`` 400s carrying the engine's code, rule and field;
a stale expected hand number is a 409 with the current state; an idempotency key reused with
another body is a 422.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, transaction
from django.db.models import Field
from django.utils import timezone

from core import events
from core.broadcast import broadcast_on_commit
from core.events import emit_on_commit, match_reopened
from core.exceptions import ApplicationError, ConflictError, NotFoundError, PermissionDeniedError
from core.sql import Columns, Insert, default_connection, execute_and_commit, prepared_cursor
from core.sql import column as sql_column
from core.sql import table as sql_table
from scoring import confirmation as table_confirmation
from scoring.engine import InvalidRuleset, Ruleset, RuleViolation, Tile
from scoring.engine.match import HandScored, MatchState, match_apply
from scoring.engine.match import match_start as engine_match_start
from scoring.engine.match_state import InvalidSnapshot, state_from_json, state_to_json
from scoring.engine.placing import placings_by_score, shared_placings_valid, sole_first
from scoring.engine.playlog import PlayLog, replay_play_log
from scoring.engine.record import HandRecord
from scoring.engine.rules import Opening
from scoring.events import match_update_event
from scoring.models import Hand, Match, Seat
from scoring.representations import hand_recorded_body, match_state_body, next_hand_json
from scoring.selectors import match_fold_records, match_hand_records, match_ruleset
from tournament.context import (
    PERMISSIONS,
    STATUS_GATES,
    Action,
    RefereeActor,
    Role,
    actor_roles,
    require_actor,
    require_status,
)
from tournament.groups import tournament_group
from tournament.models import Entry, Table, Tournament, TournamentRole
from tournament.services import (
    action_log_record,
    tournament_version_bump,
    tournament_version_bump_sql,
)

Actor = Any  # an authenticated user instance

logger = logging.getLogger(__name__)

MAX_IDEMPOTENCY_KEY = 128
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
_OUTCOME_KEYS = ("poser", "pose_tile", "end", "winner", "counts", "llave", "sporting")


@dataclass(frozen=True, slots=True)
class ClientInfo:
    """Where a write came from, stored on the hand for audit."""

    ip: str | None = None
    user_agent: str = ""


@dataclass(frozen=True, slots=True)
class HandRecordResult:
    """What :func:`hand_record` did. ``replayed``: an idempotent retry got the stored answer."""

    status: int
    body: dict[str, Any]
    replayed: bool
    hand: Hand | None = None
    match: Match | None = None


@dataclass(frozen=True, slots=True)
class ForfeitResult:
    match: Match
    continuation: Match | None


# -- permissions --------------------------------------------------------------------------------


def _require_authenticated(actor: Actor) -> None:
    if actor is None or not getattr(actor, "is_authenticated", False):
        raise PermissionDeniedError("Sign in first.", code="not_authenticated")


def _require_director(actor: Actor, tournament: Tournament, action: Action = Action.MANAGE) -> None:
    """A director action: the one permission table and lifecycle gate (tournament.context)."""
    _require_authenticated(actor)
    require_actor(actor, tournament, action)


def _require_referee_or_director(actor: Actor, match: Match, action: Action) -> bool:
    """The match's assigned referee or a director, by the one table, while the tournament is
    running (its lifecycle gate); True for a director."""
    _require_authenticated(actor)
    roles = actor_roles(actor, match.tournament_id)
    is_director = Role.DIRECTOR in roles
    assigned = Role.REFEREE in roles and match.referee_id == actor.pk
    effective = ({Role.DIRECTOR} if is_director else set()) | (
        {Role.REFEREE} if assigned else set()
    )
    if not effective & PERMISSIONS[action]:
        raise PermissionDeniedError(
            "Only the referee assigned to this match or a director may do this.",
            code="not_match_referee",
        )
    require_status(match.tournament, action)
    return is_director


def _require_reason(reason: str) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise ApplicationError(
            "Give a reason.", code="reason_required", fields={"reason": ["Required."]}
        )
    return reason.strip()


# -- helpers --------------------------------------------------------------------------------------


def _engine_error(exc: RuleViolation, prefix: str = "") -> ApplicationError:
    """An engine rejection as a 400 naming the engine's code, rule and field."""
    if exc.field:
        field = f"{prefix}.{exc.field}" if prefix else exc.field
    else:
        field = prefix or "non_field_errors"
    return ApplicationError(
        exc.message, code=exc.code, rule=exc.rule, fields={field: [exc.message]}
    )


def _lock_match(match_id: int) -> Match:
    """The match row, locked ``FOR NO KEY UPDATE`` until the transaction ends.

    NO KEY: hands inserted in the same transaction take ``FOR KEY SHARE`` on the match through
    their foreign key, which a plain ``FOR UPDATE`` held by another transaction would block.
    """
    try:
        return Match.objects.select_for_update(no_key=True).get(pk=match_id)
    except Match.DoesNotExist:
        raise NotFoundError(f"No match {match_id}.", code="not_found") from None


_MATCH_COLUMNS: Columns[Match] = Columns(Match, alias="m")


def _lock_for_recording_sql() -> str:
    """``SELECT <match>, <actor is director>, <actor is referee> ... FOR NO KEY UPDATE``."""
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
        f"SELECT {_MATCH_COLUMNS.sql}, {status}, {role_exists}, {role_exists} "  # noqa: S608
        f"FROM {sql_table(Match)} m WHERE m.{sql_column(Match, 'id')} = %s"
    )
    if default_connection().features.has_select_for_update_of:
        sql += " FOR NO KEY UPDATE OF m"  # PostgreSQL; SQLite serialises writers anyway
    return sql


def _lock_match_for_recording(match_id: int, actor: Actor) -> tuple[Match, bool]:
    """Lock the match (as :func:`_lock_match`) and authorise ``actor`` in the same query.

    The role checks ride along as ``EXISTS`` subqueries, so the hot path pays one round trip
    for the lock and the permission. The statement is precompiled (``core.sql``): compiling
    the equivalent queryset with its two subqueries cost about a third of a hand's Python
    time (bench/bench_hands.py). Returns the match and whether the actor is a director.
    Raises 404 for an unknown match and 403 unless the actor is a director of the tournament
    or the referee assigned to this match (whose referee role must still stand).
    """
    _require_authenticated(actor)
    params = [
        actor.pk,
        TournamentRole.Role.DIRECTOR.value,
        actor.pk,
        TournamentRole.Role.REFEREE.value,
        match_id,
    ]
    with prepared_cursor() as cursor:
        cursor.execute(_lock_for_recording_sql(), params)
        row = cursor.fetchone()
    if row is None:
        raise NotFoundError(f"No match {match_id}.", code="not_found")
    match = _MATCH_COLUMNS.instance(row[:-3])
    status, actor_is_director = row[-3], bool(row[-2])
    # A credential is never a director, whatever else its identity holds (the table).
    is_director = not isinstance(actor, RefereeActor) and bool(
        getattr(actor, "is_superuser", False) or actor_is_director
    )
    # A credential acts only in its own tournament (its identity's role is there anyway).
    assigned = (
        bool(row[-1])
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
    return match, is_director


def _seats_write_sql(
    *,
    match_id: int,
    n: int,
    state: MatchState,
    placings: Sequence[int | None] | None,
) -> tuple[str, list[Any]]:
    """``UPDATE seat ... FROM <one row per seat>`` writing every seat's points, statistics
    (R35) and placing in one statement, and its parameters.

    Written as SQL because the equivalent ORM ``Case``/``When`` expression (12 columns x 4
    seats) cost more Python time to compile than the whole rest of the hand
    (bench/bench_hands.py). On PostgreSQL the rows travel as ONE JSON parameter
    (``jsonb_to_recordset``), so the statement text is the same for every hand and stays
    within psycopg's statement cache (at most 50 parameters). Elsewhere (the SQLite demo,
    >= 3.33) they are ``VALUES`` rows with unnamed columns (column1...).
    """
    names = _SEAT_COLUMNS
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
        payload = json.dumps([dict(zip(names, row, strict=True)) for row in rows])
        return sql, [timezone.now(), payload, match_id]
    return sql, [timezone.now(), *(v for row in rows for v in row), match_id]


_SEAT_COLUMNS = ("seat", "points", *STAT_FIELDS, "placing")


@functools.lru_cache(maxsize=8)
def _seats_write_statement(vendor: str, n: int) -> str:
    """The statement of :func:`_seats_write_sql` (its text depends only on the vendor, and
    on SQLite on the number of seats)."""
    quote = default_connection().ops.quote_name  # PLACING is a reserved word in PostgreSQL
    table = quote(Seat._meta.db_table)
    columns = _SEAT_COLUMNS[1:]
    if vendor == "postgresql":
        record = ", ".join(f"{quote(name)} integer" for name in _SEAT_COLUMNS)
        assignments = ", ".join(f"{quote(name)} = v.{quote(name)}" for name in columns)
        return (
            f"UPDATE {table} SET {assignments}, {quote('updated_at')} = %s "  # noqa: S608
            f"FROM jsonb_to_recordset(%s::jsonb) AS v({record}) "
            f"WHERE {table}.match_id = %s AND {table}.seat = v.{quote('seat')}"
        )
    width = len(_SEAT_COLUMNS)
    values = ", ".join(["(" + ", ".join(["%s"] * width) + ")"] * n)
    assignments = ", ".join(
        f"{quote(name)} = CAST(v.column{j + 2} AS integer)" for j, name in enumerate(columns)
    )
    return (
        f"UPDATE {table} SET {assignments}, {quote('updated_at')} = %s "  # noqa: S608
        f"FROM (VALUES {values}) AS v WHERE {table}.match_id = %s AND {table}.seat = v.column1"
    )


def _seats_write(
    *,
    match_id: int,
    n: int,
    state: MatchState,
    placings: Sequence[int | None] | None,
) -> None:
    """Every seat's points, statistics (R35) and placing in ONE statement."""
    sql, params = _seats_write_sql(match_id=match_id, n=n, state=state, placings=placings)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _snapshot(match: Match, state: MatchState) -> None:
    """Copy the folded state into the match's snapshot columns, bump the match version and
    store ``state`` as the engine snapshot of that version (read back by
    :func:`_snapshot_state` when the next hand is recorded). Not saved: the caller writes
    ``_SNAPSHOT_FIELDS``."""
    match.scores = list(state.scores)
    match.hands_count = state.hands
    match.next_hand = None if state.over else next_hand_json(state.next)
    match.winner_seat = state.winner if state.over else None
    match.version += 1
    match.engine_state = {"match_version": match.version, "state": state_to_json(state)}


_SNAPSHOT_FIELDS = [
    "scores",
    "hands_count",
    "next_hand",
    "winner_seat",
    "engine_state",
    "version",
    "updated_at",
]


def _notify_after_commit(
    match: Match, tournament_version: int, *, finished: bool = False, reopened: bool = False
) -> None:
    """Broadcast to the match and tournament groups, and announce a finished match, after
    commit (STYLE.md §4)."""
    event = match_update_event(
        match_id=match.pk,
        tournament_id=match.tournament_id,
        version=match.version,
        tournament_version=tournament_version,
    )
    # The tournament group only: match pages take their match's events from the tournament's
    # hub in each live process (live.hub.Source), so a hand costs one group message.
    broadcast_on_commit([tournament_group(match.tournament_id)], event)
    if finished:
        transaction.on_commit(partial(match_finished_announce, match_id=match.pk), robust=True)
    if reopened:
        emit_on_commit(match_reopened, match_id=match.pk, tournament_id=match.tournament_id)


def match_finished_announce(*, match_id: int) -> bool:
    """Emit ``core.events.match_finished`` for a finished match, now (idempotent: its handlers
    are; services call it after commit, and it may be called again to re-announce a match).

    Returns False (and emits nothing) when the match is not finished any more, e.g. a
    director voided the last hand in between.
    """
    row = (
        Match.objects.filter(pk=match_id, status=Match.Status.FINISHED)
        .values("tournament_id", "end_reason")
        .first()
    )
    if row is None:
        return False
    events.dispatch(
        events.match_finished,
        match_id=match_id,
        tournament_id=row["tournament_id"],
        end_reason=row["end_reason"],
    )
    return True


def _fingerprint(match_id: int, expected_number: int, payload: Mapping[str, Any]) -> str:
    canonical = json.dumps(
        {"match": match_id, "number": expected_number, "payload": payload},
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


_RACE_CONSTRAINTS = frozenset(
    {
        "hand_unique_number_live",
        "hand_unique_user_idempotency_key",
    }
)


def _violated_constraint(exc: IntegrityError) -> str | None:
    diag = getattr(exc.__cause__, "diag", None)
    return getattr(diag, "constraint_name", None)


_IDEMPOTENT_COLUMNS: Columns[Hand] = Columns(
    Hand, ["id", "tournament_version", "idempotency_fingerprint", "idempotent_response"]
)


@dataclass(frozen=True, slots=True)
class _StoredAnswer:
    fingerprint: str
    body: dict[str, Any]


def _stored_answer(actor: Actor, key: str) -> _StoredAnswer | None:
    """The answer sent for the hand ``actor`` recorded with ``key``, if any (one indexed
    lookup: the unique (recorded_by, idempotency_key) constraint; precompiled, as retries are
    frequent). The key's hand is found even if it was voided since."""
    sql = (
        f"SELECT {_IDEMPOTENT_COLUMNS.sql} FROM {sql_table(Hand)} "  # noqa: S608
        f"WHERE {sql_column(Hand, 'recorded_by')} = %s "
        f"AND {sql_column(Hand, 'idempotency_key')} = %s "
        # Implies the partial index's predicate, so a prepared (generic) plan can use it.
        f"AND {sql_column(Hand, 'idempotency_key')} <> ''"
    )
    with prepared_cursor() as cursor:
        cursor.execute(sql, [actor.pk, key])
        row = cursor.fetchone()
    if row is None:
        return None
    hand_id, tournament_version, fingerprint, response = _IDEMPOTENT_COLUMNS.values(row)
    if not isinstance(response, dict):  # keyed before answers were kept on the hand
        return None
    return _StoredAnswer(
        fingerprint=fingerprint, body=_answer(response, hand_id, tournament_version)
    )


def _replay(stored: _StoredAnswer, fingerprint: str) -> HandRecordResult:
    if stored.fingerprint != fingerprint:
        raise ApplicationError(
            "This Idempotency-Key was already used for a different request.",
            code="idempotency_key_reused",
            status=422,
            fields={"Idempotency-Key": ["Already used with another body; use a new key."]},
        )
    return HandRecordResult(status=201, body=stored.body, replayed=True)


def _record_from_payload(
    payload: Mapping[str, Any], match: Match, state: MatchState
) -> tuple[HandRecord, dict[str, Any] | None]:
    """The engine record for ``payload``: an outcome record, or one derived from a play log.

    With ``play_log`` the engine replays it and derives poser, pose, end, winner, counts and
    llave (§9); outcome fields sent alongside must agree with what it derived.
    """
    if not isinstance(payload, Mapping):
        raise ApplicationError(
            "A hand must be a JSON object (§9).",
            code="malformed",
            rule="§9",
            fields={"non_field_errors": ["Expected an object."]},
        )
    data = dict(payload)
    log_raw = data.pop("play_log", None)
    if log_raw is None:
        try:
            return HandRecord.from_dict(data), None
        except RuleViolation as exc:
            raise _engine_error(exc) from exc
    unknown = sorted(k for k in data if k not in _OUTCOME_KEYS)
    if unknown:
        raise ApplicationError(
            f"Unknown field {unknown[0]!r} (§9).",
            code="unknown_field",
            rule="§9",
            fields={unknown[0]: ["Unknown field."]},
        )
    try:
        log = PlayLog.from_dict(log_raw)
        derived = replay_play_log(match_ruleset(match), match.n_players, state.next, log)
    except RuleViolation as exc:
        raise _engine_error(exc, prefix="play_log") from exc
    got = derived.to_dict()
    for key, claimed in data.items():
        if claimed is None or (key in ("llave", "sporting") and claimed is False):
            continue
        expected = got[key]
        if key == "pose_tile":
            with contextlib.suppress(RuleViolation):
                claimed = str(Tile.parse(str(claimed)))
        if claimed != expected:
            raise ApplicationError(
                f"{key}={claimed!r} disagrees with the play log, which gives {expected!r} (§9).",
                code="log_mismatch",
                rule="§9",
                fields={key: [f"The play log gives {expected!r}."]},
            )
    return derived, log.to_dict()


# -- match lifecycle ----------------------------------------------------------------------------


@transaction.atomic
def match_create(
    *,
    tournament: Tournament,
    actor: Actor,
    entries: Sequence[Entry],
    table: Table | None = None,
    referee: Actor | None = None,
    label: str = "",
    lot_winner: int = 0,
) -> Match:
    """A stand-alone match of 2-4 entries seated in the given play order (director only)."""
    _require_director(actor, tournament, Action.MANAGE)
    n = len(entries)
    if not 2 <= n <= 4:
        raise ApplicationError(
            f"A table seats 2, 3 or 4 players, not {n} (R2).",
            code="bad_player_count",
            rule="R2",
            fields={"entries": ["Give 2 to 4 entries in play order."]},
        )
    seen: set[int] = set()
    for i, entry in enumerate(entries):
        if entry.tournament_id != tournament.pk:
            raise ApplicationError(
                "That entry belongs to another tournament.",
                code="entry_not_in_tournament",
                fields={f"entries[{i}]": ["Not an entry of this tournament."]},
            )
        if entry.status != Entry.Status.ACTIVE:
            raise ApplicationError(
                f"{entry.player} is {entry.status}.",
                code="entry_not_active",
                fields={f"entries[{i}]": [f"Entry is {entry.status}."]},
            )
        if entry.pk in seen:
            raise ApplicationError(
                "A player cannot sit twice at one table.",
                code="duplicate_entry",
                fields={f"entries[{i}]": ["Duplicate."]},
            )
        seen.add(entry.pk)
    if table is not None and table.tournament_id != tournament.pk:
        raise ApplicationError(
            "That table belongs to another tournament.",
            code="table_not_in_tournament",
            fields={"table": ["Not a table of this tournament."]},
        )
    _check_referee(tournament, referee)
    if not 0 <= lot_winner < n:
        raise ApplicationError(
            f"lot_winner must be a seat 0..{n - 1} (R6).",
            code="unknown_seat",
            rule="R6",
            fields={"lot_winner": ["Not a seat."]},
        )
    match = Match.objects.create(
        tournament=tournament,
        table=table,
        referee=referee,
        label=label,
        n_players=n,
        lot_winner=lot_winner,
        scores=[0] * n,
    )
    Seat.objects.bulk_create(
        [Seat(match=match, seat=i, entry=entry) for i, entry in enumerate(entries)]
    )
    version = tournament_version_bump(tournament_id=tournament.pk)
    _notify_after_commit(match, version)
    return match


def _check_referee(tournament: Tournament, referee: Actor | None) -> None:
    if referee is None:
        return
    if not TournamentRole.objects.filter(
        tournament=tournament, user=referee, role=TournamentRole.Role.REFEREE
    ).exists():
        raise ApplicationError(
            f"{referee} is not a referee of {tournament.name}.",
            code="not_referee",
            fields={"referee": ["Grant the referee role first."]},
        )


@transaction.atomic
def match_assign_referee(*, match_id: int, actor: Actor, referee: Actor | None) -> Match:
    """Assign (or clear) the referee of a match (director only; logged)."""
    match = _lock_match(match_id)
    _require_director(actor, match.tournament, Action.DECIDE_MATCH)
    _check_referee(match.tournament, referee)
    before = match.referee_id
    match.referee = referee
    match.version += 1
    match.save(update_fields=["referee", "version", "updated_at"])
    action_log_record(
        tournament=match.tournament,
        actor=actor,
        verb="match.assign_referee",
        target=match,
        data={"before": before, "after": referee.pk if referee is not None else None},
    )
    version = tournament_version_bump(tournament_id=match.tournament_id)
    _notify_after_commit(match, version)
    return match


def _freeze_ruleset(match: Match) -> Ruleset:
    """The tournament's effective ruleset, validated for the match's player count (§1, R2)."""
    tournament = match.tournament
    try:
        ruleset = (
            Ruleset.from_json(tournament.ruleset)
            if tournament.ruleset
            else Ruleset.from_preset(tournament.ruleset_preset, tournament.ruleset_overrides)
        )
        ruleset.validate_for_players(match.n_players)
    except InvalidRuleset as exc:
        raise _engine_error(exc, prefix="ruleset") from exc
    match.ruleset = ruleset.to_json()
    table_confirmation.confirmation_freeze(match, tournament)  # issue 15: frozen like the rules
    return ruleset


@transaction.atomic
def match_start(*, match_id: int, actor: Actor, lot_winner: int | None = None) -> Match:
    """Start a scheduled match: freeze the tournament's ruleset on it (RULES.md §1), check it
    suits the player count (R2) and store the engine's opening state (R6).

    The assigned referee or a director may start it.
    """
    match = _lock_match(match_id)
    _require_referee_or_director(actor, match, Action.RECORD_HAND)
    if match.status != Match.Status.SCHEDULED:
        raise ApplicationError(
            f"The match is {match.status}, not scheduled.", code="match_not_scheduled"
        )
    seats = Seat.objects.filter(match=match).count()
    if seats != match.n_players:
        raise ApplicationError(
            f"The match has {seats} seats for {match.n_players} players.", code="seats_missing"
        )
    if lot_winner is not None:
        match.lot_winner = lot_winner
    ruleset = _freeze_ruleset(match)
    try:
        state = engine_match_start(ruleset, match.n_players, lot_winner=match.lot_winner)
    except RuleViolation as exc:
        raise _engine_error(exc) from exc
    _snapshot(match, state)
    match.status = Match.Status.IN_PROGRESS
    match.started_at = timezone.now()
    match.save(
        update_fields=[
            *_SNAPSHOT_FIELDS,
            *("ruleset", "confirmation", "lot_winner", "status", "started_at"),
        ]
    )
    version = tournament_version_bump(tournament_id=match.tournament_id)
    _notify_after_commit(match, version)
    return match


def _lot_winner_of(payload: Mapping[str, Any], n_players: int) -> int:
    """The seat that posed the first hand (an outcome record's ``poser``, or a play log's)."""
    poser: Any = payload.get("poser") if isinstance(payload, Mapping) else None
    log = payload.get("play_log") if isinstance(payload, Mapping) else None
    if poser is None and isinstance(log, Mapping):
        poser = log.get("poser")
    if isinstance(poser, int) and not isinstance(poser, bool) and 0 <= poser < n_players:
        return poser
    return 0


def _start_with_first_hand(match: Match, payload: Mapping[str, Any]) -> list[str]:
    """Start a scheduled match as its first hand is recorded; the match columns it changed.

    Matches start without a separate step (README, Rule decisions: Stages, rounds and
    advancement): the first hand a referee records starts the match in the same transaction,
    so a refused hand leaves it scheduled. The ruleset is frozen then (RULES.md §1) and
    checked for the player count (R2); under ``opening = lot_then_rotate`` the seat that
    posed that hand is the lot winner (R6). The caller holds the match lock.
    """
    if match.status != Match.Status.SCHEDULED:
        return []
    if match.tournament.status == Tournament.Status.FINISHED:
        raise ApplicationError("The tournament is finished.", code="tournament_finished")
    seats = Seat.objects.filter(match_id=match.pk).count()
    if seats != match.n_players:
        raise ApplicationError(
            f"The match has {seats} seats for {match.n_players} players.", code="seats_missing"
        )
    ruleset = _freeze_ruleset(match)
    if ruleset.opening is Opening.LOT_THEN_ROTATE:
        match.lot_winner = _lot_winner_of(payload, match.n_players)
    try:
        state = engine_match_start(ruleset, match.n_players, lot_winner=match.lot_winner)
    except RuleViolation as exc:
        raise _engine_error(exc) from exc
    _snapshot(match, state)
    match.status = Match.Status.IN_PROGRESS
    match.started_at = timezone.now()
    return ["ruleset", "confirmation", "lot_winner", "status", "started_at"]


# -- hands ----------------------------------------------------------------------------------------


def hand_record(
    *,
    match_id: int,
    actor: Actor,
    expected_number: int,
    payload: Mapping[str, Any],
    idempotency_key: str | None = None,
    client: ClientInfo | None = None,
) -> HandRecordResult:
    """Record hand ``expected_number`` of a match in progress (RULES.md §9).

    In one transaction: lock the match row, answer a retried ``idempotency_key`` with the
    stored response (422 if the body differs), check the expected number against the stored
    hands (409 with the current state when stale), apply the new hand with the engine to the
    state the previous hand stored (or to the fold of the stored non-void hands when that
    snapshot is retired, and always for the hand that ends the match; 400 naming the
    engine's code, rule and field when it rejects), store the hand, the snapshot and the
    seats' results, bump the match and tournament versions and store the idempotent response.
    After commit: broadcast, and announce a finished match.

    A fixed number of queries whatever the hand number (asserted in the tests): on
    PostgreSQL the lock and the store, which carries the COMMIT with it when this is the
    outermost transaction (as served); one more for the hand that ends the match.
    """
    _require_authenticated(actor)
    key = idempotency_key.strip() if idempotency_key else ""
    if len(key) > MAX_IDEMPOTENCY_KEY:
        raise ApplicationError(
            f"Idempotency-Key is longer than {MAX_IDEMPOTENCY_KEY} characters.",
            code="bad_idempotency_key",
            fields={"Idempotency-Key": ["Too long."]},
        )
    if isinstance(expected_number, bool) or not isinstance(expected_number, int):
        raise ApplicationError(
            "number must be the number of the hand being recorded (§9).",
            code="malformed",
            rule="§9",
            fields={"number": ["An integer >= 1 is required."]},
        )
    fingerprint = _fingerprint(match_id, expected_number, payload) if key else ""
    try:
        return _hand_record_locked(
            match_id=match_id,
            actor=actor,
            expected_number=expected_number,
            payload=payload,
            key=key,
            fingerprint=fingerprint,
            client=client or ClientInfo(),
        )
    except IntegrityError as exc:
        # Same key raced on another match of this user (the match lock serialises the same
        # match); or a unique index caught a hand written around the lock. Any other
        # integrity error is a bug and propagates.
        if _violated_constraint(exc) not in _RACE_CONSTRAINTS:
            raise
        if key:
            stored = _stored_answer(actor, key)
            if stored is not None:
                return _replay(stored, fingerprint)
        raise ConflictError(
            "Another write to this match won the race; reload and try again.",
            code="conflict",
        ) from None


def _snapshot_state(match: Match) -> MatchState | None:
    """The engine state stored with ``match`` by the last hand, if it is still current.

    Current means written for this very match version (every other write to a match bumps
    the version) with the match's hand count and lot winner; anything else, or a snapshot the
    engine cannot read, returns None and the caller folds the stored hands instead.
    """
    stored = match.engine_state
    if not isinstance(stored, dict) or stored.get("match_version") != match.version:
        return None
    try:
        state = state_from_json(match_ruleset(match), stored["state"])
    except (InvalidSnapshot, KeyError, TypeError):
        return None
    if (
        state.hands != match.hands_count
        or state.n_players != match.n_players
        or state.lot_winner != match.lot_winner
    ):
        return None
    return state


def _hand_checked(
    match: Match, expected_number: int, payload: Mapping[str, Any]
) -> tuple[list[tuple[int, ...]] | None, HandRecord, dict[str, Any] | None, MatchState, HandScored]:
    """Every check of a hand submission on the locked match.

    Returns the score history before the hand when it was folded (always for the hand that
    ends the match), the record, its play log, the new state and the engine's report.

    The state before the hand is the snapshot the previous hand stored (no query), or else
    the fold of the stored hands (one query). The hand that ends a match is always checked
    against the full fold, which also gives the score history that places the players
    (T3/T4): a drifted snapshot could never finish a match (one more query, once a match).

    Raises :class:`ApplicationError` (400), or :class:`ConflictError` (409) for a stale hand
    number, naming the field and the rule; nothing has been written when it does.
    """
    if match.status in (Match.Status.SCHEDULED, Match.Status.VOID):
        raise ApplicationError(
            f"The match is {match.get_status_display().lower()}; start it first."
            if match.status == Match.Status.SCHEDULED
            else "The match is void.",
            code="match_not_in_progress",
            fields={"non_field_errors": [f"Match status is {match.status}."]},
        )
    history: list[tuple[int, ...]] | None = None
    state = _snapshot_state(match)
    if state is None:
        state, _, history = match_fold_records(match, match_hand_records(match_id=match.pk))
    if expected_number != state.hands + 1:
        raise ConflictError(
            f"Hand {expected_number} cannot be recorded: the match has {state.hands} hands, "
            f"the next is hand {state.hands + 1}.",
            code="stale_hand_number",
            fields={"number": [f"The next hand is {state.hands + 1}."]},
            extra={"match": match_state_body(match)},
        )
    if match.status == Match.Status.FINISHED:
        raise ApplicationError(
            "The match is over; no further hands (R33).",
            code="match_over",
            rule="R33",
            fields={"number": ["The match is over (R33)."]},
        )
    record, log = _record_from_payload(payload, match, state)
    try:
        new_state, scored = match_apply(state, record)
    except RuleViolation as exc:
        raise _engine_error(exc) from exc
    if new_state.over and history is None:
        folded, _, history = match_fold_records(match, match_hand_records(match_id=match.pk))
        if folded != state:
            logger.error(
                "match %s: its stored engine state differs from the fold of its hands; "
                "the fold decides",
                match.pk,
            )
            try:
                new_state, scored = match_apply(folded, record)
            except RuleViolation as exc:
                raise _engine_error(exc) from exc
    return history, record, log, new_state, scored


_HAND_INSERT: Insert[Hand] = Insert(Hand)


@functools.lru_cache(maxsize=16)
def _match_update_statement(
    vendor: str, names: tuple[str, ...]
) -> tuple[str, tuple[Field[Any, Any], ...]]:
    """``UPDATE match SET <names> WHERE id`` and the fields whose values it takes (cached:
    building it cost more than the engine's work for a hand)."""
    fields = tuple(Match._meta.get_field(name) for name in names)
    assert all(isinstance(f, Field) and f.concrete for f in fields)  # concrete columns only
    assignments = ", ".join(f"{sql_column(Match, name)} = %s" for name in names)
    sql = f"UPDATE {sql_table(Match)} SET {assignments} WHERE {sql_column(Match, 'id')} = %s"  # noqa: S608
    return sql, fields  # type: ignore[return-value]


def _match_update_sql(match: Match, fields: Sequence[str]) -> tuple[str, list[Any]]:
    """``UPDATE match SET <fields>, updated_at WHERE id`` and its parameters."""
    match.updated_at = timezone.now()
    db = default_connection()
    sql, model_fields = _match_update_statement(
        db.vendor, tuple(dict.fromkeys([*fields, "updated_at"]))
    )
    params = [f.get_db_prep_save(getattr(match, f.attname), db) for f in model_fields]
    return sql, [*params, match.pk]


@functools.lru_cache(maxsize=16)
def _hand_store_statement(match_sql: str, seats_sql: str) -> str:
    """The PostgreSQL statement of :func:`_hand_store` (cached: its text depends only on the
    match columns written).

    Keep it within psycopg's statement cache (4,096 characters, 50 parameters; asserted in
    the tests): beyond that psycopg re-parses the query text on every execution.
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


def _answer(stored: Mapping[str, Any], hand_id: int, tournament_version: int) -> dict[str, Any]:
    """The 201 body of a recorded hand from the one stored with it (``Hand`` keeps it
    without the hand's id and the tournament version, which are the row's own columns)."""
    return {
        **stored,
        "hand": {**stored["hand"], "id": hand_id},
        "tournament_version": tournament_version,
    }


def _hand_store(
    *,
    hand: Hand,
    match: Match,
    fields: list[str],
    state: MatchState,
    placings: Sequence[int] | None,
) -> dict[str, Any]:
    """Store the new hand (with a key: its answer for retries), the match's changed
    ``fields``, every seat's results and the tournament's version bump; return the answer.

    On PostgreSQL all of it travels as ONE statement: data-modifying CTEs each run exactly
    once, and the hand takes the bumped tournament version from the ``t`` CTE. Round trips
    and per-statement work were most of a hand's cost with 50 referees on two cores
    (bench/bench_hands.py). It is the transaction's only write and its last statement: in
    the outermost atomic block the COMMIT travels with it (``core.sql.execute_and_commit``),
    so the tournament's row lock is held only while the server runs it. Elsewhere (the
    SQLite demo) the same writes are separate statements in the same transaction.
    """
    stored = hand_recorded_body(hand=hand, match=match, tournament_version=None)
    if hand.idempotency_key:
        hand.idempotent_response = stored
    if default_connection().vendor != "postgresql":
        hand.tournament_version = tournament_version_bump(tournament_id=match.tournament_id)
        hand.save(force_insert=True)
        match.save(update_fields=fields)
        _seats_write(match_id=match.pk, n=match.n_players, state=state, placings=placings)
        return _answer(stored, hand.pk, hand.tournament_version)

    match_sql, match_params = _match_update_sql(match, fields)
    seats_sql, seats_params = _seats_write_sql(
        match_id=match.pk, n=match.n_players, state=state, placings=placings
    )
    params = [
        match.tournament_id,
        *_HAND_INSERT.params(hand, without=["tournament_version"]),
        *match_params,
        *seats_params,
    ]
    with prepared_cursor() as cursor:
        # The last statement of the transaction; it commits with it when the caller's atomic
        # block is the outermost one, so the tournament row's lock (every hand of the
        # tournament takes it) is not held across a round trip. Nothing after it may fail.
        execute_and_commit(cursor, _hand_store_statement(match_sql, seats_sql), params)
        row = cursor.fetchone()
    if row is None:  # the tournament is PROTECTed by the match's foreign key
        raise NotFoundError("Tournament not found.", code="not_found")
    hand.pk, hand.tournament_version = int(row[0]), int(row[1])
    hand._state.adding = False
    hand._state.db = DEFAULT_DB_ALIAS
    return _answer(stored, hand.pk, hand.tournament_version)


@transaction.atomic
def _hand_record_locked(
    *,
    match_id: int,
    actor: Actor,
    expected_number: int,
    payload: Mapping[str, Any],
    key: str,
    fingerprint: str,
    client: ClientInfo,
) -> HandRecordResult:
    match, _ = _lock_match_for_recording(match_id, actor)
    try:
        table_confirmation.confirmation_gate_record(match)  # issue 15: held or disputed
        started = _start_with_first_hand(match, payload)
        history, record, log, new_state, scored = _hand_checked(match, expected_number, payload)
    except ApplicationError:
        # A retried submission gets its original answer whatever happened since (the hand
        # numbers moved on, R33 ended the match). The key is looked up only on the way to a
        # refusal: on the common path it saves a query, and a key reused for a fresh hand is
        # caught by the unique constraints at insert time (see hand_record).
        if key:
            stored = _stored_answer(actor, key)
            if stored is not None:
                return _replay(stored, fingerprint)
        raise

    hand = Hand(
        match=match,
        number=scored.number,
        poser=record.poser,
        pose_tile=str(record.pose_tile),
        end=record.end.value,
        winner=scored.winner,
        counts=list(record.counts) if record.counts is not None else None,
        play_log=log,
        llave=record.llave,
        sporting=record.sporting,
        value=scored.value,
        paid=scored.paid,
        tied=bool(scored.tied),
        reset=scored.reset,
        scores_after=list(scored.scores_after),
        notes=list(scored.notes),
        recorded_by_id=actor.pk,
        client_ip=client.ip,
        user_agent=(client.user_agent or "")[:256],
        idempotency_key=key,
        idempotency_fingerprint=fingerprint,
    )
    # Issue 15: under confirmation at the table the match waits instead of finishing.
    finished, held = table_confirmation.confirmation_after_hand(match, over=new_state.over)
    _snapshot(match, new_state)
    fields = [*_SNAPSHOT_FIELDS, *started, *held]
    placings: list[int] | None = None
    if finished:
        assert history is not None  # _hand_checked folds the stored hands for the last hand
        match.status = Match.Status.FINISHED
        match.finished_at = hand.recorded_at
        match.end_reason = Match.EndReason.NORMAL
        fields += ["status", "finished_at", "end_reason"]
        placings = placings_by_score(
            new_state.scores,
            [*history, new_state.scores],
            [s.hands_won for s in new_state.stats],
            new_state.winner,
        )
    body = _hand_store(hand=hand, match=match, fields=fields, state=new_state, placings=placings)
    version = body["tournament_version"]
    _notify_after_commit(match, version, finished=finished)
    return HandRecordResult(status=201, body=body, replayed=False, hand=hand, match=match)


@dataclass(frozen=True, slots=True)
class HandVoidResult:
    hand: Hand
    match: Match
    body: dict[str, Any]


@transaction.atomic
def hand_void_last(
    *, match_id: int, actor: Actor, reason: str, expected_number: int | None = None
) -> HandVoidResult:
    """Undo the last live hand: it is voided with who / when / why, never deleted, and the
    state is refolded from the remaining hands.

    The assigned referee may undo while the match is in progress; a director may also undo
    the hand that ended the match (the match is then in progress again and
    ``match_reopened`` is sent). ``expected_number`` guards against undoing a hand someone
    else recorded meanwhile (409). Matches ended by forfeit or override cannot be undone here.
    """
    reason = _require_reason(reason)
    match = _lock_match(match_id)
    is_director = _require_referee_or_director(actor, match, Action.UNDO_HAND)
    table_confirmation.confirmation_gate_undo(match)  # issue 15: a dispute freezes it
    if match.status in (Match.Status.SCHEDULED, Match.Status.VOID):
        raise ApplicationError(
            f"The match is {match.status}; there is nothing to undo.",
            code="match_not_in_progress",
        )
    if match.status == Match.Status.FINISHED:
        if match.end_reason != Match.EndReason.NORMAL:
            raise ApplicationError(
                f"The match ended by {match.end_reason}; hands cannot be undone.",
                code="match_closed",
            )
        if not is_director:
            raise PermissionDeniedError(
                "The match is over: only a director may undo its last hand.",
                code="not_director",
            )
    last = Hand.objects.filter(match=match, void=False).order_by("-number").first()
    if last is None:
        raise ApplicationError("No hand to undo.", code="no_hand", fields={"number": ["None."]})
    if expected_number is not None and expected_number != last.number:
        raise ConflictError(
            f"The last hand is {last.number}, not {expected_number}.",
            code="stale_hand_number",
            fields={"number": [f"The last hand is {last.number}."]},
            extra={"match": match_state_body(match)},
        )
    last.void = True
    last.voided_by_id = actor.pk
    last.voided_at = timezone.now()
    last.void_reason = reason
    last.save(update_fields=["void", "voided_by", "voided_at", "void_reason"])

    reopened = match.status == Match.Status.FINISHED
    records = match_hand_records(match_id=match.pk)
    state, _, _ = match_fold_records(match, records)
    _snapshot(match, state)
    fields = [*_SNAPSHOT_FIELDS, *table_confirmation.confirmation_reset(match)]
    if reopened:
        match.status = Match.Status.IN_PROGRESS
        match.finished_at = None
        match.end_reason = ""
        fields += ["status", "finished_at", "end_reason"]
    match.save(update_fields=fields)
    _seats_write(match_id=match.pk, n=match.n_players, state=state, placings=None)
    action_log_record(
        tournament=match.tournament,
        actor=actor,
        verb="hand.void",
        target=last,
        reason=reason,
        data={"match_id": match.pk, "number": last.number, "reopened": reopened},
    )
    version = tournament_version_bump(tournament_id=match.tournament_id)
    body = hand_recorded_body(hand=last, match=match, tournament_version=version)
    _notify_after_commit(match, version, reopened=reopened)
    return HandVoidResult(hand=last, match=match, body=body)


# -- director decisions -------------------------------------------------------------------------


def _director_match(match_id: int, actor: Actor) -> Match:
    match = _lock_match(match_id)
    _require_director(actor, match.tournament, Action.DECIDE_MATCH)
    return match


def _seat_rows(match: Match) -> list[Seat]:
    return list(Seat.objects.filter(match=match).order_by("seat"))


@transaction.atomic
def match_result_override(
    *,
    match_id: int,
    actor: Actor,
    scores: Sequence[int],
    reason: str,
    placings: Sequence[int] | None = None,
) -> Match:
    """Set a match's result by director decision (recorded in the action log with before and
    after). Placings default to the order of ``scores`` (players level share a place, T3) and
    must be given when the top scores tie; a shared first place stores no winner (T3).
    Hands stay as recorded; the statistics columns keep the engine's values (R35)."""
    reason = _require_reason(reason)
    match = _director_match(match_id, actor)
    if match.status == Match.Status.VOID:
        raise ApplicationError("The match is void.", code="match_void")
    n = match.n_players
    if len(scores) != n or any(
        isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in scores
    ):
        raise ApplicationError(
            f"scores must hold {n} integers >= 0, one per seat.",
            code="bad_scores",
            fields={"scores": [f"{n} integers >= 0."]},
        )
    if placings is None:
        if sorted(scores)[-1] == sorted(scores)[-2]:
            raise ApplicationError(
                "The top scores tie: give placings.",
                code="placings_required",
                fields={"placings": ["Required when the top scores tie."]},
            )
        placings = placings_by_score(list(scores), [], [0] * n, None)
    elif (
        len(placings) != n
        or any(isinstance(p, bool) or not isinstance(p, int) for p in placings)
        or not shared_placings_valid(placings)
    ):
        raise ApplicationError(
            f"placings must be the places 1..{n}, one per seat; players level share a place "
            "and skip the places it covers (1, 1, 3, 4).",
            code="bad_placings",
            rule="T3",
            fields={"placings": [f"Competition ranks 1..{n} (1, 2, 2, 4)."]},
        )
    seats = _seat_rows(match)
    before = {
        "status": match.status,
        "end_reason": match.end_reason,
        "scores": list(match.scores),
        "placings": [s.placing for s in seats],
    }
    winner = sole_first(placings)  # None when first is shared: no match win (T3)
    if match.started_at is None:
        _freeze_ruleset(match)
        match.started_at = timezone.now()
    match.scores = list(scores)
    match.winner_seat = winner
    match.next_hand = None
    match.status = Match.Status.FINISHED
    match.end_reason = Match.EndReason.OVERRIDE
    match.finished_at = match.finished_at or timezone.now()
    match.engine_state = None  # no engine state stands behind an override
    match.version += 1
    match.save()
    for seat in seats:
        seat.points = scores[seat.seat]
        seat.placing = placings[seat.seat]
    Seat.objects.bulk_update(seats, ["points", "placing"])
    action_log_record(
        tournament=match.tournament,
        actor=actor,
        verb="match.override",
        target=match,
        reason=reason,
        data={
            "before": before,
            "after": {"scores": list(scores), "placings": list(placings), "winner_seat": winner},
        },
    )
    version = tournament_version_bump(tournament_id=match.tournament_id)
    _notify_after_commit(match, version, finished=True)
    return match


@transaction.atomic
def match_forfeit(*, match_id: int, actor: Actor, seat: int, reason: str) -> ForfeitResult:
    """T7: record a no-show or disqualification at this table as a 0-6 loss.

    The forfeiting seat gets placing last, 0 points and a six-love received; the match ends
    (``end_reason = forfeit``). At a two-player table the opponent wins 6-0. At a larger table
    the others play on without the forfeiting player in a new scheduled match (same table,
    referee and play order) when the frozen ruleset allows that many players (R2); otherwise
    the director reseats them. Recorded in the action log.
    """
    reason = _require_reason(reason)
    match = _director_match(match_id, actor)
    if match.status not in (Match.Status.SCHEDULED, Match.Status.IN_PROGRESS):
        raise ApplicationError(
            f"The match is {match.status}; only a scheduled or running match can be forfeited.",
            code="match_not_open",
        )
    n = match.n_players
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ApplicationError(
            f"seat must be 0..{n - 1}.", code="unknown_seat", fields={"seat": ["Not a seat."]}
        )
    ruleset = _freeze_ruleset(match) if match.started_at is None else match_ruleset(match)
    if match.started_at is None:
        match.started_at = timezone.now()
    seats = _seat_rows(match)
    loser = seats[seat]
    loser.forfeited = True
    loser.points = 0
    loser.placing = n
    loser.six_love_received += 1
    others = [s for s in seats if s.seat != seat]
    continuation: Match | None = None
    scores = list(match.scores) if match.scores else [0] * n
    scores[seat] = 0
    if n == 2:
        winner = others[0]
        winner.placing = 1
        winner.points = max(winner.points, ruleset.target_for(2))
        winner.six_love_given += 1
        scores[winner.seat] = winner.points
        match.winner_seat = winner.seat
    else:
        match.winner_seat = None
        for s in others:
            s.placing = None
        try:
            ruleset.validate_for_players(n - 1)
            allowed = True
        except InvalidRuleset:
            allowed = False
        if allowed:
            continuation = Match.objects.create(
                continues=match,
                tournament_id=match.tournament_id,
                table_id=match.table_id,
                referee_id=match.referee_id,
                label=f"{match.label or f'Match {match.pk}'} (continued, T7)"[:80],
                n_players=n - 1,
                scores=[0] * (n - 1),
            )
            Seat.objects.bulk_create(
                [
                    Seat(match=continuation, seat=i, entry_id=s.entry_id)
                    for i, s in enumerate(others)
                ]
            )
    Seat.objects.bulk_update(
        seats, ["forfeited", "points", "placing", "six_love_received", "six_love_given"]
    )
    match.scores = scores
    match.next_hand = None
    match.status = Match.Status.FINISHED
    match.end_reason = Match.EndReason.FORFEIT
    match.finished_at = timezone.now()
    match.engine_state = None  # the match ended outside the engine (T7)
    match.version += 1
    match.save()
    action_log_record(
        tournament=match.tournament,
        actor=actor,
        verb="match.forfeit",
        target=match,
        reason=reason,
        data={
            "seat": seat,
            "entry_id": loser.entry_id,
            "continuation_match_id": continuation.pk if continuation else None,
        },
    )
    version = tournament_version_bump(tournament_id=match.tournament_id)
    _notify_after_commit(match, version, finished=True)
    if continuation is not None:
        _notify_after_commit(continuation, version)
    return ForfeitResult(match=match, continuation=continuation)
