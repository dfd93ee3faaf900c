"""Recording a hand (RULES.md §9): the checks on the locked match, the engine, the store."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from core.choice_labels import choice_phrase
from core.events import emit_on_commit, hand_recorded
from core.exceptions import ApplicationError, ConflictError
from scoring.engine import RuleViolation, Tile
from scoring.engine.match import HandScored, MatchState, match_apply
from scoring.engine.match import match_start as engine_match_start
from scoring.engine.playlog import PlayLog, replay_play_log
from scoring.engine.record import HandRecord
from scoring.engine.rules import Opening
from scoring.engine.snapshot import InvalidSnapshot, state_from_json
from scoring.models import Hand, Match, Seat
from scoring.presenters.bodies import match_state_body
from scoring.selectors import match_fold_records, match_hand_records, match_ruleset
from scoring.services.common import (
    _SNAPSHOT_FIELDS,
    Actor,
    ClientInfo,
    HandRecordResult,
    _engine_error,
    _final_placings,
    _freeze_ruleset,
    _require_authenticated,
    _snapshot,
)
from scoring.services.confirmation_gates import (
    HOLD_RESULT,
    confirmation_after_hand,
    confirmation_gate_record,
)
from scoring.services.hand_store import HandStore
from scoring.services.idempotency import (
    _RACE_CONSTRAINTS,
    MAX_IDEMPOTENCY_KEY,
    _fingerprint,
    _replay,
    _stored_answer,
    _violated_constraint,
)
from scoring.services.notify import _notify_after_commit
from scoring.services.permissions import _lock_match_for_recording
from tournament.models import Tournament

logger = logging.getLogger(__name__)

_OUTCOME_KEYS = ("poser", "pose_tile", "end", "winner", "counts", "llave", "sporting")


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
    After commit: broadcast, emit ``core.events.hand_recorded`` and, when the hand ended the
    match, ``match_finished``.

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


def _decides_sudden_death(match: Match, scored: HandScored) -> bool:
    """Whether this hand decides a table kept for a sudden-death hand (T3): time was called
    and the director ordered the table to play until a hand is won; a tied hand decides
    nothing (the table plays on). Read on the locked row: no query."""
    return match.sudden_death and scored.winner is not None


def _over_message(match: Match, number: int) -> str:
    """Why hand ``number`` cannot be recorded on a match that is over: how it ended (its last
    hand, a forfeit, a director's decision, time) and its scores."""
    words = {
        "number": number,
        "hands": match.hands_count,
        "scores": "-".join(str(s) for s in match.scores or []) or "0",
    }
    if match.status != Match.Status.FINISHED:  # the result waits for the players (issue 15)
        return (
            gettext(
                "Hand %(number)s cannot be recorded: the match is over. Hand %(hands)s ended "
                "it %(scores)s and the result waits for the players' confirmation (R33)."
            )
            % words
        )
    if match.end_reason in (Match.EndReason.NORMAL, ""):
        return (
            gettext(
                "Hand %(number)s cannot be recorded: the match is over. Hand %(hands)s ended "
                "it %(scores)s (R33)."
            )
            % words
        )
    return gettext(
        "Hand %(number)s cannot be recorded: the match is over. It ended by %(reason)s, %(scores)s."
    ) % {**words, "reason": choice_phrase(Match.EndReason, match.end_reason)}


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
    if expected_number != state.hands + 1 and (
        match.status == Match.Status.FINISHED or match.confirmation_hold == HOLD_RESULT
    ):
        # Stale, but no hand comes next at all: say the match is over, and how it ended.
        message = _over_message(match, expected_number)
        raise ConflictError(
            message,
            code="stale_hand_number",
            rule="R33",
            fields={"number": [message]},
            extra={"match": match_state_body(match)},
        )
    if expected_number != state.hands + 1:
        raise ConflictError(
            f"Hand {expected_number} cannot be recorded: the match has {state.hands} hands, "
            f"the next is hand {state.hands + 1}.",
            code="stale_hand_number",
            fields={"number": [f"The next hand is {state.hands + 1}."]},
            extra={"match": match_state_body(match)},
        )
    # A result held for the players' confirmation is over too (issue 15): the engine sees it
    # for a match played out, but not for a sudden-death hand (T3), so the row says it.
    if match.status == Match.Status.FINISHED or match.confirmation_hold == HOLD_RESULT:
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
    if (new_state.over or _decides_sudden_death(match, scored)) and history is None:
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
    match, _, stored = _lock_match_for_recording(match_id, actor, key)
    if stored is not None:
        # A retry (a lost response): its original answer, whatever happened since, without
        # checking the hand again (the lock statement read it).
        return _replay(stored, fingerprint)
    try:
        confirmation_gate_record(match)  # issue 15: held or disputed
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
    # T3: at a table kept for a sudden-death hand the first hand won ends the match.
    sudden = _decides_sudden_death(match, scored) and not new_state.over
    # Issue 15: under confirmation at the table the match waits instead of finishing.
    finished, held = confirmation_after_hand(match, over=new_state.over or sudden)
    _snapshot(match, new_state)
    if sudden:  # over for the table, not for the engine: no next hand, the hand's winner
        match.next_hand = None
        match.winner_seat = scored.winner
    fields = [*_SNAPSHOT_FIELDS, *started, *held]
    placings: list[int] | None = None
    if finished:
        assert history is not None  # _hand_checked folds the stored hands for the last hand
        match.status = Match.Status.FINISHED
        match.finished_at = hand.recorded_at
        # T3: a match ended after time was called is marked "time".
        match.end_reason = Match.EndReason.TIME if match.sudden_death else Match.EndReason.NORMAL
        fields += ["status", "finished_at", "end_reason"]
        placings = _final_placings(
            new_state, [*history, new_state.scores], scored.winner if sudden else None
        )
    body = HandStore(
        hand=hand, match=match, fields=fields, state=new_state, placings=placings
    ).write()
    version = body["tournament_version"]
    _notify_after_commit(match, version, finished=finished)
    emit_on_commit(
        hand_recorded,
        match_id=match.pk,
        tournament_id=match.tournament_id,
        hand_number=hand.number,
        hand_id=hand.pk,
    )
    return HandRecordResult(status=201, body=body, replayed=False, hand=hand, match=match)
