"""Round services: preview, publish, close, advance, clock, call time, replace a no-show.

Locking (STYLE.md §3): every write locks the stage row, then the round row, so publishing,
closing and advancing one stage are serialised. Idempotency of the automatic path (PITFALLS.md:
a task may run twice, or be lost): :func:`round_advance` checks the done-marker
``Round.advanced_at`` under those locks, and a duplicate publish trips the unique
``(stage, number)`` constraint, which is read as "already done".
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from brackets.engine import BracketError
from brackets.models import Round, RoundMatch, Stage, StageEntry
from brackets.selectors import DONE_STATUSES, StageData, stage_data, stage_data_for
from brackets.services._common import (
    Actor,
    action_log_record_by_id,
    bracket_error,
    logger,
    pause_for_tests,
    require_director_or_system,
    round_lock,
    stage_lock,
    tournament_notify,
)
from brackets.services.planning import (
    FINISH_STAGE,
    FINISHED,
    PUBLISH_ROUND,
    WAIT,
    NextStep,
    next_step_plan,
)
from brackets.services.store import (
    RoundAlreadyPublishedError,
    continuation_links,
    places_set,
    round_mark_advanced,
    round_mark_closed,
    round_store,
    stage_finish,
    withdrawals_sync,
)
from core.events import emit_on_commit, round_published
from core.exceptions import ApplicationError, ConflictError


@dataclass(frozen=True, slots=True)
class AdvanceResult:
    """What :func:`round_advance` did.

    ``outcome``: ``in_play`` (matches still running), ``awaiting_director`` (closed; the stage
    does not auto-advance, and it was not the event's final: see ``_ends_the_event``),
    ``published`` (the next round or play-off), ``stage_finished``, ``already_done`` (the
    done-marker was set: a duplicate run), ``error`` (a bracket error was recorded on the
    round for the director), ``missing`` (no such round).
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
        return next_step_plan(data)
    except BracketError as exc:
        raise bracket_error(exc) from exc


def _close_if_complete(rnd: Round) -> bool:
    """Close a published round whose matches are all done (caller holds the locks)."""
    if rnd.status != Round.Status.PUBLISHED:
        return False
    continuation_links(rnd.pk)
    if _unfinished_tables(rnd.pk):
        return False
    return round_mark_closed(rnd)


def _publish(stage: Stage, data: StageData, step: NextStep, *, actor: Actor) -> Round:
    """Store a PUBLISH_ROUND step: knockout losers' places, the round, the done-marker."""
    withdrawals_sync(data)
    places_set(
        stage.pk, step.eliminated, status=StageEntry.Status.ELIMINATED, out_round=step.out_round
    )
    rnd = round_store(stage, step, actor=actor)
    round_mark_advanced(step.follows_round_id)
    action_log_record_by_id(
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
    emit_on_commit(
        round_published, round_id=rnd.pk, stage_id=stage.pk, tournament_id=stage.tournament_id
    )
    return rnd


def _refuse(step: NextStep, stage: Stage) -> ApplicationError:
    codes = {
        WAIT: "round_in_play",
        FINISH_STAGE: "stage_complete",
        FINISHED: "stage_finished",
    }
    message = step.message
    if step.action == FINISH_STAGE and stage.kind == Stage.Kind.KNOCKOUT:
        # A knockout stage is the last one (T6): nothing is seeded after its final.
        message += " " + _("End the final: the tournament finishes.")
    elif step.action == FINISH_STAGE:
        message += " " + _("Advance the stage to seed the next one.")
    return ApplicationError(message, code=codes.get(step.action, "nothing_to_publish"))


def round_preview(*, stage: Stage, actor: Actor) -> NextStep:
    """What publishing would store now, computed and stored nowhere (a director's review).

    A published round whose matches are all done is treated as closed, so the director can
    look at the next round before the task has closed this one.
    """
    require_director_or_system(actor, stage.tournament_id)
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
    require_director_or_system(actor, stage.tournament_id)
    stage = stage_lock(stage.pk)
    last = stage.rounds.order_by("-number").first()
    if last is not None:
        last = round_lock(last.pk)
        _close_if_complete(last)
    step = _plan(stage_data_for(stage))
    if step.action != PUBLISH_ROUND:
        raise _refuse(step, stage)
    if expected_number is not None and expected_number != step.round_number:
        raise ConflictError(
            _("The next round is round %(number)s, not %(expected)s: preview again.")
            % {"number": step.round_number, "expected": expected_number},
            code="stale_preview",
        )
    rnd = _publish(stage, stage_data_for(stage), step, actor=actor)
    tournament_notify(stage.tournament_id)
    return rnd


@transaction.atomic
def round_close(*, round: Round, actor: Actor) -> Round:
    """Close a round whose matches are all finished or void (idempotent).

    409 ``round_incomplete`` naming the tables still playing: call time first (T3).
    """
    require_director_or_system(actor, round.stage.tournament_id)
    stage = stage_lock(round.stage_id)
    rnd = round_lock(round.pk)
    if rnd.status == Round.Status.CLOSED:
        return rnd
    continuation_links(rnd.pk)
    open_tables = _unfinished_tables(rnd.pk)
    if open_tables:
        raise ConflictError(
            _("Tables %(tables)s are still playing; call time first (T3).")
            % {"tables": ", ".join(map(str, open_tables))},
            code="round_incomplete",
            extra={"tables": open_tables},
        )
    round_mark_closed(rnd)
    action_log_record_by_id(
        tournament_id=stage.tournament_id, actor=actor, verb="round.close", target=rnd
    )
    tournament_notify(stage.tournament_id)
    return rnd


def round_advance(*, round_id: int, actor: Actor = None) -> AdvanceResult:
    """Close a finished round and do what follows it; safe to run any number of times.

    The task path (``actor=None``): called when a match of the round finishes and by the
    reconciliation. Under the stage and round locks: if the done-marker ``advanced_at`` is set,
    nothing happens (``already_done``); if matches are still playing, nothing happens
    (``in_play``); otherwise the round closes, and if the stage auto-advances, the next round
    (or play-off table, T6) is published, or the stage finishes and the next stage is seeded
    from its advancement (and its first round published if that stage auto-advances). The
    final of the last stage ends the stage and the tournament whether or not the stage
    auto-advances (T6: nothing follows it).
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
    stage = stage_lock(stage_id)
    require_director_or_system(actor, stage.tournament_id)
    rnd = round_lock(round_id)
    if rnd.advanced_at is not None:
        return AdvanceResult(round_id, "already_done")
    closed_now = _close_if_complete(rnd)
    if rnd.status != Round.Status.CLOSED:
        return AdvanceResult(round_id, "in_play")
    if actor is None and not stage.auto_advance and not _ends_the_event(stage, rnd):
        if closed_now:
            tournament_notify(stage.tournament_id)
        return AdvanceResult(round_id, "awaiting_director", message="round closed for review")
    try:
        with transaction.atomic():  # a bracket error keeps the close, drops the rest
            result = _advance_closed(stage, rnd, actor)
            pause_for_tests()
    except RoundAlreadyPublishedError:
        # The unique (stage, number) says the follow-up exists: a duplicate run.
        round_mark_advanced(rnd.pk)
        return AdvanceResult(round_id, "already_done", message="next round already published")
    except (BracketError, ApplicationError) as exc:
        if actor is not None:
            if isinstance(exc, BracketError):
                raise bracket_error(exc) from exc
            raise
        Round.objects.filter(pk=rnd.pk).update(advance_error=exc.message[:2000])
        logger.warning("round %s could not advance: %s", rnd.pk, exc.message)
        tournament_notify(stage.tournament_id)
        return AdvanceResult(round_id, "error", message=exc.message)
    tournament_notify(stage.tournament_id)
    return result


def _ends_the_event(stage: Stage, rnd: Round) -> bool:
    """True when closing ``rnd`` leaves nothing to play in the last stage, a knockout: its
    final table (or the play-off that split a shared first, T6) has played. The end of the
    final ends the stage and the tournament (T6, T10; the lifecycle page says so) even in a
    stage the director advances: there is nothing to review or seed after it. Anything else
    to play (the next knockout round, a play-off table) still waits for the director.
    Locks held by the caller."""
    if stage.kind != Stage.Kind.KNOCKOUT or rnd.kind not in (Round.Kind.FINAL, Round.Kind.PLAYOFF):
        return False
    if Stage.objects.filter(tournament_id=stage.tournament_id, number__gt=stage.number).exists():
        return False
    step = next_step_plan(stage_data_for(stage))
    return step.action == FINISH_STAGE and step.follows_round_id == rnd.pk


def _advance_closed(stage: Stage, rnd: Round, actor: Actor) -> AdvanceResult:
    """What follows a closed round (locks held by the caller)."""
    data = stage_data_for(stage)
    step = next_step_plan(data)
    if step.follows_round_id != rnd.pk:
        # Not the stage's last round (a later one exists): nothing follows it any more.
        round_mark_advanced(rnd.pk)
        return AdvanceResult(rnd.pk, "already_done", message="not the last round")
    if step.action == PUBLISH_ROUND:
        new = _publish(stage, data, step, actor=actor)
        return AdvanceResult(rnd.pk, "published", published_round_id=new.pk, message=step.message)
    if step.action != FINISH_STAGE:
        raise _refuse(step, stage)
    next_stage = stage_finish(stage, data, step)
    logged: dict[str, Any] = {"advanced": list(step.advanced), "eliminated": len(step.eliminated)}
    if next_stage is None and stage.kind == Stage.Kind.KNOCKOUT and not step.advanced:
        # The end of the final (T6: a knockout is the last stage): its placings, [place,
        # entry id] in place order. "Going on: — / Out of the stage: 4" counted the champion
        # as out.
        logged = {
            "final_places": [
                [p.place, p.player_id] for p in sorted(step.eliminated, key=lambda p: p.place)
            ]
        }
    action_log_record_by_id(
        tournament_id=stage.tournament_id,
        actor=actor,
        verb="stage.finish",
        target=stage,
        data=logged,
    )
    if next_stage is None or not next_stage.auto_advance:
        return AdvanceResult(
            rnd.pk,
            "stage_finished",
            next_stage_id=next_stage.pk if next_stage else None,
            message=step.message,
        )
    next_data = stage_data_for(next_stage)
    first = next_step_plan(next_data)
    if first.action != PUBLISH_ROUND:
        raise _refuse(first, next_stage)
    new = _publish(next_stage, next_data, first, actor=actor)
    return AdvanceResult(
        rnd.pk,
        "published",
        published_round_id=new.pk,
        next_stage_id=next_stage.pk,
        message=f"{step.message} {first.message}",
    )


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
    stage_lock(stage_id)
    rnd = round_lock(round_id)
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
