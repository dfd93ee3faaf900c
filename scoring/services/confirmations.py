"""Confirmation at the table (issue 15): players confirm what the referee recorded.

A tournament chooses (``Tournament.confirmation``, frozen on each match when it starts):

* ``off`` - the referee's record is final (the behaviour before issue 15);
* ``match_end`` - when the hand that ends the match is recorded, every seated player confirms
  the result on the referee's phone (taps their name; types their PIN if they have one);
* ``every_hand`` - every player confirms each hand before the next one may be recorded.

While a match waits (``Match.confirmation_hold``) it is NOT finished: its status stays
``in_progress``, no placings, no ``match_finished`` event, so no standings and no bracket
advancement count it. A player may dispute instead: the disputed hand keeps the referee's
version, the dispute carries the player's (an outcome record, RULES.md section 9), and the
match is frozen (no hand, no undo, no confirmation) until a director resolves it from the
dispute queue: *uphold* (the record stands) or *correct* (the player's version replaces the
last hand, through the ordinary void and record services), with a reason in the action log.
Resolving counts as confirmation: a match whose result was disputed is final once resolved.

The recording path pays nothing for this: :func:`confirmation_gate_record` and
:func:`confirmation_after_hand` read and write columns of the locked match row only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core.broadcast import broadcast_on_commit
from core.choice_labels import choice_label
from core.exceptions import ApplicationError, ConflictError, NotFoundError, PermissionDeniedError
from scoring.engine import RuleViolation
from scoring.engine.match import match_apply
from scoring.engine.record import HandRecord
from scoring.events import match_update_event
from scoring.models import Hand, HandConfirmation, Match, ResultDispute, Seat
from scoring.selectors import (
    DISPUTE_KEY_PREFIX,
    match_fold_records,
    match_hand_records,
    match_missing,
)
from scoring.services.common import (
    _final_placings,
    _require_match_director,
    _require_match_visible,
    match_version_bump,
)
from scoring.services.confirmation_gates import (
    HOLD_DISPUTED,
    HOLD_HAND,
    HOLD_NONE,
    HOLD_RESULT,
    RULE,
    Actor,
    confirmation_gate_record,
)
from scoring.services.corrections import hand_void_last
from scoring.services.hands import hand_record
from scoring.services.notify import match_finished_announce
from tournament.context import PERMISSIONS, Action, RefereeActor, Role, actor_roles, require_status
from tournament.groups import tournament_group
from tournament.models import Entry
from tournament.pins import pin_check
from tournament.services import action_log_record, tournament_version_bump

# -- services ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConfirmationResult:
    match: Match
    confirmed_seats: tuple[int, ...]
    finished: bool
    replayed: bool


def _lock(match_id: int) -> Match:
    try:
        return (
            Match.objects.select_for_update(no_key=True, of=("self",))
            .select_related("tournament")
            .get(pk=match_id)
        )
    except Match.DoesNotExist:
        raise NotFoundError(match_missing(match_id), code="not_found") from None


def _require_table(actor: Actor, match: Match) -> None:
    """The match's assigned referee (its credential: on its own match only) or a director,
    while the tournament runs - the RECORD_HAND row of the one permission table. A hidden
    draft's match is missing (``_require_match_visible``)."""
    if actor is None or not getattr(actor, "is_authenticated", False):
        raise PermissionDeniedError(_("Sign in first."), code="not_authenticated", status=401)
    _require_match_visible(actor, match)
    roles = actor_roles(actor, match.tournament_id)
    is_director = Role.DIRECTOR in roles and not isinstance(actor, RefereeActor)
    assigned = Role.REFEREE in roles and match.referee_id == actor.pk
    effective = ({Role.DIRECTOR} if is_director else set()) | (
        {Role.REFEREE} if assigned else set()
    )
    if not effective & PERMISSIONS[Action.RECORD_HAND]:
        raise PermissionDeniedError(
            _("Only the referee assigned to this match or a director may do this."),
            code="not_match_referee",
        )
    require_status(match.tournament, Action.RECORD_HAND)


def _int_field(raw: Any, name: str, low: int, high: int) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not low <= raw <= high:
        raise ApplicationError(
            _("%(field)s must be an integer %(low)s..%(high)s.")
            % {"field": name, "low": low, "high": high},
            code="malformed",
            fields={
                name: [_("An integer %(low)s..%(high)s is required.") % {"low": low, "high": high}]
            },
        )
    return raw


