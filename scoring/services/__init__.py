"""Writes of the scoring app: create, start, record, void, override and forfeit matches.

Every write that changes a match locks its row (``SELECT ... FOR NO KEY UPDATE``), recomputes
the state with the engine from the stored non-void hands (the single source of truth), stores
the result and the snapshot in the same transaction, bumps ``Match.version`` and, last,
``Tournament.version``. Only after commit does it broadcast (``core.broadcast``) and emit the
domain events of ``core.events`` (``hand_recorded``; ``match_finished`` / ``match_reopened``
when a match ended or reopened): brackets, ratings and live handle them, scoring never imports
them.

Engine rejections become ``ApplicationError`` 400s carrying the engine's code, rule and field;
a stale expected hand number is a 409 with the current state; an idempotency key reused with
another body is a 422.

The modules, by topic:

- ``matches``: create, assign a referee, start (the lifecycle before hands);
- ``hands``: record a hand (checks on the locked match, the engine, the store);
- ``hand_store``: :class:`HandStore`, the one write of a hand (pipelined on PostgreSQL,
  portable elsewhere, both from one column list);
- ``corrections``: void the last hand, override a result, forfeit (T7);
- ``idempotency``: fingerprints, stored answers and their replay;
- ``permissions``: the hot path's lock-and-authorise statement;
- ``notify``: the after-commit broadcast and domain events;
- ``common``: results, permission checks, the match lock, the snapshot, the ruleset freeze.

This package re-exports the names other apps use; import them from ``scoring.services``.
"""

from scoring.services.common import (
    ClientInfo,
    ForfeitResult,
    HandRecordResult,
    match_version_bump,
)
from scoring.services.corrections import (
    HandVoidResult,
    OverrideResult,
    forfeit_plays_on,
    hand_void_last,
    match_forfeit,
    match_result_override,
    override_placings,
    override_ruleset,
)
from scoring.services.hand_store import SEAT_COLUMNS, STAT_FIELDS, HandStore
from scoring.services.hands import _start_with_first_hand, hand_record
from scoring.services.idempotency import MAX_IDEMPOTENCY_KEY, _fingerprint
from scoring.services.matches import match_assign_referee, match_create, match_start
from scoring.services.notify import match_finished_announce
from scoring.services.permissions import _lock_for_recording_sql

__all__ = [
    "MAX_IDEMPOTENCY_KEY",
    "SEAT_COLUMNS",
    "STAT_FIELDS",
    "ClientInfo",
    "ForfeitResult",
    "HandRecordResult",
    "HandStore",
    "HandVoidResult",
    "OverrideResult",
    "_fingerprint",
    "_lock_for_recording_sql",
    "_start_with_first_hand",
    "forfeit_plays_on",
    "hand_record",
    "hand_void_last",
    "match_assign_referee",
    "match_create",
    "match_finished_announce",
    "match_forfeit",
    "match_result_override",
    "match_start",
    "match_version_bump",
    "override_placings",
    "override_ruleset",
]
