"""Pairs-event services that need stages and rounds: seeding partnerships, substitutes (T11).

When a substitute may be named (T11) is decided once, by
:func:`partnership_substitute_refusals`: the service asks it before writing, and the
partnerships and round pages ask it before they offer the substitution.

Seeding (T8 over partnerships, T9): a pairs stage's entrants are still stage entries per
player; partnership k (in seed order) gets seeds 2k-1 and 2k, slot order, so every reader of a
stage sees both partners and the pairs planner reads a partnership's seed as its best one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from brackets.models import Stage, StageEntry
from brackets.pairs_csv import PairsReport
from brackets.selectors.pairs import pairs_in_play, pairs_out
from brackets.services._common import (
    Actor,
    action_log_record_by_id,
    first_stage_order,
    stage_lock,
    tournament_notify,
)
from brackets.services.registration import TypedPlayer, typed_player_create, typed_player_match
from core.exceptions import ApplicationError, ConflictError
from ratings.selectors import seeding_ratings
from tournament.context import Action, require_status
from tournament.models import Entry, Partnership, PartnershipMember, Player, Tournament
from tournament.partnerships import (
    entry_for_partnership,
    is_partnership_ruleset,
    partnership_list,
    partnership_register,
)
from tournament.services import action_log_record, require_director, tournament_version_bump


def check_pairs_stage(stage: Stage, tournament: Tournament) -> None:
    """A pairs stage needs a pairs event under a partnership ruleset (T9, R42)."""
    if not is_partnership_ruleset(tournament.ruleset):
        message = _("A pairs event plays under a partnership ruleset (teams = partners, R42).")
        raise ApplicationError(
            message, code="not_partnership_ruleset", rule="T9", fields={"ruleset": [message]}
        )


def validate_pairs_config(stage: Stage) -> None:
    """Stage settings over partnerships (T10): a cut lets at least two through (a final)."""
    if stage.cut_size is not None and stage.cut_size < 2:
        message = _("A cut lets at least 2 partnerships through: the final (T10).")
        raise ApplicationError(
            message, code="bad_stage", rule="T10", fields={"cut_size": [message]}
        )
    if stage.kind == Stage.Kind.QUALIFYING and (stage.swiss_rounds or 0) < 1:
        message = _("A qualifying stage plays at least one round (T2).")
        raise ApplicationError(
            message, code="bad_stage", rule="T2", fields={"swiss_rounds": [message]}
        )


def stage_seed_pairs(
    *,
    stage: Stage,
    actor: Actor,
    method: str,
    order: Sequence[int] | None = None,
    rng_seed: int | None = None,
) -> Stage:
    """Seed stage 1 of a pairs event (caller holds the stage lock, inside its transaction).

    The field is every active partnership whose two players are active and checked in.
    ``method``: ``rating`` (the partners' mean seeding rating, T8), ``manual`` (``order`` =
    partnership ids best first; default registration order), ``random`` (recorded seed).
    """
    tournament = Tournament.objects.get(pk=stage.tournament_id)
    check_pairs_stage(stage, tournament)
    members: dict[int, list[tuple[int, int, bool, str]]] = {}
    for pid, entry_id, player_id, checked_in, status in (
        PartnershipMember.objects.filter(
            partnership__tournament_id=stage.tournament_id,
            partnership__status=Partnership.Status.ACTIVE,
            left_at__isnull=True,
        )
        .order_by("partnership__number", "slot")
        .values_list(
            "partnership_id", "entry_id", "entry__player_id", "entry__checked_in", "entry__status"
        )
    ):
        members.setdefault(pid, []).append((entry_id, player_id, checked_in, status))
    field_ = [
        pid
        for pid, ms in members.items()
        if len(ms) == 2 and all(m[2] and m[3] == Entry.Status.ACTIVE for m in ms)
    ]

    def by_rating() -> tuple[int, ...]:
        # The mean of the partners' known ratings: an unrated partner (no rated match, no
        # rating entered) does not halve a rated partner's (README, Rule decisions: pairs).
        ratings = seeding_ratings(
            player_ids=[m[1] for ms in members.values() for m in ms], unrated=None
        )
        mean = {}
        for pid in field_:
            known = [ratings[m[1]] for m in members[pid] if m[1] in ratings]
            mean[pid] = sum(known) / len(known) if known else 0.0
        return tuple(sorted(field_, key=lambda p: (-mean[p], field_.index(p))))

    ordered = first_stage_order(
        stage,
        field_,
        method,
        by_rating=by_rating,
        order=field_ if order is None else order,
        rng_seed=rng_seed,
        names=lambda _wrong: {
            p.id: p.label for p in partnership_list(tournament_id=stage.tournament_id)
        },
        partnerships=True,
    )
    if not ordered:
        message = _(
            "No partnership is checked in yet: check both players of each partnership in "
            "before seeding (T8, T9)."
        )
        raise ApplicationError(
            message, code="field_too_small", rule="T9", fields={"partnerships": [message]}
        )
    if len(ordered) < 2:
        message = ngettext(
            "%(count)s partnership checked in: a table seats two (T9).",
            "%(count)s partnerships checked in: a table seats two (T9).",
            len(ordered),
        ) % {"count": len(ordered)}
        raise ApplicationError(
            message, code="field_too_small", rule="T9", fields={"partnerships": [message]}
        )
    stage.entrants.all().delete()
    StageEntry.objects.bulk_create(
        [
            StageEntry(stage=stage, entry_id=m[0], seed=2 * k + slot + 1)
            for k, pid in enumerate(ordered)
            for slot, m in enumerate(members[pid])
        ]
    )
    stage.pairs = True
    stage.seeding = method
    stage.status = Stage.Status.SEEDED
    stage.save(update_fields=["pairs", "seeding", "status", "rng_seed", "updated_at"])
    action_log_record_by_id(
        tournament_id=stage.tournament_id,
        actor=actor,
        verb="stage.seed",
        target=stage,
        data={"method": method, "partnerships": list(ordered), "rng_seed": stage.rng_seed},
    )
    tournament_notify(stage.tournament_id)
    return stage


@dataclass(frozen=True, slots=True)
class SubstituteRefusal:
    """Why :func:`partnership_substitute` refuses a partnership now (T11)."""

    reason: str
    """Short, for a page to show beside the partnership instead of the form."""
    error: ApplicationError
    """What the service raises: the full message, its code, rule and status."""


def partnership_substitute_refusals(
    *, tournament: Tournament, entry_ids: Iterable[int]
) -> dict[int, SubstituteRefusal | None]:
    """T11, the one rule: for the partnership each of ``entry_ids`` plays for now (partnership
    id -> ...), why a substitute would be refused now, or ``None`` where one is taken.

    Refused after the event (the lifecycle gate: nothing changes in a finished tournament) and
    while a current player of the partnership is seated at a match not done, scheduled or in
    play: "before a round is published", read per partnership. A match that is over leaves the
    partnership free at once, whether played, decided or forfeited: a forfeit (T7) is that
    partnership's 0-6 loss and ends the match for both partnerships (R42: nobody plays on one
    short), and a no-show is what T11 names a substitute for, so the substitute plays the next
    round with the partnership's record. The partnership with a bye (T1) is free too.
    Refused too, before all that, for a partnership out of the event as a whole
    (:func:`brackets.selectors.pairs.pairs_out`: withdrawn or disqualified, T7, or
    eliminated, T6/T10): T11 replaces one player of a partnership still in it, and the page
    shows why it is out instead of the form. Four queries, and a running pairs knockout
    stage's data.
    """
    in_play = pairs_in_play(entry_ids=entry_ids)
    try:
        require_status(tournament, Action.MANAGE)
    except ApplicationError as exc:
        # MANAGE's gate refuses only a finished tournament.
        finished = SubstituteRefusal(reason=_("The tournament is finished."), error=exc)
        return dict.fromkeys(in_play.matches, finished)
    out = pairs_out(pair_ids=in_play.matches, tournament_id=tournament.pk)
    refusals: dict[int, SubstituteRefusal | None] = {}
    for pair_id, matches in in_play.matches.items():
        if pair_id in out:  # out of the event: why, never "substitute when it is over"
            refusals[pair_id] = out_refusal(out[pair_id])
        elif matches:
            refusals[pair_id] = SubstituteRefusal(
                reason=_("Has a match still to play: substitute when it is over (T11)."),
                error=ConflictError(
                    _(
                        "A player of this partnership is seated at a table still to play: "
                        "substitute once its match is over, before the next round is "
                        "published (T11)."
                    ),
                    code="round_in_play",
                    rule="T11",
                    extra={"matches": matches},
                ),
            )
        else:
            refusals[pair_id] = None
    return refusals


def out_refusal(why: str) -> SubstituteRefusal:
    """The refusal for a partnership out of the event as a whole (:func:`pairs_out`'s
    ``why``): a substitute replaces one player of a partnership still in it (T11)."""
    if why == "disqualified":
        return SubstituteRefusal(
            reason=_("Disqualified (T7): out of the event, so no substitute (T11)."),
            error=ConflictError(
                _(
                    "A player of this partnership is disqualified (T7), which takes the "
                    "partnership out of the event: T11 names a substitute only for a "
                    "withdrawal or a no-show."
                ),
                code="partnership_disqualified",
                rule="T11",
            ),
        )
    if why == "withdrawn":
        return SubstituteRefusal(
            reason=_("Withdrawn (T7): out of the event, so no substitute (T11)."),
            error=ConflictError(
                _(
                    "This partnership is withdrawn from the event (T7): a substitute "
                    "replaces one player of a partnership still in it (T11)."
                ),
                code="partnership_withdrawn",
                rule="T11",
            ),
        )
    return SubstituteRefusal(
        reason=_("Eliminated (T6, T10): out of the event, so no substitute (T11)."),
        error=ConflictError(
            _(
                "This partnership is eliminated (T6, T10) and plays no further round: a "
                "substitute keeps a partnership playing in the event (T11)."
            ),
            code="partnership_eliminated",
            rule="T11",
        ),
    )


@transaction.atomic
def partnership_substitute(
    *,
    partnership: Partnership,
    actor: Any,
    leaving: Entry,
    player: Player | TypedPlayer,
    reason: str,
    player_field: str = "player",
) -> Partnership:
    """Replace one player of a partnership (T11: withdrawal or no-show), before a round.

    ``player``: the substitute, a known player, or a name the director typed
    (:class:`~brackets.services.registration.TypedPlayer`): found or created as
    :mod:`brackets.services.registration` says, so a name that known players have with no club
    to tell them apart raises its
    :class:`~brackets.services.registration.SameNameUnconfirmedError` (under ``player_field``)
    and writes nothing until the director answers it. Asked only once the substitution itself
    is allowed, so a partnership still playing is refused first (T11).

    Refused where :func:`partnership_substitute_refusals` says so: after the event, or while
    the partnership has a match scheduled or in play (T11: "before a round is published"; a
    forfeited match is over). The leaving player's membership ends (kept as history, so every
    match they played still counts for the partnership: it keeps its record), the newcomer is
    entered, checked in and takes the same slot, and takes the leaving player's place in every
    stage not finished, active there even if the leaving player had been withdrawn from the
    stage (T7): the substitute keeps the partnership playing. The leaving entry is withdrawn
    with the reason. Logged in the action log.
    """
    tournament = partnership.tournament
    require_director(actor=actor, tournament=tournament)
    if not reason.strip():
        raise ApplicationError(
            _("Give a reason (T11)."),
            code="reason_required",
            rule="T11",
            fields={"reason": [_("Required.")]},
        )
    partnership = Partnership.objects.select_for_update().get(pk=partnership.pk)
    member = PartnershipMember.objects.filter(
        partnership=partnership, entry_id=leaving.pk, left_at__isnull=True
    ).first()
    if member is None:
        message = _("That player does not play in this partnership now (T11).")
        raise ApplicationError(
            message, code="not_a_member", rule="T11", fields={"leaving": [message]}
        )
    unfinished = StageEntry.objects.filter(
        stage__tournament_id=tournament.pk,
        stage__status__in=[Stage.Status.SEEDED, Stage.Status.RUNNING, Stage.Status.PENDING],
    )
    # The lock a round's publication takes first (stage_lock): a round published between
    # the check below and the move would seat the leaving player (T11 "before a round").
    for stage_id in sorted(
        set(unfinished.filter(entry_id=leaving.pk).values_list("stage_id", flat=True))
    ):
        stage_lock(stage_id)
    refusal = partnership_substitute_refusals(tournament=tournament, entry_ids=[leaving.pk])
    if (found := refusal.get(partnership.pk)) is not None:
        raise found.error
    if isinstance(player, TypedPlayer):
        known = typed_player_match(
            tournament=tournament,
            actor=actor,
            typed=player,
            field_name=player_field,
            entered_ok=True,
        )
        player = known or typed_player_create(actor=actor, typed=player)
    newcomer = entry_for_partnership(
        tournament=tournament, actor=actor, player=player, field=player_field, check_in=True
    )
    now = timezone.now()
    PartnershipMember.objects.filter(pk=member.pk).update(left_at=now, updated_at=now)
    PartnershipMember.objects.create(partnership=partnership, entry=newcomer, slot=member.slot)
    # A player withdrawn mid-stage (T7) left a withdrawn stage entry, which would keep the
    # partnership out of every later round; the substitute plays on in it (T11).
    unfinished.filter(entry_id=leaving.pk, status=StageEntry.Status.WITHDRAWN).update(
        status=StageEntry.Status.ACTIVE, out_round=None
    )
    moved = unfinished.filter(entry_id=leaving.pk).update(entry_id=newcomer.pk, updated_at=now)
    Entry.objects.filter(pk=leaving.pk).update(
        status=Entry.Status.WITHDRAWN,
        status_reason=f"Replaced in {partnership} by {player} (T11): {reason.strip()}"[:2000],
        updated_at=now,
    )
    action_log_record(
        tournament=tournament,
        actor=actor,
        verb="partnership.substitute",
        target=partnership,
        reason=reason,
        data={
            "leaving_entry": leaving.pk,
            "joining_entry": newcomer.pk,
            "slot": member.slot,
            "stage_entries_moved": moved,
        },
    )
    tournament_version_bump(tournament_id=tournament.pk)
    tournament_notify(tournament.pk)
    return partnership


@transaction.atomic
def pairs_import_csv(
    *,
    tournament: Tournament,
    actor: Actor,
    report: PairsReport,
    check_in: bool = False,
    source: str = "",
) -> PairsImport:
    """Enter every player of a checked pairs CSV and register its partnerships, all or
    nothing (T9). Refused (400 naming the file and rows) while the report has an error."""
    from brackets.services.imports import players_import_csv

    problems = report.all_errors
    if problems:
        raise ApplicationError(
            ngettext(
                "%(count)s problem in the file; nothing was imported (T9).",
                "%(count)s problems in the file; nothing was imported (T9).",
                len(problems),
            )
            % {"count": len(problems)},
            code="bad_file",
            rule="T9",
            fields={"file": [str(e) for e in problems[:20]]},
        )
    rows = [r for _unused, a, b in report.pairs for r in (a, b)]
    result = players_import_csv(
        tournament=tournament, actor=actor, rows=rows, check_in=check_in, source=source
    )
    entries = dict(zip([r.row for r in rows], result.entry_ids, strict=True))
    players = {
        e.pk: e.player
        for e in Entry.objects.filter(pk__in=result.entry_ids).select_related("player")
    }
    registered = [
        partnership_register(
            tournament=tournament,
            actor=actor,
            players=[players[entries[a.row]], players[entries[b.row]]],
            name=label,
            check_in=check_in,
        )
        for label, a, b in report.pairs
    ]
    return PairsImport(partnerships=tuple(registered), namesakes=result.namesakes)


@dataclass(frozen=True, slots=True)
class PairsImport:
    """What a pairs import registered, and the new players who share a known player's name
    (:attr:`brackets.services.imports.ImportResult.namesakes`)."""

    partnerships: tuple[Partnership, ...]
    namesakes: tuple[str, ...] = ()