def _last_hand(match: Match, number: Any) -> Hand:
    """The live hand ``number``; it must be the last one (409 with the current number)."""
    number = _int_field(number, "number", 1, 10**6)
    if number != match.hands_count:
        raise ConflictError(
            _("Hand %(number)s is not the last hand: the match has %(count)s hands.")
            % {"number": number, "count": match.hands_count},
            code="stale_hand_number",
            fields={"number": [_("The last hand is %(number)s.") % {"number": match.hands_count}]},
        )
    hand = Hand.objects.filter(match=match, number=number, void=False).first()
    if hand is None:
        raise NotFoundError(f"No hand {number}.", code="not_found")
    return hand


def _same_hand(hand: Hand, hand_id: Any = None, hand_key: str | None = None) -> None:
    """409 ``hand_changed`` unless ``hand`` is the hand the player was shown.

    A tap names its hand by number; a phone that queued it offline, or showed the hand
    before a director undid it and recorded another in its place, would otherwise confirm a
    hand the player never saw. The phone names what it showed: the hand's id (from the page)
    or the Idempotency-Key it recorded the hand with (a hand recorded offline has no id yet).
    """
    if hand_id is not None and hand_id != hand.pk:
        changed = True
    elif hand_key:
        changed = hand_key != hand.idempotency_key
    else:
        return
    if changed:
        raise ConflictError(
            _(
                "Hand %(number)s was changed since the players saw it (undone and recorded "
                "again): show them the hand as it stands now and let them tap again."
            )
            % {"number": hand.number},
            code="hand_changed",
            fields={"hand_id": [_("Not the hand recorded now.")]},
        )


def _seat_entry(match: Match, seat: Any) -> Entry:
    seat = _int_field(seat, "seat", 0, match.n_players - 1)
    row = Seat.objects.select_related("entry").filter(match=match, seat=seat).first()
    if row is None:
        raise NotFoundError(f"No seat {seat}.", code="not_found")
    return row.entry


def _announce(match: Match, *, finished: bool) -> None:
    """Bump the versions and, after commit, broadcast (and announce a finished match)."""
    version = tournament_version_bump(tournament_id=match.tournament_id)
    broadcast_on_commit(
        [tournament_group(match.tournament_id)],
        match_update_event(
            match_id=match.pk,
            tournament_id=match.tournament_id,
            version=match.version,
            tournament_version=version,
        ),
    )
    if finished:
        transaction.on_commit(lambda: match_finished_announce(match_id=match.pk), robust=True)


def _finish(match: Match) -> None:
    """The held result is confirmed (or resolved): finish the match as the recording path
    would have (T3/T4 placings from the fold of its hands). The caller holds the lock."""
    state, _scores, history = match_fold_records(match, match_hand_records(match_id=match.pk))
    # T3: at a table kept for a sudden-death hand, the hand held is the one its winner won
    # (match.winner_seat, written with it): the engine does not see that match as over.
    sudden = match.sudden_death and not state.over and match.winner_seat is not None
    if not (state.over or sudden):  # nothing to finish (cannot happen while a result is held)
        match.confirmation_hold = HOLD_NONE
        return
    winner = match.winner_seat if sudden else state.winner
    placings = _final_placings(state, history, winner)
    for seat, placing in enumerate(placings):
        Seat.objects.filter(match=match, seat=seat).update(placing=placing)
    match.status = Match.Status.FINISHED
    match.finished_at = timezone.now()
    match.end_reason = Match.EndReason.TIME if match.sudden_death else Match.EndReason.NORMAL
    match.winner_seat = winner
    match.confirmation_hold = HOLD_NONE


def _release(match: Match) -> bool:
    """Release what the match waited for; True when that finished it."""
    finishing = match.confirmation_hold == HOLD_RESULT
    if finishing:
        _finish(match)
    else:
        match.confirmation_hold = HOLD_NONE
    bumped = match_version_bump(match)
    match.save(
        update_fields=[
            *("confirmation_hold", "status", "finished_at", "end_reason", "winner_seat"),
            *bumped,
        ]
    )
    return finishing


