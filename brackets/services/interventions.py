"""Director interventions in a round in play: the clock (T2), calling time (T3) and replacing
a no-show before their match starts (T7). Same locking as :mod:`brackets.services.rounds`:
the stage row, then the round row, then (in id order) the matches to change, all before the
tournament version is bumped."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from brackets.engine import (
    TimeCalledLine,
    sudden_death_placings,
    time_called_placings,
    time_called_winner,
)
from brackets.models import TIME_LIMIT_MAX, Round, RoundMatch, StageEntry
from brackets.selectors import round_sudden_death_ids
from brackets.services._common import (
    Actor,
    action_log_record_by_id,
    require_director_or_system,
    round_lock,
    stage_lock,
    tournament_notify,
)
from brackets.services.store import continuation_links
from core.choice_labels import choice_label, choice_phrase
from core.exceptions import ApplicationError, PermissionDeniedError
from scoring.models import Hand, Match, Seat
from scoring.selectors import matches_team_stats
from scoring.services import hand_void_last, match_result_override, match_version_bump
from scoring.services.confirmation_gates import HOLD_DISPUTED, HOLD_HAND, HOLD_RESULT
from tournament.models import Entry
from tournament.services import entry_update


@transaction.atomic
def round_clock_start(
    *, round: Round, actor: Actor, minutes: int | None = None, restart: bool = True
) -> Round:
    """Start (or restart) the round clock (T2); ``minutes`` (1 to ``TIME_LIMIT_MAX``)
    overrides the stage's limit. ``restart=False`` (the director's page, whose form starts a
    clock that is not running): a clock already running is left alone and the answer is a
    409 saying when it ends, so a form sent again (back, resubmit) never resets the time."""
    require_director_or_system(actor, round.stage.tournament_id)
    stage_lock(round.stage_id)
    rnd = round_lock(round.pk)
    if rnd.status != Round.Status.PUBLISHED:
        raise ApplicationError(_("The round is closed."), code="round_closed")
    if minutes is not None and (isinstance(minutes, bool) or not 1 <= minutes <= TIME_LIMIT_MAX):
        message = _("Minutes: from 1 to %(max)s (T2).") % {"max": TIME_LIMIT_MAX}
        raise ApplicationError(message, code="bad_time_limit", fields={"minutes": [message]})
    if not restart and rnd.clock_started_at is not None:

        def at(moment: datetime) -> str:
            return date_format(timezone.localtime(moment), "H:i")

        if rnd.time_called_at is not None:
            message = _("Time was called at %(time)s (T3): the clock stays stopped.") % {
                "time": at(rnd.time_called_at)
            }
        else:
            ends_at = rnd.clock_ends_at
            message = _(
                "The clock was already started at %(start)s and ends at %(end)s: nothing changed."
            ) % {"start": at(rnd.clock_started_at), "end": at(ends_at) if ends_at else "?"}
        raise ApplicationError(message, code="clock_running", status=409)
    if minutes is not None:
        rnd.time_limit = minutes
    if not rnd.time_limit:
        raise ApplicationError(
            _("This round has no time limit; give minutes."),
            code="no_time_limit",
            fields={"minutes": [_("Required.")]},
        )
    rnd.clock_started_at = timezone.now()
    rnd.save(update_fields=["time_limit", "clock_started_at", "updated_at"])
    tournament_notify(round.stage.tournament_id)
    return rnd


@transaction.atomic
def round_call_time(
    *,
    round: Round,
    actor: Actor,
    reason: str = "",
    sudden_death: Sequence[int] = (),
) -> list[int]:
    """Call time (T3): end every unfinished match of the round and mark it "time".

    The hands recorded so far stand (the director calls time once the hands in progress are
    recorded: T3 finishes the hand in progress). Placing is by score, then who reached that
    score first, then hands won (engine ``time_called_placings``; at a partnership table the
    partnership's score and hands won, R42/T10, so partners place together); players still
    level share the placing and a shared first is no match win, so a match ended before any hand was
    completed has no winner (T3; seed order never decides). The director may instead name the
    match in ``sudden_death``, which keeps playing (``Match.sudden_death``) until a hand is
    won: recording that hand ends it (``scoring.services.hand_record``: its winner first, the
    others in T3 order, marked "time"), and the round advances as usual. Calling time again
    before then ends it by the T3 order (or, for a table kept before the recording service
    ended such tables itself, by the first hand won since the earlier call).

    Under confirmation at the table (issue 15): a last hand still waiting for the players'
    taps is voided and does not count; a result waiting for them (the match was won by the
    rules) is left to finish when they confirm; a disputed result is refused (409
    ``result_disputed``) until the director resolves it. Returns the ended match ids.
    """
    if actor is None:
        raise PermissionDeniedError(
            _("Calling time is a director's decision."), code="not_director"
        )
    require_director_or_system(actor, round.stage.tournament_id)
    stage = stage_lock(round.stage_id)
    rnd = round_lock(round.pk)
    if rnd.status != Round.Status.PUBLISHED:
        raise ApplicationError(_("The round is closed."), code="round_closed")
    continuation_links(rnd.pk)
    keep = set(sudden_death)
    table_of = dict(
        RoundMatch.objects.filter(
            round_id=rnd.pk,
            match__status__in=[Match.Status.SCHEDULED, Match.Status.IN_PROGRESS],
        ).values_list("match_id", "table_number")
    )
    # Lock every open match before changing any (id order), so a referee's recording
    # transaction cannot interleave and deadlock with this one; what each waits for is read
    # under the lock.
    open_rows = [
        (match_id, table_of[match_id], hold)
        for match_id, hold in Match.objects.select_for_update(no_key=True)
        .filter(pk__in=table_of)
        .order_by("pk")
        .values_list("pk", "confirmation_hold")
    ]
    # Issue 15 (confirmation at the table): a disputed result is the director's to decide
    # first; a result held for the players' confirmation was reached by the rules before time
    # (R33) and finishes when they confirm; an unconfirmed hand does not count (README, Rule
    # decisions: calling time).
    disputed = sorted(t for m, t, h in open_rows if h == HOLD_DISPUTED and m not in keep)
    if disputed:
        tables = ", ".join(str(t) for t in disputed)
        message = _(
            "A player disputed the last result at table %(tables)s: resolve the dispute "
            "before calling time, or keep the table for a sudden-death hand (T3)."
        ) % {"tables": tables}
        raise ApplicationError(
            message,
            code="result_disputed",
            rule="confirmation",
            status=409,
            fields={"sudden_death": [message]},
        )
    open_ids = [m for m, _t, h in open_rows if m not in keep and h != HOLD_RESULT]
    unconfirmed = [m for m, _t, h in open_rows if m in open_ids and h == HOLD_HAND]
    for match_id in unconfirmed:
        _void_unconfirmed_hand(match_id=match_id, actor=actor)
    # T3: the tables kept play on until a hand is won; the recording service ends them. The
    # match version moves with the flag: a referee's phone already open re-reads its panel
    # only for a newer version, and must now say the next hand won ends the match. The
    # engine snapshot moves with it (the flag changes no score, as a confirmation's bump):
    # a snapshot of an older version is no snapshot, and the phone then had nothing to draw
    # the sudden-death hand from offline (scoring.views._offline_preview), so a hand won
    # there did not end the match on the phone.
    kept = [m for m, _t, _h in open_rows if m in keep]
    now = timezone.now()
    for match in Match.objects.filter(pk__in=kept).order_by("pk"):  # locked above
        match.sudden_death = True
        match.updated_at = now
        match.save(update_fields=["sudden_death", *match_version_bump(match)])
    history: dict[int, list[list[int]]] = {}
    for match_id, scores_after in (
        Hand.objects.filter(match_id__in=open_ids, void=False)
        .order_by("match_id", "number")
        .values_list("match_id", "scores_after")
    ):
        history.setdefault(match_id, []).append(list(scores_after))
    seats: dict[int, list[tuple[int, int, int]]] = {}
    for match_id, seat, entry_id, hands_won in (
        Seat.objects.filter(match_id__in=open_ids)
        .order_by("match_id", "seat")
        .values_list("match_id", "seat", "entry_id", "hands_won")
    ):
        seats.setdefault(match_id, []).append((seat, entry_id, hands_won))
    # R42/T10: at a partnership table "hands won" is the partnership's (each hand once, R46),
    # the same for both partners: one partner's count must not place the partnership.
    teams = matches_team_stats(matches=Match.objects.filter(pk__in=open_ids))
    # T3: a match kept for a sudden-death hand when time was last called is decided by that
    # hand: the winner of the first hand recorded since then that has one.
    decided_by: dict[int, int] = {}
    kept_before = (
        round_sudden_death_ids(round_id=rnd.pk) & set(open_ids) if rnd.time_called_at else set()
    )
    for match_id, winner in (
        ()
        if not kept_before
        else Hand.objects.filter(
            match_id__in=kept_before,
            void=False,
            winner__isnull=False,
            recorded_at__gt=rnd.time_called_at,
        )
        .order_by("match_id", "number")
        .values_list("match_id", "winner")
    ):
        if winner is not None:  # filtered out above; narrows the type
            decided_by.setdefault(match_id, winner)
    decisions: dict[str, object] = {}
    text = f"Time called (T3). {reason}".strip()
    for match_id in open_ids:
        rows = seats.get(match_id, [])
        hands = history.get(match_id, [])
        team = teams.get(match_id)
        lines = [
            TimeCalledLine.from_scores(
                entry_id,
                [h[seat] for h in hands],
                team[seat % 2].hands_won if team is not None else hands_won,
            )
            for seat, entry_id, hands_won in rows
        ]
        sudden = decided_by.get(match_id)
        if sudden is None:
            placed = time_called_placings(lines)
        else:
            # At a partnership table the hand is won for the partnership (R42).
            winners = {
                entry_id
                for seat, entry_id, _ in rows
                if seat == sudden or (team is not None and seat % 2 == sudden % 2)
            }
            placed = sudden_death_placings(lines, winners)
        # T3: players still level share the placing; a shared first is no match win (the
        # override stores no winner). Seed and seat order never decide.
        placing_of = {p.player_id: p.placing for p in placed}
        scores = hands[-1] if hands else [0] * len(rows)
        placings = [placing_of[entry_id] for _, entry_id, _ in rows]
        match_result_override(
            match_id=match_id,
            actor=actor,
            scores=scores,
            reason=text,
            placings=placings,
            verb="match.time_called",
        )
        decisions[str(match_id)] = {
            "placings": placings,
            "shared": sorted({p.player_id for p in placed if p.tied_with}),
            "winner": time_called_winner(placed),
        }
    # Placed here: no longer playing for a sudden-death hand (its last hand cannot be undone).
    Match.objects.filter(pk__in=open_ids).update(
        end_reason=Match.EndReason.TIME, sudden_death=False
    )
    rnd.time_called_at = timezone.now()
    rnd.save(update_fields=["time_called_at", "updated_at"])
    action_log_record_by_id(
        tournament_id=stage.tournament_id,
        actor=actor,
        verb="round.call_time",
        target=rnd,
        reason=reason,
        data={
            "ended": decisions,
            "sudden_death": sorted(keep),
            "unconfirmed_voided": unconfirmed,
        },
    )
    tournament_notify(stage.tournament_id)
    return open_ids


def _void_unconfirmed_hand(*, match_id: int, actor: Actor) -> None:
    """Under ``every_hand`` confirmation (issue 15) the last hand of a match still waits for
    the players' taps when time is called: it is not final, so it does not count towards the
    T3 placing. It is voided (kept, with the reason, in the action log) like an undo."""
    number = Match.objects.values_list("hands_count", flat=True).get(pk=match_id)
    hand_void_last(
        match_id=match_id,
        actor=actor,
        reason=f"Time called (T3): hand {number} was not confirmed by every player.",
        expected_number=number,
    )


@transaction.atomic
def round_seat_replace(
    *,
    round: Round,
    actor: Actor,
    out_entry_id: int,
    in_entry_id: int,
    reason: str,
) -> Seat:
    """Replace a no-show before their match starts: ``in_entry`` takes the seat (T7, T1).

    The replacement must be an active entry of the tournament not seated in this round (a
    player with a bye here gives up the bye); one not yet in the stage joins it from this
    round. The no-show is withdrawn from the stage (not from the tournament). Logged.
    """
    if not reason or not reason.strip():
        raise ApplicationError(
            _("Give a reason."), code="reason_required", fields={"reason": [_("Required.")]}
        )
    require_director_or_system(actor, round.stage.tournament_id)
    stage = stage_lock(round.stage_id)
    rnd = round_lock(round.pk)
    if rnd.status != Round.Status.PUBLISHED:
        raise ApplicationError(_("The round is closed."), code="round_closed")
    seats = Seat.objects.select_related("match").filter(
        match__round_link__round_id=rnd.pk, entry_id=out_entry_id
    )
    # After a forfeit (T7) a player has two seats in the round: the ended match and its
    # continuation, which is the one still to start.
    seat = seats.filter(match__status=Match.Status.SCHEDULED).first() or seats.first()
    if seat is None:
        raise ApplicationError(
            _("That player is not seated in this round."),
            code="not_seated",
            fields={"out_entry_id": [_("Not seated in this round.")]},
        )
    match = Match.objects.select_for_update(no_key=True).get(pk=seat.match_id)
    if match.status != Match.Status.SCHEDULED:
        raise ApplicationError(
            _("The match has started: record a forfeit instead (T7)."),
            code="match_started",
            fields={"out_entry_id": [_("Their match has started.")]},
        )
    incoming = Entry.objects.filter(pk=in_entry_id, tournament_id=stage.tournament_id).first()
    if incoming is None or incoming.status != Entry.Status.ACTIVE:
        raise ApplicationError(
            _("The replacement must be an active entry of this tournament."),
            code="bad_replacement",
            fields={"in_entry_id": [_("Not an active entry of this tournament.")]},
        )
    if Seat.objects.filter(match__round_link__round_id=rnd.pk, entry_id=in_entry_id).exists():
        raise ApplicationError(
            _("The replacement already plays in this round."),
            code="already_seated",
            fields={"in_entry_id": [_("Already seated in this round.")]},
        )
    mine = StageEntry.objects.filter(stage=stage, entry_id=in_entry_id).first()
    if mine is None:
        top = (
            StageEntry.objects.filter(stage=stage).order_by("-seed").values_list("seed", flat=True)
        )
        StageEntry.objects.create(
            stage=stage, entry_id=in_entry_id, seed=(top.first() or 0) + 1, joined_round=rnd.number
        )
    elif mine.status != StageEntry.Status.ACTIVE:
        raise ApplicationError(
            _("The replacement is %(status)s in this stage.")
            % {"status": choice_phrase(StageEntry.Status, mine.status)},
            code="bad_replacement",
            fields={
                "in_entry_id": [
                    _("%(status)s in this stage.")
                    % {"status": choice_label(StageEntry.Status, mine.status)}
                ]
            },
        )
    if in_entry_id in rnd.byes:
        rnd.byes = [p for p in rnd.byes if p != in_entry_id]
        rnd.save(update_fields=["byes", "updated_at"])
    # The replacement is at the table: checked in (logged), as a late entry joining the
    # stage is (``stage_add_entry``); the round page listed them as "Not checked in".
    if not incoming.checked_in:
        entry_update(entry=incoming, actor=actor, data={"checked_in": True})
    seat.entry_id = in_entry_id
    seat.save(update_fields=["entry", "updated_at"])
    StageEntry.objects.filter(stage=stage, entry_id=out_entry_id).update(
        status=StageEntry.Status.WITHDRAWN, out_round=rnd.number, updated_at=timezone.now()
    )
    Match.objects.filter(pk=match.pk).update(version=match.version + 1)
    action_log_record_by_id(
        tournament_id=stage.tournament_id,
        actor=actor,
        verb="round.replace_player",
        target=rnd,
        reason=reason,
        data={"match_id": match.pk, "seat": seat.seat, "out": out_entry_id, "in": in_entry_id},
    )
    tournament_notify(stage.tournament_id)
    return seat
