"""Who plays in a stage mid-event: late check-in (T1, T8) and withdrawal or disqualification
with a forfeit at the table in play (T7)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from brackets.models import Round, RoundMatch, Stage, StageEntry
from brackets.services._common import (
    Actor,
    action_log_record_by_id,
    require_director_or_system,
    stage_lock,
    tournament_notify,
)
from core.choice_labels import choice_phrase
from core.exceptions import ApplicationError
from scoring.models import Match, Seat
from scoring.services import match_forfeit
from tournament.models import Entry
from tournament.services import entry_disqualify, entry_update, entry_withdraw


def _next_round_number(stage: Stage) -> int:
    last = stage.rounds.aggregate(n=Max("number"))["n"]
    return (last or 0) + 1


@transaction.atomic
def stage_entry_add(*, stage: Stage, actor: Actor, entry: Entry, reason: str = "") -> StageEntry:
    """Late check-in: add an entry to a qualifying stage from its next round on (T1, T8).

    The entry is checked in if it was not; it joins with the lowest seed and a record of 0.
    """
    require_director_or_system(actor, stage.tournament_id)
    stage = stage_lock(stage.pk)
    entry = Entry.objects.get(pk=entry.pk)  # fresh: status and check-in may have changed
    if stage.kind != Stage.Kind.QUALIFYING:
        raise ApplicationError(
            _("Late entries join a qualifying stage; a knockout field is fixed (T6)."),
            code="knockout_field_fixed",
        )
    if stage.status in (Stage.Status.PENDING, Stage.Status.FINISHED):
        raise ApplicationError(
            _("Seed the stage first (or it is finished)."), code="stage_not_open"
        )
    if entry.tournament_id != stage.tournament_id or entry.status != Entry.Status.ACTIVE:
        raise ApplicationError(
            _("Only an active entry of this tournament can join."),
            code="bad_entry",
            fields={"entry": [_("Not an active entry of this tournament.")]},
        )
    if StageEntry.objects.filter(stage=stage, entry=entry).exists():
        raise ApplicationError(
            _("The entry is already in the stage."),
            code="already_entered",
            fields={"entry": [_("Already in this stage.")]},
        )
    joined = _next_round_number(stage)
    if joined > (stage.swiss_rounds or 0):
        raise ApplicationError(_("No qualifying round is left to join."), code="no_round_left")
    if not entry.checked_in:
        entry_update(entry=entry, actor=actor, data={"checked_in": True})
    top = StageEntry.objects.filter(stage=stage).aggregate(s=Max("seed"))["s"] or 0
    se = StageEntry.objects.create(stage=stage, entry=entry, seed=top + 1, joined_round=joined)
    action_log_record_by_id(
        tournament_id=stage.tournament_id,
        actor=actor,
        verb="stage.add_entry",
        target=stage,
        reason=reason,
        data={"entry_id": entry.pk, "joined_round": joined, "seed": se.seed},
    )
    tournament_notify(stage.tournament_id)
    return se


@transaction.atomic
def stage_entry_withdraw(
    *, stage: Stage, actor: Actor, entry: Entry, reason: str, disqualify: bool = False
) -> StageEntry:
    """Withdraw (or disqualify) a player mid-event (T7).

    The entry is withdrawn from the tournament (tournament services), the stage entry is
    marked withdrawn, and if the player sits at an unfinished match of the round in play, the
    match records their forfeit as a 0-6 loss; the others play on in a continuation match at
    the same table where the ruleset allows (``scoring.services.match_forfeit``), which joins
    the round. Later rounds are seated without them; they are placed after everyone else.
    """
    require_director_or_system(actor, stage.tournament_id)
    if not reason or not reason.strip():
        raise ApplicationError(
            _("Give a reason."), code="reason_required", fields={"reason": [_("Required.")]}
        )
    stage = stage_lock(stage.pk)
    entry = Entry.objects.select_related("tournament").get(pk=entry.pk)
    se = StageEntry.objects.filter(stage=stage, entry=entry).first()
    if se is None:
        raise ApplicationError(
            _("The entry is not in this stage."),
            code="not_in_stage",
            fields={"entry": [_("Not in this stage.")]},
        )
    if se.status != StageEntry.Status.ACTIVE:
        raise ApplicationError(
            _("The entry is already %(status)s.")
            % {"status": choice_phrase(StageEntry.Status, se.status)},
            code="entry_not_active",
        )
    current = stage.rounds.order_by("-number").first()
    open_seats: list[tuple[int, int]] = []
    if current is not None and current.status == Round.Status.PUBLISHED:
        open_seats = list(
            Seat.objects.filter(
                match__round_link__round=current,
                entry=entry,
                match__status__in=[Match.Status.SCHEDULED, Match.Status.IN_PROGRESS],
            )
            .order_by("match_id")
            .values_list("match_id", "seat")
        )
        # Lock the player's open match before anything bumps the tournament version: a
        # referee's recording transaction locks the match first and the tournament last.
        list(
            Match.objects.select_for_update(no_key=True)
            .filter(pk__in=[m for m, _unused in open_seats])
            .order_by("pk")
            .values_list("pk", flat=True)
        )
    if entry.status == Entry.Status.ACTIVE:
        if disqualify:
            entry_disqualify(entry=entry, actor=actor, reason=reason)
        else:
            entry_withdraw(entry=entry, actor=actor, reason=reason)
    se.status = StageEntry.Status.WITHDRAWN
    se.out_round = current.number if current else None
    se.save(update_fields=["status", "out_round", "updated_at"])
    forfeited: list[int] = []
    if current is not None:
        for match_id, seat in open_seats:
            result = match_forfeit(match_id=match_id, actor=actor, seat=seat, reason=reason)
            forfeited.append(match_id)
            if result.continuation is not None:
                table_number = (
                    RoundMatch.objects.filter(match_id=match_id)
                    .values_list("table_number", flat=True)
                    .get()
                )
                RoundMatch.objects.create(
                    round=current, match=result.continuation, table_number=table_number
                )
    action_log_record_by_id(
        tournament_id=stage.tournament_id,
        actor=actor,
        verb="stage.disqualify" if disqualify else "stage.withdraw",
        target=stage,
        reason=reason,
        data={"entry_id": entry.pk, "forfeited_matches": forfeited},
    )
    tournament_notify(stage.tournament_id)
    return se
