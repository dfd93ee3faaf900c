"""Round services: preview, publish, close, advance, clock, call time, replace a no-show.

Locking (STYLE.md §3): every write locks the stage row, then the round row, so publishing,
closing and advancing one stage are serialised. Idempotency of the automatic path (PITFALLS.md:
a task may run twice, or be lost): :func:`round_advance` checks the done-marker
``Round.advanced_at`` under those locks, and a duplicate publish trips the unique
``(stage, number)`` constraint, which is read as "already done".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from django.db import transaction
from django.utils import timezone

from brackets.engine import BracketError, TimeCalledLine, time_called_placings
from brackets.models import Round, RoundMatch, Stage, StageEntry
from brackets.selectors import DONE_STATUSES, StageData, stage_data, stage_data_for
from brackets.services._common import (
    Actor,
    bracket_error,
    check_director,
    lock_round,
    lock_stage,
    log_action,
    logger,
    notify_tournament,
    pause_for_tests,
)
from brackets.services.planning import (
    FINISH_STAGE,
    FINISHED,
    PUBLISH_ROUND,
    WAIT,
    NextStep,
    plan_next,
)
from brackets.services.store import (
    RoundAlreadyPublishedError,
    close_round,
    continuation_links,
    finish_stage,
    mark_advanced,
    set_places,
    store_round,
    sync_withdrawals,
)
from core.exceptions import ApplicationError, ConflictError, PermissionDeniedError
from scoring.models import Hand, Match, Seat
from scoring.services import match_result_override
from tournament.models import Entry


@dataclass(frozen=True, slots=True)
class AdvanceResult:
    """What :func:`round_advance` did.

    ``outcome``: ``in_play`` (matches still running), ``awaiting_director`` (closed; the stage
    does not auto-advance), ``published`` (the next round or play-off), ``stage_finished``,
    ``already_done`` (the done-marker was set: a duplicate run), ``error`` (a bracket error was
    recorded on the round for the director), ``missing`` (no such round).
    """

    round_id: int
    outcome: str
    published_round_id: int | None = None
    next_stage_id: int | None = None
    message: str = ""


def _unfinished_tables(round_id: int) -> list[int]:
    return list(
        RoundMatch.objects.filter(round_id=round_id)
        .exclude(match__status__in=DONE_STATUSES)
        .order_by("table_number")
        .values_list("table_number", flat=True)
    )


def _plan(data: StageData) -> NextStep:
    try:
        return plan_next(data)
    except BracketError as exc:
        raise bracket_error(exc) from exc


def _close_if_complete(rnd: Round) -> bool:
    """Close a published round whose matches are all done (caller holds the locks)."""
    if rnd.status != Round.Status.PUBLISHED:
        return False
    continuation_links(rnd.pk)
    if _unfinished_tables(rnd.pk):
        return False
    return close_round(rnd)


def _publish(stage: Stage, data: StageData, step: NextStep, *, actor: Actor) -> Round:
    """Store a PUBLISH_ROUND step: knockout losers' places, the round, the done-marker."""
    sync_withdrawals(data)
    set_places(
        stage.pk, step.eliminated, status=StageEntry.Status.ELIMINATED, out_round=step.out_round
    )
    rnd = store_round(stage, step, actor=actor)
    mark_advanced(step.follows_round_id)
    log_action(
        tournament_id=stage.tournament_id,
        actor=actor,
        verb="round.publish",
        target=rnd,
        data={
            "stage_id": stage.pk,
            "number": rnd.number,
            "kind": rnd.kind,
            "tables": len(step.seating.tables) if step.seating else 0,
            "byes": list(rnd.byes),
            "eliminated": [p.player_id for p in step.eliminated],
            "rng_seed": rnd.rng_seed,
        },
    )
    return rnd


def _refuse(step: NextStep) -> ApplicationError:
    codes = {
        WAIT: "round_in_play",
        FINISH_STAGE: "stage_complete",
        FINISHED: "stage_finished",
    }
    message = step.message
    if step.action == FINISH_STAGE:
        message += " Advance the stage to seed the next one."
    return ApplicationError(message, code=codes.get(step.action, "nothing_to_publish"))


def round_preview(*, stage: Stage, actor: Actor) -> NextStep:
    """What publishing would store now, computed and stored nowhere (a director's review).

    A published round whose matches are all done is treated as closed, so the director can
    look at the next round before the task has closed this one.
    """
    check_director(actor, stage.tournament_id)
    data = stage_data(stage_id=stage.pk)  # fresh: the caller's instance may be stale
    last = data.last_round
    if last is not None and last.status == Round.Status.PUBLISHED and last.complete:
        data = replace(data, rounds=(*data.rounds[:-1], replace(last, status="closed")))
    return _plan(data)