@transaction.atomic
def hand_confirm(
    *,
    match_id: int,
    actor: Actor,
    number: Any,
    seat: Any,
    pin: str | None = None,
    hand_id: int | None = None,
    hand_key: str | None = None,
) -> ConfirmationResult:
    """A seated player confirms the last hand (and, when it ended the match, the result).

    Repeated confirmations record once. When every seat has confirmed, the match is
    released: the next hand may be recorded (``every_hand``), or the match finishes
    (``match_finished`` after commit). 409 when nothing waits or the match is frozen, and
    (``hand_changed``) when ``hand_id`` / ``hand_key`` name another hand than the one
    recorded now under that number (:func:`_same_hand`).
    """
    match = _lock(match_id)
    _require_table(actor, match)
    hand = _last_hand(match, number)
    _same_hand(hand, hand_id, hand_key)
    entry = _seat_entry(match, seat)
    seat_no = int(seat)
    done = set(HandConfirmation.objects.filter(hand=hand).values_list("seat", flat=True))
    if match.confirmation_hold == HOLD_DISPUTED and match.status == Match.Status.IN_PROGRESS:
        confirmation_gate_record(match)
    # A match a director decided meanwhile (override, forfeit) waits for nobody.
    if match.status != Match.Status.IN_PROGRESS or match.confirmation_hold not in (
        HOLD_HAND,
        HOLD_RESULT,
    ):
        if seat_no in done:  # a retry after the hand was released: the same answer
            return ConfirmationResult(match, tuple(sorted(done)), False, True)
        raise ApplicationError(
            _("Nothing awaits confirmation at this match."),
            code="nothing_to_confirm",
            rule=RULE,
            status=409,
        )
    if seat_no in done:
        return ConfirmationResult(match, tuple(sorted(done)), False, True)
    with_pin = pin_check(entry, pin, seat_no)
    try:
        with transaction.atomic():
            HandConfirmation.objects.create(
                hand=hand, seat=seat_no, recorded_by_id=actor.pk, with_pin=with_pin
            )
    except IntegrityError:  # the same tap arrived twice at once
        done.add(seat_no)
        return ConfirmationResult(match, tuple(sorted(done)), False, True)
    done.add(seat_no)
    finished = False
    if len(done) >= match.n_players:
        finished = _release(match)
    else:
        match.save(update_fields=match_version_bump(match))
    _announce(match, finished=finished)
    return ConfirmationResult(match, tuple(sorted(done)), finished, False)


def _claimed_record(match: Match, number: int, claimed: Any) -> HandRecord:
    """The player's version of hand ``number``, checked by the engine against the state
    before that hand (section 9): 400 naming the field and rule when invalid."""
    if not isinstance(claimed, Mapping):
        raise ApplicationError(
            _("claimed must be the player's version of the hand: an outcome record (§9)."),
            code="malformed",
            rule="§9",
            fields={"claimed": [_("An object is required.")]},
        )
    try:
        record = HandRecord.from_dict(dict(claimed))
        records = match_hand_records(match_id=match.pk)[: number - 1]
        before, _scores, _history = match_fold_records(match, records)
        match_apply(before, record)
    except RuleViolation as exc:
        field = f"claimed.{exc.field}" if exc.field else "claimed"
        raise ApplicationError(
            exc.message, code=exc.code, rule=exc.rule, fields={field: [exc.message]}
        ) from exc
    return record


def _same_dispute(
    existing: ResultDispute, match: Match, seat: Any, number: Any, claimed: Any, note: Any
) -> bool:
    """Whether a dispute sent while ``existing`` is open is a retry of it: the same seat and
    hand, the same version of the hand (section 9), and no other words (the note repeated,
    or none)."""
    try:
        if int(seat) != existing.seat or int(number) != existing.hand.number:
            return False
        record = _claimed_record(match, existing.hand.number, claimed)
    except (TypeError, ValueError, ApplicationError):
        return False
    words = str(note or "").strip()[:2000]
    return record.to_dict() == existing.claimed and words in ("", existing.note)


