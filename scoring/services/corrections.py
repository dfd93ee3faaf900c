"""Corrections and director decisions: void the last hand, override a result, forfeit (T7)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core.choice_labels import choice_label, choice_phrase
from core.exceptions import ApplicationError, ConflictError, PermissionDeniedError
from core.result_readers import results_built_on
from scoring.engine import InvalidRuleset, ResetRule, Ruleset, Scoring, Teams
from scoring.engine.placing import (
    partnership_placings,
    placings_by_score,
    shared_placings_valid,
    sole_first,
)
from scoring.models import Hand, Match, Seat
from scoring.presenters.bodies import hand_recorded_body, match_state_body
from scoring.selectors import (
    hand_decided_on_dispute,
    match_fold_records,
    match_hand_records,
    match_ruleset,
)
from scoring.services.common import (
    _SNAPSHOT_FIELDS,
    Actor,
    ForfeitResult,
    _freeze_ruleset,
    _lock_match,
    _require_match_director,
    _require_reason,
    _require_referee_or_director,
    _snapshot,
)
from scoring.services.confirmation_gates import RULE as CONFIRMATION_RULE
from scoring.services.confirmation_gates import confirmation_gate_undo, confirmation_reset
from scoring.services.hand_store import seats_write
from scoring.services.notify import _notify_after_commit
from tournament.context import (
    Action,
)
from tournament.services import (
    action_log_record,
    tournament_version_bump,
)


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
    confirmation_gate_undo(match)  # issue 15: a dispute freezes it
    if match.status in (Match.Status.SCHEDULED, Match.Status.VOID):
        raise ApplicationError(
            _("The match is %(status)s; there is nothing to undo.")
            % {"status": choice_label(Match.Status, match.status).lower()},
            code="match_not_in_progress",
        )
    if match.status == Match.Status.FINISHED:
        # A sudden-death table (T3) ended with its deciding hand, which may be undone like
        # any last hand; a table placed when time was called was ended by override.
        ended_by_hand = match.end_reason == Match.EndReason.NORMAL or (
            match.end_reason == Match.EndReason.TIME and match.sudden_death
        )
        if not ended_by_hand:
            raise ApplicationError(
                _("The match ended by %(reason)s; hands cannot be undone.")
                % {"reason": choice_phrase(Match.EndReason, match.end_reason)},
                code="match_closed",
            )
        if not is_director:
            raise PermissionDeniedError(
                _("The match is over: only a director may undo its last hand."),
                code="not_director",
            )
    last = Hand.objects.filter(match=match, void=False).order_by("-number").first()
    if last is None:
        raise ApplicationError(
            _("No hand to undo."), code="no_hand", fields={"number": [_("None.")]}
        )
    if (
        not is_director
        and match.confirmation
        and hand_decided_on_dispute(match_id=match.pk, hand=last)
    ):
        raise PermissionDeniedError(
            _(
                "Hand %(number)s stands by a director's decision on a player's dispute: only "
                "a director may undo it."
            )
            % {"number": last.number},
            code="decided_on_dispute",
            rule=CONFIRMATION_RULE,
        )
    if expected_number is not None and expected_number != last.number:
        raise ConflictError(
            _("The last hand is %(number)s, not %(expected)s.")
            % {"number": last.number, "expected": expected_number},
            code="stale_hand_number",
            fields={"number": [_("The last hand is %(number)s.") % {"number": last.number}]},
            extra={"match": match_state_body(match)},
        )
    last.void = True
    last.voided_by_id = actor.pk
    last.voided_at = timezone.now()
    last.void_reason = reason
    last.save(update_fields=["void", "voided_by", "voided_at", "void_reason"])

    reopened = match.status == Match.Status.FINISHED
    records = match_hand_records(match_id=match.pk)
    state, _scores, _history = match_fold_records(match, records)
    _snapshot(match, state)
    fields = [*_SNAPSHOT_FIELDS, *confirmation_reset(match)]
    if reopened:
        match.status = Match.Status.IN_PROGRESS
        match.finished_at = None
        match.end_reason = ""
        fields += ["status", "finished_at", "end_reason"]
    match.save(update_fields=fields)
    seats_write(match_id=match.pk, n=match.n_players, state=state, placings=None)
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
    _require_match_director(actor, match, Action.DECIDE_MATCH)
    return match


def _seat_rows(match: Match) -> list[Seat]:
    return list(Seat.objects.filter(match=match).order_by("seat"))


def override_placings(
    scores: Sequence[int],
    placings: Sequence[int] | None,
    *,
    n: int,
    partners: bool,
    target: int | None = None,
    ruleset: Ruleset | None = None,
) -> list[int]:
    """The placings a director's result override stores, or a 400 naming the field and the
    rule: ``scores`` one integer >= 0 per seat (at a partnership table one per partnership,
    R42); ``placings`` the places, required when the top scores tie, else from the scores
    (T3/T4). ``ruleset`` the match's (:func:`override_ruleset`): its target (R33, unless
    ``target`` is given) and, under ``six_love``, its reset rule (R31, R32, R34) say which
    scores a match can end with. Pure: the override page checks a submission with it before
    asking to confirm."""
    if len(scores) != n or any(
        isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in scores
    ):
        raise ApplicationError(
            _("scores must hold %(n)s integers >= 0, one per seat.") % {"n": n},
            code="bad_scores",
            fields={"scores": [_("%(n)s integers >= 0.") % {"n": n}]},
        )
    # R42/T4: at a partnership table the result is the partnership's, so both partners hold
    # its placing and "the top scores" are the two partnerships' scores.
    if partners and (scores[0] != scores[2] or scores[1] != scores[3]):
        message = _(
            "Partners share one score (R42): give A and C the same score, and B and D the "
            "same score."
        )
        raise ApplicationError(message, code="bad_scores", rule="R42", fields={"scores": [message]})
    # R33: the match ends as soon as one player (partnership, R42) reaches the target, and
    # only the hand's winner scores, so no two can be there (6-6-6-6 is no result).
    sides = [scores[0], scores[1]] if partners else list(scores)
    if target is None and ruleset is not None:
        target = ruleset.target_for(n)
    if target is not None and sum(1 for s in sides if s >= target) > 1:
        message = (
            _(
                "Only one partnership can reach %(target)s: the match ends as soon as the "
                "first does (R33)."
            )
            if partners
            else _(
                "Only one player can reach %(target)s: the match ends as soon as the first "
                "does (R33)."
            )
        ) % {"target": target}
        raise ApplicationError(message, code="bad_scores", rule="R33", fields={"scores": [message]})
    if ruleset is not None and ruleset.scoring is Scoring.SIX_LOVE:
        _check_reachable(sides, partners=partners, target=target, reset_rule=ruleset.reset_rule)
    if placings is None:
        top = [max(scores[0], scores[2]), max(scores[1], scores[3])] if partners else scores
        if sorted(top)[-1] == sorted(top)[-2]:
            raise ApplicationError(
                _("The top scores tie: give placings."),
                code="placings_required",
                fields={"placings": [_("Required when the top scores tie.")]},
            )
        # Seat by seat; at a partnership table read as the partnerships' below.
        placings = placings_by_score(list(scores), [], [0] * n, None)
    elif (
        len(placings) != n
        or any(isinstance(p, bool) or not isinstance(p, int) for p in placings)
        # A partnership's placing is its better partner's (read below), so 1, 2, 1, 2 is
        # as good as the competition ranks 1, 3, 1, 3.
        or not (all(1 <= p <= n for p in placings) if partners else shared_placings_valid(placings))
    ):
        raise ApplicationError(
            _(
                "placings must be the places 1..%(n)s, one per seat; players level share a "
                "place and skip the places it covers (1, 1, 3, 4)."
            )
            % {"n": n},
            code="bad_placings",
            rule="T3",
            fields={"placings": [_("Competition ranks 1..%(n)s (1, 2, 2, 4).") % {"n": n}]},
        )
    return list(placings)


def _check_reachable(
    sides: Sequence[int], *, partners: bool, target: int | None, reset_rule: ResetRule
) -> None:
    """Refuse six-love scores no match can end with, whether at the target or when time is
    called (T3): under ``all_scored`` at least one player (partnership) is on 0 between hands
    and a match ends only with one on 0 (R31c/d, R34; with partners the score returns to 0 as
    soon as both partnerships have scored, R44); under ``any_challenger`` a win by anyone
    while another has points resets, so at most one has points (R32)."""
    line = "-".join(str(s) for s in sides)
    if reset_rule is ResetRule.ANY_CHALLENGER:
        if sum(1 for s in sides if s > 0) <= 1:
            return
        rule = "R32"
        message = (
            _(
                "Under this ruleset only one partnership ever has points: when a partnership "
                "wins a hand while the other has points, the score returns to 0 (R32), so a "
                "match cannot end %(scores)s."
            )
            if partners
            else _(
                "Under this ruleset only one player ever has points: when a player wins a "
                "hand while another has points, the score returns to 0 (R32), so a match "
                "cannot end %(scores)s."
            )
        ) % {"scores": line}
    else:
        if min(sides) == 0:
            return
        # R31c names how a match at the target ends; R34 holds between any two hands, so a
        # score when time was called (T3) is refused too.
        rule = "R31c" if target is not None and max(sides) >= target else "R34"
        message = (
            _(
                "Under this ruleset one partnership is always on 0: the score returns to 0 as "
                "soon as both have scored (R31c, R34, R44), so a match cannot end %(scores)s."
            )
            if partners
            else _(
                "Under this ruleset at least one player is always on 0 (R31c, R34): a match "
                "cannot end %(scores)s."
            )
        ) % {"scores": line}
    raise ApplicationError(message, code="bad_scores", rule=rule, fields={"scores": [message]})


def override_ruleset(match: Match) -> Ruleset | None:
    """The ruleset a result override is checked against (R31-R34): the match's frozen one,
    or, before it started, the tournament's; None when the tournament's ruleset does not hold
    (the override then reports that itself)."""
    t = match.tournament
    try:
        if match.ruleset:
            return Ruleset.from_json(match.ruleset)
        if t.ruleset:
            return Ruleset.from_json(t.ruleset)
        return Ruleset.from_preset(t.ruleset_preset, t.ruleset_overrides)
    except InvalidRuleset:
        return None


@dataclass(frozen=True, slots=True)
class OverrideResult:
    """What :func:`match_result_override` did: ``changed`` False when the match already had
    exactly this result by override (a repeated submission: nothing written, nothing
    logged); ``built_on`` what the bracket had already built on the replaced result (the
    director acknowledged it), empty otherwise."""

    match: Match
    changed: bool = True
    built_on: tuple[str, ...] = ()


def _result_line(match: Match, placings: Sequence[int | None]) -> str:
    """ "finished (director override): scores 6-2-0-0, places 1, 2, 3, 4" for a refusal."""
    scores = "-".join(str(s) for s in match.scores or [])
    places = ", ".join("—" if p is None else str(p) for p in placings)
    status = choice_label(Match.Status, match.status).lower()
    if match.end_reason:
        status = _("%(status)s (%(reason)s)") % {
            "status": status,
            "reason": choice_phrase(Match.EndReason, match.end_reason),
        }
    return _("%(status)s: scores %(scores)s, places %(places)s") % {
        "status": status,
        "scores": scores or "—",
        "places": places,
    }


@transaction.atomic
def match_result_override(
    *,
    match_id: int,
    actor: Actor,
    scores: Sequence[int],
    reason: str,
    placings: Sequence[int] | None = None,
    expected_version: int | None = None,
    acknowledge_advanced: bool = False,
    verb: str = "match.override",
) -> OverrideResult:
    """Set a match's result by director decision (recorded in the action log with before and
    after). Placings default to the order of ``scores`` (players level share a place, T3) and
    must be given when the top scores tie; a shared first place stores no winner (T3). At a
    partnership table both partners hold their partnership's placing, its better partner's
    (R42, T4).
    Hands stay as recorded; the statistics columns keep the engine's values (R35).

    Under the match lock, in this order: the very result the match already holds by override
    is a no-op (``changed`` False: a repeated or concurrent submission records once);
    ``expected_version``, the match version the director's form was drawn from, refuses a
    form drawn before the match changed (409 ``stale_match``); a result the bracket already
    advanced on (the next round paired on it, exactly once, never re-paired) is refused with
    409 ``round_advanced`` unless ``acknowledge_advanced`` says the director knows it stands
    (README: after an advance the director corrects by override; nothing is redone).
    ``verb``: the action-log verb, ``match.time_called`` when calling time places the match
    (T3), so the log does not read as a director's override."""
    reason = _require_reason(reason)
    match = _director_match(match_id, actor)
    if match.status == Match.Status.VOID:
        raise ApplicationError(_("The match is void."), code="match_void")
    if match.started_at is None:
        _freeze_ruleset(match)  # rolled back with everything else if the override is refused
        match.started_at = timezone.now()
    partners = match.n_players == 4 and match.ruleset.get("teams") == "partners"
    placings = override_placings(
        scores, placings, n=match.n_players, partners=partners, ruleset=override_ruleset(match)
    )
    if partners:
        placings = partnership_placings(placings)
    seats = _seat_rows(match)
    current = [s.placing for s in seats]
    if (
        match.status == Match.Status.FINISHED
        and match.end_reason == Match.EndReason.OVERRIDE
        and list(match.scores) == list(scores)
        and current == list(placings)
    ):
        return OverrideResult(match=match, changed=False)
    if expected_version is not None and expected_version != match.version:
        message = _(
            "The match changed after this form was drawn; it is now %(result)s. Check the "
            "result and submit again."
        ) % {"result": _result_line(match, current)}
        raise ConflictError(
            message,
            code="stale_match",
            fields={"version": [_("The match is at version %(v)s.") % {"v": match.version}]},
            extra={"version": match.version},
        )
    built_on = tuple(results_built_on(match.pk)) if match.status == Match.Status.FINISHED else ()
    if built_on and not acknowledge_advanced:
        message = " ".join(
            [
                *built_on,
                _(
                    "The override changes this match's result and the standings only. To "
                    "override anyway, acknowledge that what followed stands."
                ),
            ]
        )
        raise ConflictError(
            message,
            code="round_advanced",
            fields={"acknowledge_advanced": [_("Required: what followed stands.")]},
        )
    before = {
        "status": match.status,
        "end_reason": match.end_reason,
        "scores": list(match.scores),
        "placings": current,
    }
    # None when first is shared: no match win (T3); a partnership's first seat (R42).
    winner = sole_first(placings[:2] if partners else placings)
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
    data: dict[str, Any] = {
        "before": before,
        "after": {"scores": list(scores), "placings": list(placings), "winner_seat": winner},
    }
    if built_on:
        data["after_advance"] = True
    action_log_record(
        tournament=match.tournament,
        actor=actor,
        verb=verb,
        target=match,
        reason=reason,
        data=data,
    )
    version = tournament_version_bump(tournament_id=match.tournament_id)
    _notify_after_commit(match, version, finished=True)
    return OverrideResult(match=match, changed=True, built_on=built_on)