@transaction.atomic
def round_publish(*, stage: Stage, actor: Actor, expected_number: int | None = None) -> Round:
    """Publish the next round of ``stage``: matches with seats and referees, in bulk.

    Closes the previous round first if all its matches are done. ``expected_number`` (the
    number the director previewed) guards against publishing something else: 409 if the next
    round has another number. Raises 400 ``round_in_play`` / ``stage_complete`` /
    ``stage_finished`` when there is no round to publish, and the engine's error (T1
    ``field_too_small``, T6 ``no_knockout_plan``...) when the field cannot be seated.
    """
    check_director(actor, stage.tournament_id)
    stage = lock_stage(stage.pk)
    last = stage.rounds.order_by("-number").first()
    if last is not None:
        last = lock_round(last.pk)
        _close_if_complete(last)
    step = _plan(stage_data_for(stage))
    if step.action != PUBLISH_ROUND:
        raise _refuse(step)
    if expected_number is not None and expected_number != step.round_number:
        raise ConflictError(
            f"The next round is round {step.round_number}, not {expected_number}: preview again.",
            code="stale_preview",
        )
    rnd = _publish(stage, stage_data_for(stage), step, actor=actor)
    notify_tournament(stage.tournament_id)
    return rnd


@transaction.atomic
def round_close(*, round: Round, actor: Actor) -> Round:
    """Close a round whose matches are all finished or void (idempotent).

    409 ``round_incomplete`` naming the tables still playing: call time first (T3).
    """
    check_director(actor, round.stage.tournament_id)
    stage = lock_stage(round.stage_id)
    rnd = lock_round(round.pk)
    if rnd.status == Round.Status.CLOSED:
        return rnd
    continuation_links(rnd.pk)
    open_tables = _unfinished_tables(rnd.pk)
    if open_tables:
        raise ConflictError(
            f"Tables {', '.join(map(str, open_tables))} are still playing; call time first (T3).",
            code="round_incomplete",
            extra={"tables": open_tables},
        )
    close_round(rnd)
    log_action(tournament_id=stage.tournament_id, actor=actor, verb="round.close", target=rnd)
    notify_tournament(stage.tournament_id)
    return rnd


def round_advance(*, round_id: int, actor: Actor = None) -> AdvanceResult:
    """Close a finished round and do what follows it; safe to run any number of times.

    The task path (``actor=None``): called when a match of the round finishes and by the
    reconciliation. Under the stage and round locks: if the done-marker ``advanced_at`` is set,
    nothing happens (``already_done``); if matches are still playing, nothing happens
    (``in_play``); otherwise the round closes, and if the stage auto-advances, the next round
    (or play-off table, T6) is published, or the stage finishes and the next stage is seeded
    from its advancement (and its first round published if that stage auto-advances).
    A director (``actor``) may advance a stage that does not auto-advance.

    A bracket error in the automatic path is stored on the round (``advance_error``) for the
    director and the close is kept; a director gets the error as a 400.
    """
    stage_id = Round.objects.filter(pk=round_id).values_list("stage_id", flat=True).first()
    if stage_id is None:
        return AdvanceResult(round_id, "missing")
    return _round_advance(round_id, stage_id, actor)


@transaction.atomic
def _round_advance(round_id: int, stage_id: int, actor: Actor) -> AdvanceResult:
    stage = lock_stage(stage_id)
    check_director(actor, stage.tournament_id)
    rnd = lock_round(round_id)
    if rnd.advanced_at is not None:
        return AdvanceResult(round_id, "already_done")
    closed_now = _close_if_complete(rnd)
    if rnd.status != Round.Status.CLOSED:
        return AdvanceResult(round_id, "in_play")
    if actor is None and not stage.auto_advance:
        if closed_now:
            notify_tournament(stage.tournament_id)
        return AdvanceResult(round_id, "awaiting_director", message="round closed for review")
    try:
        with transaction.atomic():  # a bracket error keeps the close, drops the rest
            result = _advance_closed(stage, rnd, actor)
            pause_for_tests()
    except RoundAlreadyPublishedError:
        # The unique (stage, number) says the follow-up exists: a duplicate run.
        mark_advanced(rnd.pk)
        return AdvanceResult(round_id, "already_done", message="next round already published")
    except (BracketError, ApplicationError) as exc:
        if actor is not None:
            if isinstance(exc, BracketError):
                raise bracket_error(exc) from exc
            raise
        Round.objects.filter(pk=rnd.pk).update(advance_error=exc.message[:2000])
        logger.warning("round %s could not advance: %s", rnd.pk, exc.message)
        notify_tournament(stage.tournament_id)
        return AdvanceResult(round_id, "error", message=exc.message)
    notify_tournament(stage.tournament_id)
    return result


