"""Move-by-move entry at feature tables, and the spectators' replay of such a hand (issue 15).

Glossary:
    feature table -- a table the director marked (``Table.feature``): its referee may enter a
                     hand move by move, and spectators get a replay of every hand entered so.
    position      -- where a hand stands after some moves: open ends, the line of tiles on the
                     board, every seat's remaining tiles, whose turn and what they may do.
    check         -- a dry run of a partial play log against the match's next hand: the engine
                     replays it (RULES.md section 9) and answers the position or the first
                     move that breaks a rule. It writes nothing: the hand itself is recorded
                     through the one recording path (``POST /api/matches/<id>/hands/`` with a
                     ``play_log``, ``scoring.services.hand_record``).

The engine stays the only place the rules live: the page asks :func:`play_log_check` after
every tap and shows what it answers (legal moves, the field and rule of a refusal).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from core.exceptions import ApplicationError, NotFoundError, PermissionDeniedError
from scoring.engine import Ruleset, RuleViolation
from scoring.engine.hand import HandState, hand_outcome, legal_moves
from scoring.engine.match import match_start as engine_match_start
from scoring.engine.moves import PoseRequirement
from scoring.engine.playlog import PlayLog, move_to_dict, replay_states
from scoring.engine.rules import Opening
from scoring.engine.tiles import tiles_from_mask
from scoring.models import Hand, Match
from scoring.presenters.match import ruleset_of
from scoring.selectors import match_missing, match_ruleset, match_state
from tournament.context import (
    Action,
    Principal,
    RefereeActor,
    Role,
    TournamentContext,
    actor_roles,
    require,
    require_actor,
    require_actor_visible,
    require_visible,
)
from tournament.models import Table
from tournament.services import action_log_record, tournament_version_bump

LOG_FIELD = "play_log"


# -- positions ------------------------------------------------------------------------------------


def position_json(state: HandState) -> dict[str, Any]:
    """A position as the entry page and the replay viewer draw it (plain JSON)."""
    over = state.result is not None
    return {
        "turn": None if over else state.turn,
        "poser": state.poser,
        "forced_tile": str(state.forced_tile) if state.forced_tile is not None else None,
        "ends": list(state.ends) if state.ends is not None else None,
        "line": [list(pair) for pair in state.line()],
        "hands": [[str(t) for t in tiles_from_mask(h)] for h in state.hands],
        "counts": list(state.counts()),
        "stock": [str(t) for t in tiles_from_mask(state.stock)] if state.rules.draw else [],
        "legal": [move_to_dict(m) for m in legal_moves(state)],
        "over": over,
        "result": state.result.value if state.result is not None else None,
        "winner": state.winner,
    }


def deal_facts(ruleset: Ruleset, n_players: int) -> dict[str, Any]:
    """What the entry page needs to take a deal (R2): tiles each, the set in use, boneyard."""
    return {
        "hand_size": ruleset.hand_size(n_players),
        "tiles": [str(t) for t in tiles_from_mask(ruleset.set_mask(n_players))],
        "boneyard": ruleset.boneyard_for(n_players).value,
        "n_players": n_players,
    }


# -- move entry: the dry run ---------------------------------------------------------------------


def move_entry_allowed(*, actor: Any, match: Match) -> bool:
    """Whether ``actor`` may enter this match's hands move by move: its director always; its
    assigned referee at a feature table (``Table.feature``)."""
    roles = actor_roles(actor, match.tournament_id)
    if Role.DIRECTOR in roles:
        return True
    table = match.table
    return (
        Role.REFEREE in roles
        and match.referee_id == getattr(actor, "pk", None)
        and table is not None
        and table.feature
    )


def _require_entry(actor: Any, match: Match) -> None:
    """The recording permission of :func:`scoring.services.hand_record`: the assigned
    referee or a director, the tournament running (404 for a draft the caller may not see),
    from one read of the caller's roles. The feature flag only decides whether the page
    offers move-by-move entry: a play log is accepted from any table through the API."""
    if actor is None or not getattr(actor, "is_authenticated", False):
        raise PermissionDeniedError("Sign in first.", code="not_authenticated", status=401)
    principal = (
        Principal(referee=actor) if isinstance(actor, RefereeActor) else Principal(user=actor)
    )
    ctx = TournamentContext(tournament=match.tournament, principal=principal)
    require_visible(ctx, missing=match_missing(match.pk))  # a hidden draft's: as missing
    require(ctx, Action.RECORD_HAND)
    if not ctx.is_director and match.referee_id != actor.pk:
        raise PermissionDeniedError(
            "Only the referee assigned to this match or a director may do this.",
            code="not_match_referee",
        )


def _engine_error(exc: RuleViolation) -> ApplicationError:
    field = f"{LOG_FIELD}.{exc.field}" if exc.field else LOG_FIELD
    return ApplicationError(
        exc.message, code=exc.code, rule=exc.rule, fields={field: [exc.message]}
    )


def _requirement(match: Match, ruleset: Ruleset, log: PlayLog) -> PoseRequirement:
    """Who poses the hand being entered (R5-R11): the match's next hand. A scheduled match
    starts with this hand; under ``lot_then_rotate`` its poser is the lot winner (R6)."""
    if match.status == Match.Status.SCHEDULED:
        lot_winner = match.lot_winner
        if ruleset.opening is Opening.LOT_THEN_ROTATE and log.moves:
            lot_winner = log.moves[0].seat
        state = engine_match_start(ruleset, match.n_players, lot_winner=lot_winner)
    else:
        state = match_state(match=match)
    return PoseRequirement.from_next_hand(state.next)


@dataclass(frozen=True, slots=True)
class LogCheck:
    """The answer of :func:`play_log_check`: the hand number the log would record and the
    position after its last move (with the outcome once the hand is over)."""

    number: int
    position: dict[str, Any]
    outcome: dict[str, Any] | None


def play_log_check(*, match_id: int, actor: Any, play_log: object) -> LogCheck:
    """Replay a (partial) play log of the match's next hand and answer the position (§9).

    Checks the deal (R1-R2) and every move against the position it is played in (R5-R19):
    the poser and forced 6-6 pose, tiles in hand, matching ends, passes and draws. Raises
    :class:`ApplicationError` (400) naming ``play_log.<field>`` and the rule, 403 for a caller
    who may not enter this match's hands, 409 once the tournament stops running. Writes
    nothing; the same log is recorded through ``POST /api/matches/<id>/hands/``.
    """
    match = Match.objects.select_related("tournament", "table").filter(pk=match_id).first()
    if match is None:
        raise NotFoundError(match_missing(match_id), code="not_found")
    _require_entry(actor, match)
    if match.status == Match.Status.VOID:
        raise ApplicationError(
            "The match is void.",
            code="match_void",
            fields={"non_field_errors": ["Match status is void."]},
        )
    if match.status == Match.Status.FINISHED:
        raise ApplicationError(
            "The match is over; no further hands (R33).",
            code="match_over",
            rule="R33",
            fields={"number": ["The match is over (R33)."]},
        )
    ruleset = match_ruleset(match) if match.ruleset else ruleset_of(match)
    try:
        log = PlayLog.from_dict(play_log)
        requirement = _requirement(match, ruleset, log)
        state: HandState | None = None
        for state in replay_states(ruleset, match.n_players, requirement, log):  # noqa: B007
            pass
    except RuleViolation as exc:
        raise _engine_error(exc) from exc
    assert state is not None  # replay_states yields the start at least
    outcome = hand_outcome(state).to_dict() if state.result is not None else None
    return LogCheck(match.hands_count + 1, position_json(state), outcome)


# -- the director's switch -----------------------------------------------------------------------


@transaction.atomic
def table_feature_set(*, match_id: int, actor: Any, feature: bool) -> Table:
    """Mark the table of a match as a feature table, or not (director; action log)."""
    match = Match.objects.select_related("tournament").filter(pk=match_id).first()
    if match is None:
        raise NotFoundError(match_missing(match_id), code="not_found")
    require_actor_visible(actor, match.tournament, missing=match_missing(match_id))
    require_actor(actor, match.tournament, Action.MANAGE)
    if match.table_id is None:
        raise ApplicationError(
            "This match has no table to mark.",
            code="no_table",
            fields={"feature": ["The match has no table."]},
        )
    table = Table.objects.select_for_update().get(pk=match.table_id)
    if table.feature != feature:
        table.feature = feature
        table.save(update_fields=["feature", "updated_at"])
        action_log_record(
            tournament=match.tournament,
            actor=actor,
            verb="table_feature_on" if feature else "table_feature_off",
            target=table,
            data={"table": table.number, "match": match.pk},
        )
        tournament_version_bump(tournament_id=match.tournament_id)
    return table


# -- replays ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Replay:
    """A recorded hand's play log as frames: ``frames[0]`` is the deal, ``frames[i]`` the
    position after move ``i`` (whose ``move`` it carries)."""

    hand: Hand
    frames: list[dict[str, Any]]


def hand_replay(*, match: Match, number: int) -> Replay | None:
    """The live hand ``number`` of ``match`` as replay frames, or ``None`` when it has no play
    log. The log was checked when it was recorded (§9); the pose is replayed as the recorded
    poser's, so a frame never depends on the state of the match around it."""
    hand = (
        Hand.objects.filter(match_id=match.pk, number=number, void=False)
        .exclude(play_log__isnull=True)
        .first()
    )
    if hand is None or not isinstance(hand.play_log, Mapping):
        return None
    try:
        log = PlayLog.from_dict(hand.play_log)
        requirement = PoseRequirement(hand.poser, False, "§9")
        states = list(replay_states(match_ruleset(match), match.n_players, requirement, log))
    except RuleViolation:
        return None
    frames = []
    for i, state in enumerate(states):
        frame = position_json(state)
        frame["move"] = move_to_dict(log.moves[i - 1]) if i else None
        frame.pop("legal")
        frames.append(frame)
    return Replay(hand, frames)


def replay_numbers(*, match: Match) -> list[int]:
    """Numbers of the match's live hands that carry a play log (for the viewer's links)."""
    return list(
        Hand.objects.filter(match_id=match.pk, void=False)
        .exclude(play_log__isnull=True)
        .order_by("number")
        .values_list("number", flat=True)
    )


__all__ = [
    "LogCheck",
    "Replay",
    "deal_facts",
    "hand_replay",
    "move_entry_allowed",
    "play_log_check",
    "position_json",
    "replay_numbers",
    "table_feature_set",
]