def forfeit_plays_on(ruleset: Ruleset, n_players: int) -> bool:
    """T7 "the table plays on without them where the rules allow": whether the others at a
    table of ``n_players`` start a continuation match after a forfeit. Never at a partnership
    table (R42: the partnership loses 0-6 and nobody plays on one short) nor at two players
    (the opponent wins); at 3 or 4 players when ``ruleset`` allows one player fewer (R2).
    :func:`match_forfeit` decides by it, and so does every page that says beforehand what a
    forfeit will do (a withdrawal's confirmation step)."""
    if ruleset.teams is Teams.PARTNERS or n_players <= 2:
        return False
    try:
        ruleset.validate_for_players(n_players - 1)
    except InvalidRuleset:
        return False
    return True


def _plays_after_time(match: Match) -> bool:
    """Whether a continuation of ``match`` (T7) is kept for a sudden-death hand (T3): when
    ``match`` was, or the time of its round was already called (the only tables still
    playing then are those kept for a sudden-death hand, or a result waiting for the players'
    confirmation: none plays a full match again). The round is read through the brackets
    app's ``round_link`` relation (no import); a continuation not linked to its round yet is
    followed up to the match it continues."""
    if match.sudden_death:
        return True
    ids: list[int] = []
    current: int | None = match.pk
    while current is not None and current not in ids and len(ids) < 8:
        ids.append(current)
        current = Match.objects.filter(pk=current).values_list("continues_id", flat=True).first()
    return Match.objects.filter(
        pk__in=ids, round_link__round__time_called_at__isnull=False
    ).exists()