def _advance_closed(stage: Stage, rnd: Round, actor: Actor) -> AdvanceResult:
    """What follows a closed round (locks held by the caller)."""
    data = stage_data_for(stage)
    step = plan_next(data)
    if step.follows_round_id != rnd.pk:
        # Not the stage's last round (a later one exists): nothing follows it any more.
        mark_advanced(rnd.pk)
        return AdvanceResult(rnd.pk, "already_done", message="not the last round")
    if step.action == PUBLISH_ROUND:
        new = _publish(stage, data, step, actor=actor)
        return AdvanceResult(rnd.pk, "published", published_round_id=new.pk, message=step.message)
    if step.action != FINISH_STAGE:
        raise _refuse(step)
    next_stage = finish_stage(stage, data, step)
    log_action(
        tournament_id=stage.tournament_id,
        actor=actor,
        verb="stage.finish",
        target=stage,
        data={"advanced": list(step.advanced), "eliminated": len(step.eliminated)},
    )
    if next_stage is None or not next_stage.auto_advance:
        return AdvanceResult(
            rnd.pk,
            "stage_finished",
            next_stage_id=next_stage.pk if next_stage else None,
            message=step.message,
        )
    next_data = stage_data_for(next_stage)
    first = plan_next(next_data)
    if first.action != PUBLISH_ROUND:
        raise _refuse(first)
    new = _publish(next_stage, next_data, first, actor=actor)
    return AdvanceResult(
        rnd.pk,
        "published",
        published_round_id=new.pk,
        next_stage_id=next_stage.pk,
        message=f"{step.message} {first.message}",
    )


