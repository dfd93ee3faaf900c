"""Who plays in a stage mid-event: late check-in (T1, T8) and withdrawal or disqualification
with a forfeit at the table in play (T7)."""

from __future__ import annotations

from dataclasses import dataclass

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
from scoring.engine import Teams
from scoring.models import Match, Seat
from scoring.services import forfeit_plays_on, match_forfeit, override_ruleset
from tournament.models import Entry
from tournament.services import entry_disqualify, entry_update, entry_withdraw


@dataclass(frozen=True, slots=True)
class WithdrawalForfeit:
    """A match a withdrawal forfeits (T7), as :func:`stage_entry_withdraw` will record it.

    ``others``: the other players at the table in seat order (at a partnership table, the
    other partnership); ``plays_on``: they play on at the same table in a continuation match
    (``scoring.services.forfeit_plays_on``);
    ``partners``: a partnership table (R42), lost 0-6 by the player's partnership, whose
    partner is ``partner`` (seat opposite)."""

    match_id: int
    seat: int
    table_number: int
    status: str
    player: str
    others: tuple[str, ...]
    plays_on: bool
    partners: bool
    partner: str = ""


def _current_round(stage: Stage) -> Round | None:
    return stage.rounds.order_by("-number").first()


def _open_seats(current: Round | None, entry_ids: list[int] | None) -> list[Seat]:
    """The seats of ``entry_ids`` (every entrant when None) at the matches of ``current`` still
    scheduled or in play: what a withdrawal forfeits (T7). Nothing outside a published round."""
    if current is None or current.status != Round.Status.PUBLISHED:
        return []
    seats = Seat.objects.filter(
        match__round_link__round=current,
        match__status__in=[Match.Status.SCHEDULED, Match.Status.IN_PROGRESS],
    )
    if entry_ids is not None:
        seats = seats.filter(entry_id__in=entry_ids)
    return list(seats.order_by("match_id", "seat"))


def stage_entry_withdraw_forfeits(*, stage: Stage, entry: Entry) -> list[WithdrawalForfeit]:
    """What :func:`stage_entry_withdraw` would forfeit if called now (T7): each open match of
    the round in play where ``entry`` sits, with whether the others play on. Empty when no
    match of theirs is open. The confirmation step of the director's withdrawal shows it."""
    seats = _open_seats(_current_round(stage), [entry.pk])
    if not seats:
        return []
    match_ids = [s.match_id for s in seats]
    matches = {m.pk: m for m in Match.objects.filter(pk__in=match_ids).select_related("tournament")}
    tables = dict(
        RoundMatch.objects.filter(match_id__in=match_ids).values_list("match_id", "table_number")
    )
    names: dict[int, list[tuple[int, str]]] = {}
    for match_id, seat, name in (
        Seat.objects.filter(match_id__in=match_ids)
        .order_by("seat")
        .values_list("match_id", "seat", "entry__player__name")
    ):
        names.setdefault(match_id, []).append((seat, name))
    out: list[WithdrawalForfeit] = []
    for s in seats:
        match = matches[s.match_id]
        ruleset = override_ruleset(match)
        at_table = names.get(s.match_id, [])
        player = next((n for i, n in at_table if i == s.seat), "")
        partners = ruleset is not None and ruleset.teams is Teams.PARTNERS
        out.append(
            WithdrawalForfeit(
                match_id=s.match_id,
                seat=s.seat,
                table_number=tables.get(s.match_id, 0),
                status=match.status,
                player=player,
                # At a partnership table the other partnership (R42: seats of the other
                # parity), who win the match; elsewhere everyone else at the table.
                others=tuple(
                    n for i, n in at_table if i != s.seat and (not partners or i % 2 != s.seat % 2)
                ),
                plays_on=ruleset is not None and forfeit_plays_on(ruleset, match.n_players),
                partners=partners,
                partner=next((n for i, n in at_table if i == (s.seat + 2) % 4), "")
                if partners
                else "",
            )
        )
    return out


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
    current = _current_round(stage)
    # The same open matches the confirmation step showed (stage_entry_withdraw_forfeits).
    open_seats = [(s.match_id, s.seat) for s in _open_seats(current, [entry.pk])]
    if open_seats:
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
