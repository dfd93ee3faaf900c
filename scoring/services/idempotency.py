"""Idempotent hand submissions: the request fingerprint, the stored answer and its replay,
and the unique constraints that settle a race."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError

from core.exceptions import ApplicationError
from core.sql import Columns, prepared_cursor
from core.sql import column as sql_column
from core.sql import table as sql_table
from scoring.models import Hand
from scoring.services.common import Actor, HandRecordResult

MAX_IDEMPOTENCY_KEY = 128


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


KEYED_COLUMNS: Columns[Hand] = Columns(
    Hand, ["id", "tournament_version", "idempotency_fingerprint", "idempotent_response"], alias="k"
)
"""The stored answer's columns of the hand ``k`` an actor recorded with a key (:func:`_keyed`),
read with :func:`stored_answer_from`."""


def _keyed() -> str:
    """``k`` is the hand recorded by the actor with the key (params: actor id, key): at most one
    row (the unique (recorded_by, idempotency_key) constraint), none for no key."""
    recorded_by, key = sql_column(Hand, "recorded_by"), sql_column(Hand, "idempotency_key")
    # The last term implies the partial index's predicate, so a prepared (generic) plan uses it.
    return f"k.{recorded_by} = %s AND k.{key} = %s AND k.{key} <> ''"


def keyed_hand_join() -> str:
    """``LEFT JOIN`` the actor's keyed hand as ``k`` (params: actor id, key)."""
    return f"LEFT JOIN {sql_table(Hand)} k ON {_keyed()}"


def stored_answer_from(row: Sequence[Any]) -> _StoredAnswer | None:
    """The answer in a row of :data:`KEYED_COLUMNS` (all NULL when the key has no hand)."""
    hand_id, tournament_version, fingerprint, response = KEYED_COLUMNS.values(row)
    if hand_id is None or not isinstance(response, dict):  # none, or keyed before answers
        return None  # were kept on the hand
    return _StoredAnswer(
        fingerprint=fingerprint, body=_answer(response, hand_id, tournament_version)
    )


@dataclass(frozen=True, slots=True)
class _StoredAnswer:
    fingerprint: str
    body: dict[str, Any]


def _stored_answer(actor: Actor, key: str) -> _StoredAnswer | None:
    """The answer sent for the hand ``actor`` recorded with ``key``, if any (one indexed
    lookup: the unique (recorded_by, idempotency_key) constraint; precompiled, as retries are
    frequent). The key's hand is found even if it was voided since."""
    sql = f"SELECT {KEYED_COLUMNS.sql} FROM {sql_table(Hand)} k WHERE {_keyed()}"  # noqa: S608
    with prepared_cursor() as cursor:
        cursor.execute(sql, [actor.pk, key])
        row = cursor.fetchone()
    if row is None:
        return None
    return stored_answer_from(row)


def _replay(stored: _StoredAnswer, fingerprint: str) -> HandRecordResult:
    if stored.fingerprint != fingerprint:
        raise ApplicationError(
            "This Idempotency-Key was already used for a different request.",
            code="idempotency_key_reused",
            status=422,
            fields={"Idempotency-Key": ["Already used with another body; use a new key."]},
        )
    return HandRecordResult(status=201, body=stored.body, replayed=True)


def _answer(stored: Mapping[str, Any], hand_id: int, tournament_version: int) -> dict[str, Any]:
    """The 201 body of a recorded hand from the one stored with it (``Hand`` keeps it
    without the hand's id and the tournament version, which are the row's own columns)."""
    return {
        **stored,
        "hand": {**stored["hand"], "id": hand_id},
        "tournament_version": tournament_version,
    }