@transaction.atomic
def hand_dispute(
    *,
    match_id: int,
    actor: Actor,
    number: Any,
    seat: Any,
    claimed: Any,
    note: str = "",
    pin: str | None = None,
    hand_id: int | None = None,
    hand_key: str | None = None,
) -> ResultDispute:
    """A seated player disputes a recorded hand with their version of it. The match is
    frozen until a director resolves it. ``every_hand``: the hand awaiting confirmation;
    ``match_end``: any hand of the held result. A repeated submission records once."""
    match = _lock(match_id)
    _require_table(actor, match)
    if match.confirmation_hold == HOLD_DISPUTED and match.status == Match.Status.IN_PROGRESS:
        existing = ResultDispute.objects.filter(
            match=match, status=ResultDispute.Status.OPEN
        ).first()
        if existing is not None and _same_dispute(existing, match, seat, number, claimed, note):
            return existing  # a retry of the same dispute
        # Any other dispute (another seat or hand, or this seat's other version or words)
        # waits until a director resolved the open one: refused, never dropped in silence.
        confirmation_gate_record(match)
    if match.status != Match.Status.IN_PROGRESS or match.confirmation_hold not in (
        HOLD_HAND,
        HOLD_RESULT,
    ):
        raise ApplicationError(
            _("Nothing awaits confirmation at this match: there is nothing to dispute."),
            code="nothing_to_confirm",
            rule=RULE,
            status=409,
        )
    n = _int_field(number, "number", 1, max(1, match.hands_count))
    if match.confirmation_hold == HOLD_HAND and n != match.hands_count:
        _last_hand(match, n)  # 409: only the hand awaiting confirmation
    hand = Hand.objects.filter(match=match, number=n, void=False).first()
    if hand is None:
        raise NotFoundError(f"No hand {n}.", code="not_found")
    _same_hand(hand, hand_id, hand_key)
    entry = _seat_entry(match, seat)
    pin_check(entry, pin, int(seat), dispute=True)
    record = _claimed_record(match, n, claimed)
    note = str(note or "").strip()
    if not note and not versions_differ(_hand_version(hand), record.to_dict()):
        # One tap on a form prefilled with the recorded hand would freeze the match for
        # nothing: a dispute says what differs, in the version or in the note.
        message = _(
            "The player's version is the recorded hand: change what they say happened, or "
            "write in the note what differs."
        )
        raise ApplicationError(
            message, code="dispute_unchanged", rule=RULE, fields={"claimed": [message]}
        )
    dispute = ResultDispute.objects.create(
        match=match,
        hand=hand,
        seat=int(seat),
        claimed=record.to_dict(),
        note=note[:2000],
        recorded_by_id=actor.pk,
    )
    dispute_data = {"hold_before": match.confirmation_hold}
    match.confirmation_hold = HOLD_DISPUTED
    match.save(update_fields=["confirmation_hold", *match_version_bump(match)])
    action_log_record(
        tournament=match.tournament,
        actor=None,
        verb="result.dispute",
        target=dispute,
        reason=dispute.note,  # the player's words: the log's "Why"
        data={"match_id": match.pk, "number": n, "seat": int(seat), **dispute_data},
    )
    _announce(match, finished=False)
    return dispute


def _hold_before(dispute: ResultDispute) -> str:
    """What the match waited for when the dispute froze it (from the action log's entry),
    or, failing that, from the hand: the hand that ended the match held the result."""
    from tournament.models import ActionLog

    row = (
        ActionLog.objects.filter(
            verb="result.dispute",
            target_type=ResultDispute._meta.label_lower,
            target_id=str(dispute.pk),
        )
        .values_list("data", flat=True)
        .first()
    )
    if isinstance(row, dict) and row.get("hold_before") in (HOLD_HAND, HOLD_RESULT):
        return str(row["hold_before"])
    return HOLD_RESULT if dispute.match.winner_seat is not None else HOLD_HAND


RESOLUTIONS = ("uphold", "correct")