@transaction.atomic
def match_forfeit(*, match_id: int, actor: Actor, seat: int, reason: str) -> ForfeitResult:
    """T7: record a no-show or disqualification at this table as a 0-6 loss.

    The forfeiting seat gets placing last, 0 points and a six-love received; the match ends
    (``end_reason = forfeit``). At a two-player table the opponent wins 6-0. At a partnership
    table (R42) the forfeiting player's partnership loses 0-6 and the other wins it: both
    partners of each hold its placing (3rd and 1st), the winners the target. The winners get
    the match win and the target but no six-love given: nobody won a six-love at the table
    (README rule decision 6, R31c), so the standings (``standings_line``) and the Leaders page,
    which reads the seat, count none. At another larger
    table the others play on without the forfeiting player in a new scheduled match (same
    table, referee and play order) when the frozen ruleset allows that many players (R2);
    otherwise the director reseats them. Recorded in the action log.
    """
    reason = _require_reason(reason)
    match = _director_match(match_id, actor)
    if match.status not in (Match.Status.SCHEDULED, Match.Status.IN_PROGRESS):
        raise ApplicationError(
            _("The match is %(status)s; only a scheduled or running match can be forfeited.")
            % {"status": choice_label(Match.Status, match.status).lower()},
            code="match_not_open",
        )
    n = match.n_players
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ApplicationError(
            _("seat must be 0..%(last)s.") % {"last": n - 1},
            code="unknown_seat",
            fields={"seat": [_("Not a seat.")]},
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
    if ruleset.teams is Teams.PARTNERS:
        # R42: a partnership's match record is one result, held by both partners. The
        # forfeiting player's partnership loses 0-6 (T7) and the other wins it (T10), as a
        # match won to the target: 1st and 1st, 3rd and 3rd. Nobody plays on one short.
        side = seat % 2
        target = ruleset.target_for(n)
        for s in seats:
            if s.seat % 2 == side:
                s.points, s.placing = 0, 3
                if s is not loser:
                    s.six_love_received += 1
            else:
                s.points, s.placing = target, 1  # T7: no six-love given (none at the table)
            scores[s.seat] = s.points
        match.winner_seat = 1 - side  # the winning partnership's first seat (A or B)
    elif n == 2:
        winner = others[0]
        winner.placing = 1
        winner.points = max(winner.points, ruleset.target_for(2))  # T7: no six-love given
        scores[winner.seat] = winner.points
        match.winner_seat = winner.seat
    else:
        match.winner_seat = None
        for s in others:
            s.placing = None
        if forfeit_plays_on(ruleset, n):
            continuation = Match.objects.create(
                continues=match,
                tournament_id=match.tournament_id,
                table_id=match.table_id,
                referee_id=match.referee_id,
                # T3: after time is called a table plays on only for a sudden-death hand; so
                # does the continuation of a table still playing then (README, rule decisions).
                sudden_death=_plays_after_time(match),
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