@transaction.atomic
def round_clock_start(*, round: Round, actor: Actor, minutes: int | None = None) -> Round:
    """Start (or restart) the round clock (T2); ``minutes`` overrides the stage's limit."""
    check_director(actor, round.stage.tournament_id)
    lock_stage(round.stage_id)
    rnd = lock_round(round.pk)
    if rnd.status != Round.Status.PUBLISHED:
        raise ApplicationError("The round is closed.", code="round_closed")
    if minutes is not None:
        if minutes < 1:
            raise ApplicationError(
                "A time limit is at least a minute.",
                code="bad_time_limit",
                fields={"minutes": [">= 1"]},
            )
        rnd.time_limit = minutes
    if not rnd.time_limit:
        raise ApplicationError(
            "This round has no time limit; give minutes.",
            code="no_time_limit",
            fields={"minutes": ["Required."]},
        )
    rnd.clock_started_at = timezone.now()
    rnd.save(update_fields=["time_limit", "clock_started_at", "updated_at"])
    notify_tournament(round.stage.tournament_id)
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
    score first, then hands won (engine ``time_called_placings``); players still level are
    ordered by stage seed (decision: the director may instead name the match in
    ``sudden_death``, which keeps playing a sudden-death hand). Returns the ended match ids.
    """
    if actor is None:
        raise PermissionDeniedError("Calling time is a director's decision.", code="not_director")
    check_director(actor, round.stage.tournament_id)
    stage = lock_stage(round.stage_id)
    rnd = lock_round(round.pk)
    if rnd.status != Round.Status.PUBLISHED:
        raise ApplicationError("The round is closed.", code="round_closed")
    continuation_links(rnd.pk)
    keep = set(sudden_death)
    open_ids = [
        m
        for m in RoundMatch.objects.filter(
            round_id=rnd.pk,
            match__status__in=[Match.Status.SCHEDULED, Match.Status.IN_PROGRESS],
        )
        .order_by("match_id")
        .values_list("match_id", flat=True)
        if m not in keep
    ]
    # Lock every match to end before changing any (id order), so a referee's recording
    # transaction cannot interleave and deadlock with this one.
    list(
        Match.objects.select_for_update(no_key=True)
        .filter(pk__in=open_ids)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
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
    seed_of = dict(StageEntry.objects.filter(stage_id=stage.pk).values_list("entry_id", "seed"))
    decisions: dict[str, object] = {}
    text = f"Time called (T3). {reason}".strip()
    for match_id in open_ids:
        rows = seats.get(match_id, [])
        hands = history.get(match_id, [])
        lines = [
            TimeCalledLine.from_scores(entry_id, [h[seat] for h in hands], hands_won)
            for seat, entry_id, hands_won in rows
        ]
        placed = time_called_placings(lines)
        ordered = sorted(placed, key=lambda p: (p.placing, seed_of.get(p.player_id, 10**9)))
        placing_of = {p.player_id: i + 1 for i, p in enumerate(ordered)}
        scores = hands[-1] if hands else [0] * len(rows)
        placings = [placing_of[entry_id] for _, entry_id, _ in rows]
        match_result_override(
            match_id=match_id, actor=actor, scores=scores, reason=text, placings=placings
        )
        decisions[str(match_id)] = {
            "placings": placings,
            "by_seed": sorted({p.player_id for p in placed if p.tied_with}),
        }
    Match.objects.filter(pk__in=open_ids).update(end_reason=Match.EndReason.TIME)
    rnd.time_called_at = timezone.now()
    rnd.save(update_fields=["time_called_at", "updated_at"])
    log_action(
        tournament_id=stage.tournament_id,
        actor=actor,
        verb="round.call_time",
        target=rnd,
        reason=reason,
        data={"ended": decisions, "sudden_death": sorted(keep)},
    )
    notify_tournament(stage.tournament_id)
    return open_ids


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
            "Give a reason.", code="reason_required", fields={"reason": ["Required."]}
        )
    check_director(actor, round.stage.tournament_id)
    stage = lock_stage(round.stage_id)
    rnd = lock_round(round.pk)
    if rnd.status != Round.Status.PUBLISHED:
        raise ApplicationError("The round is closed.", code="round_closed")
    seat = (
        Seat.objects.select_related("match")
        .filter(match__round_link__round_id=rnd.pk, entry_id=out_entry_id)
        .first()
    )
    if seat is None:
        raise ApplicationError(
            "That player is not seated in this round.",
            code="not_seated",
            fields={"out_entry_id": ["Not seated in this round."]},
        )
    match = Match.objects.select_for_update(no_key=True).get(pk=seat.match_id)
    if match.status != Match.Status.SCHEDULED:
        raise ApplicationError(
            "The match has started: record a forfeit instead (T7).",
            code="match_started",
            fields={"out_entry_id": ["Their match has started."]},
        )
    incoming = Entry.objects.filter(pk=in_entry_id, tournament_id=stage.tournament_id).first()
    if incoming is None or incoming.status != Entry.Status.ACTIVE:
        raise ApplicationError(
            "The replacement must be an active entry of this tournament.",
            code="bad_replacement",
            fields={"in_entry_id": ["Not an active entry of this tournament."]},
        )
    if Seat.objects.filter(match__round_link__round_id=rnd.pk, entry_id=in_entry_id).exists():
        raise ApplicationError(
            "The replacement already plays in this round.",
            code="already_seated",
            fields={"in_entry_id": ["Already seated in this round."]},
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
            f"The replacement is {mine.status} in this stage.",
            code="bad_replacement",
            fields={"in_entry_id": [f"{mine.status} in this stage."]},
        )
    if in_entry_id in rnd.byes:
        rnd.byes = [p for p in rnd.byes if p != in_entry_id]
        rnd.save(update_fields=["byes", "updated_at"])
    seat.entry_id = in_entry_id
    seat.save(update_fields=["entry", "updated_at"])
    StageEntry.objects.filter(stage=stage, entry_id=out_entry_id).update(
        status=StageEntry.Status.WITHDRAWN, out_round=rnd.number, updated_at=timezone.now()
    )
    Match.objects.filter(pk=match.pk).update(version=match.version + 1)
    log_action(
        tournament_id=stage.tournament_id,
        actor=actor,
        verb="round.replace_player",
        target=rnd,
        reason=reason,
        data={"match_id": match.pk, "seat": seat.seat, "out": out_entry_id, "in": in_entry_id},
    )
    notify_tournament(stage.tournament_id)
    return seat


@transaction.atomic
def round_reopen_for_match(*, match_id: int) -> bool:
    """A finished match is in progress again (a director voided its last hand): reopen its
    round if it was closed but not yet advanced. After an advance nothing is undone here:
    the next round stands and the director decides (logged as a warning)."""
    link = (
        RoundMatch.objects.filter(match_id=match_id)
        .values_list("round_id", "round__stage_id")
        .first()
    )
    if link is None:
        return False
    round_id, stage_id = link
    lock_stage(stage_id)
    rnd = lock_round(round_id)
    if rnd.status != Round.Status.CLOSED:
        return False
    if rnd.advanced_at is not None:
        logger.warning("match %s reopened after round %s was advanced", match_id, round_id)
        return False
    rnd.status = Round.Status.PUBLISHED
    rnd.closed_at = None
    rnd.save(update_fields=["status", "closed_at", "updated_at"])
    return True


def rounds_reconcile() -> list[AdvanceResult]:
    """Advance every round whose follow-up is due but not done (lost or killed tasks).

    Each round in its own transaction; a failure on one round does not stop the others.
    """
    from brackets.selectors import rounds_awaiting_advance

    results: list[AdvanceResult] = []
    for round_id in rounds_awaiting_advance():
        try:
            results.append(round_advance(round_id=round_id))
        except Exception:  # logged; the next run tries again
            logger.exception("reconciliation of round %s failed", round_id)
    return results