@transaction.atomic
def dispute_resolve(
    *,
    match_id: int,
    actor: Actor,
    decision: Any,
    reason: Any,
    tournament_id: int | None = None,
) -> ResultDispute:
    """A director resolves the match's open dispute, with a reason in the action log.

    ``tournament_id``: the tournament the request is addressed to (the dispute queue's URL);
    a match of another tournament is then "No such match in this tournament." (404), before
    any permission or dispute is looked at.

    ``uphold``: the recorded version stands; ``correct``: the player's version replaces the
    disputed hand (it must be the last live hand: voided with the reason, the claimed
    version recorded by the director). Either way the resolution counts as every player's
    confirmation: the match moves on, or finishes and advances.
    """
    match = _lock(match_id)
    if tournament_id is not None and match.tournament_id != tournament_id:
        raise NotFoundError(_("No such match in this tournament."), code="not_found")
    _require_match_director(actor, match, Action.DECIDE_MATCH)
    if decision not in RESOLUTIONS:
        raise ApplicationError(
            _("decision must be 'uphold' or 'correct'."),
            code="malformed",
            fields={"decision": [_("One of: uphold, correct.")]},
        )
    if not isinstance(reason, str) or not reason.strip():
        raise ApplicationError(
            _("Give a reason."), code="reason_required", fields={"reason": [_("Required.")]}
        )
    reason = reason.strip()
    dispute = (
        ResultDispute.objects.select_related("hand", "match")
        .filter(match=match, status=ResultDispute.Status.OPEN)
        .first()
    )
    if dispute is None:
        raise ApplicationError(
            _("This match has no open dispute."), code="no_open_dispute", rule=RULE, status=409
        )
    hold = _hold_before(dispute)
    number = dispute.hand.number
    decided = match.status != Match.Status.IN_PROGRESS  # an override or forfeit since
    if decision == "correct" and decided:
        raise ApplicationError(
            _(
                "The match is %(status)s by a director's decision: uphold to close the "
                "dispute, or reopen the match first."
            )
            % {"status": choice_label(Match.Status, match.status).lower()},
            code="match_decided",
            rule=RULE,
            status=409,
        )
    if decision == "correct" and number != match.hands_count:
        raise ApplicationError(
            _(
                "Only the last hand can be replaced here; hand %(number)s is not the last "
                "(%(last)s). Uphold, or undo hands and record them again."
            )
            % {"number": number, "last": match.hands_count},
            code="not_last_hand",
            rule=RULE,
            fields={"decision": [_("Only the last hand can be corrected.")]},
        )
    dispute.status = (
        ResultDispute.Status.CORRECTED if decision == "correct" else ResultDispute.Status.UPHELD
    )
    dispute.resolved_by_id = actor.pk
    dispute.resolved_at = timezone.now()
    dispute.reason = reason
    dispute.save(update_fields=["status", "resolved_by", "resolved_at", "reason"])
    finished = False
    if decided:
        match.confirmation_hold = HOLD_NONE  # the decision stands; nothing to release
        match.save(update_fields=["confirmation_hold", *match_version_bump(match)])
    elif decision == "uphold":
        match.confirmation_hold = hold
        finished = _release(match)
    else:
        match.confirmation_hold = HOLD_NONE
        match.save(update_fields=["confirmation_hold", "updated_at"])
        hand_void_last(
            match_id=match.pk, actor=actor, reason=f"dispute: {reason}", expected_number=number
        )
        hand_record(
            match_id=match.pk,
            actor=actor,
            expected_number=number,
            payload=dispute.claimed,
            idempotency_key=f"{DISPUTE_KEY_PREFIX}{dispute.pk}",
        )
        match = _lock(match_id)  # as the record left it
        if match.confirmation_hold in (HOLD_HAND, HOLD_RESULT):
            finished = _release(match)  # the director's resolution is the confirmation
    action_log_record(
        tournament=match.tournament,
        actor=actor,
        verb=f"result.dispute.{decision}",
        target=dispute,
        reason=reason,
        data={
            "match_id": match.pk,
            "number": number,
            "seat": dispute.seat,
            "recorded": _hand_version(dispute.hand),
            "claimed": dispute.claimed,
            "finished": finished,
        },
    )
    _announce(match, finished=finished)
    return dispute


#: The fields of a hand a dispute compares, in the queue's columns' order (RULES.md section 9).
COMPARED = ("poser", "pose_tile", "end", "winner", "counts", "llave")


def versions_differ(recorded: Mapping[str, Any], claimed: Mapping[str, Any]) -> tuple[str, ...]:
    """The fields on which a player's version differs from the recorded hand (an absent
    field, null, false and no counts read alike): what a dispute is about, and what the
    director decides on."""

    def value(v: Any) -> Any:
        return None if v is None or v is False or v == [] else v

    return tuple(f for f in COMPARED if value(recorded.get(f)) != value(claimed.get(f)))


def _hand_version(hand: Hand) -> dict[str, Any]:
    """The referee's version of a hand as an outcome record (the dispute's other side)."""
    return {
        "poser": hand.poser,
        "pose_tile": hand.pose_tile,
        "end": hand.end,
        "winner": hand.winner if hand.end == Hand.End.DOMINO else None,
        "counts": hand.counts,
        "llave": hand.llave,
    }
