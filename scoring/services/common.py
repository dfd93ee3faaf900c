"""Shared pieces of the scoring services: results, permission checks, the match lock, the
engine snapshot and the ruleset freeze."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.exceptions import ApplicationError, NotFoundError, PermissionDeniedError
from scoring.engine import InvalidRuleset, Ruleset, RuleViolation
from scoring.engine.match import MatchState
from scoring.engine.placing import match_placings
from scoring.engine.snapshot import state_to_json
from scoring.models import Hand, Match
from scoring.presenters.bodies import next_hand_json
from scoring.selectors import match_missing
from scoring.services.confirmation_gates import confirmation_freeze
from tournament.context import (
    PERMISSIONS,
    Action,
    Role,
    actor_roles,
    require_actor,
    require_actor_visible,
    require_status,
)
from tournament.models import Tournament

Actor = Any  # an authenticated user instance


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


def _require_match_visible(actor: Actor, match: Match) -> None:
    """404 "No match <id>." for a match of a draft ``actor`` may not see, exactly as for a
    missing id: a match is addressed by its (sequential) id alone, so a 403, a 409 or a 404
    naming the tournament would confirm that the hidden draft exists. Every service addressed
    by a match id checks this before anything else about the caller."""
    require_actor_visible(actor, match.tournament, missing=match_missing(match.pk))


def _require_match_director(actor: Actor, match: Match, action: Action) -> None:
    """A director ``action`` on a match addressed by its id: :func:`_require_match_visible`,
    then :func:`_require_director`."""
    _require_authenticated(actor)
    _require_match_visible(actor, match)
    _require_director(actor, match.tournament, action)


def _require_referee_or_director(actor: Actor, match: Match, action: Action) -> bool:
    """The match's assigned referee or a director, by the one table, while the tournament is
    running (its lifecycle gate); True for a director. A hidden draft's match is missing
    (:func:`_require_match_visible`)."""
    _require_authenticated(actor)
    _require_match_visible(actor, match)
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
        raise NotFoundError(match_missing(match_id), code="not_found") from None


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


def match_version_bump(match: Match) -> list[str]:
    """Bump ``match``'s version for a write that changes no score (a confirmation, a new
    referee, a table kept for a sudden-death hand) and keep the engine snapshot current with
    it: a snapshot of another version is no snapshot, so the next hand would fold every stored
    hand and, worse, the referee's phone gets no offline preview (scoring.views) until a hand
    is recorded online. A snapshot already stale stays stale. Returns the fields to save;
    the caller holds the match's lock."""
    stored = match.engine_state
    match.version += 1
    if isinstance(stored, dict) and stored.get("match_version") == match.version - 1:
        match.engine_state = {**stored, "match_version": match.version}
        return ["version", "engine_state", "updated_at"]
    return ["version", "updated_at"]


def _final_placings(
    state: MatchState, history: Sequence[Sequence[int]], winner: int | None = None
) -> list[int]:
    """Every seat's placing at the end of a match (T3/T4): the engine's
    :func:`~scoring.engine.placing.match_placings`, which the referee page's confirmation
    block shows before the result is final (issue 15)."""
    return match_placings(state, history, winner)


_SNAPSHOT_FIELDS = [
    "scores",
    "hands_count",
    "next_hand",
    "winner_seat",
    "engine_state",
    "version",
    "updated_at",
]


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
    confirmation_freeze(match, tournament)  # issue 15: frozen like the rules
    return ruleset
