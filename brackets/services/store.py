"""Storing a :class:`NextStep`: publish a round in bulk, close a round, finish a stage.

Every function here assumes the caller holds the stage lock (and the round lock where a round
is named), inside the service's transaction (STYLE.md §3). Publishing is bulk: a 1,000-player
round is a handful of INSERTs (matches, links, seats), never a query per table or seat.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Case, IntegerField, Value, When
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from brackets.engine import Placement
from brackets.models import Round, RoundMatch, Stage, StageEntry
from brackets.selectors import StageData
from brackets.services._common import Actor
from brackets.services.planning import (
    FINISH_STAGE,
    PUBLISH_ROUND,
    NextStep,
    SeatedTable,
    withdrawn_places,
)
from core.exceptions import ApplicationError, ConflictError
from core.titles import round_title, table_title
from scoring.models import Match, Seat
from tournament.models import Table, TournamentRole
from tournament.services import tournament_mark_finished, tournament_mark_running


class RoundAlreadyPublishedError(ConflictError):
    """``(stage, number)`` exists: someone published this round first (idempotent path)."""


def _actor_id(actor: Actor) -> int | None:
    if actor is None or not getattr(actor, "is_authenticated", False):
        return None
    return int(actor.pk)


def tables_ensure(tournament_id: int, numbers: Iterable[int]) -> dict[int, int]:
    """Table ids by number, creating missing venue tables in bulk (two queries)."""
    wanted = sorted(set(numbers))
    Table.objects.bulk_create(
        [Table(tournament_id=tournament_id, number=n) for n in wanted], ignore_conflicts=True
    )
    return dict(
        Table.objects.filter(tournament_id=tournament_id, number__in=wanted).values_list(
            "number", "id"
        )
    )


def referee_for_tables(tournament_id: int) -> list[int]:
    """Referees in a fixed order: table t gets referee ``(t - 1) mod R`` every round.

    Referee identities are inactive by design (they never sign in; they act through a
    credential, docs/security.md), so ``is_active`` does not filter them."""
    return list(
        TournamentRole.objects.filter(tournament_id=tournament_id, role=TournamentRole.Role.REFEREE)
        .order_by("id")
        .values_list("user_id", flat=True)
    )


def round_store(stage: Stage, step: NextStep, *, actor: Actor) -> Round:
    """Create the round, its matches (one per table), links and seats in bulk.

    A duplicate ``(stage, number)`` raises :class:`RoundAlreadyPublishedError` (the unique
    constraint is the idempotency guard; the insert runs in a savepoint so the caller's
    transaction stays usable).
    """
    assert step.action == PUBLISH_ROUND
    assert step.seating is not None
    assert step.round_number is not None
    assert step.round_kind is not None
    now = timezone.now()
    rnd = Round(
        stage=stage,
        number=step.round_number,
        kind=step.round_kind,
        status=Round.Status.PUBLISHED,
        rng_seed=step.rng_seed or 0,
        byes=list(step.seating.byes),
        advancing=step.advancing,
        playoff_players=list(step.playoff_players),
        published_at=now,
        published_by_id=_actor_id(actor),
        time_limit=stage.round_time_limit,
    )
    try:
        with transaction.atomic():
            rnd.save()
    except IntegrityError:
        raise RoundAlreadyPublishedError(
            _("Round %(number)s of %(stage)s is already published.")
            % {"number": step.round_number, "stage": stage.name},
            code="round_already_published",
        ) from None
    tables: list[SeatedTable] = list(step.seating.tables)
    table_ids = tables_ensure(stage.tournament_id, (t.number for t in tables))
    referees = referee_for_tables(stage.tournament_id)
    # Stored once, in the server's language, for exports and the live match document
    # ("Heats · Round 2 · Table 3", "Heats · Play-off table · Table 1"); pages compose
    # their own title in the reader's language (core.titles).
    with translation.override(settings.LANGUAGE_CODE):
        where = round_title(step.round_kind, step.round_number, stage.name)
        tables_named = {t.number: f"{where} · {table_title(t.number)}"[:80] for t in tables}
    matches = [
        Match(
            tournament_id=stage.tournament_id,
            table_id=table_ids[t.number],
            referee_id=referees[(t.number - 1) % len(referees)] if referees else None,
            label=tables_named[t.number],
            n_players=len(t.seats),
            scores=[0] * len(t.seats),
        )
        for t in tables
    ]
    Match.objects.bulk_create(matches)  # PostgreSQL returns the ids
    RoundMatch.objects.bulk_create(
        [
            RoundMatch(round=rnd, match=m, table_number=t.number)
            for m, t in zip(matches, tables, strict=True)
        ]
    )
    Seat.objects.bulk_create(
        [
            Seat(match=m, seat=i, entry_id=p)
            for m, t in zip(matches, tables, strict=True)
            for i, p in enumerate(t.seats)
        ],
        batch_size=2000,
    )
    tournament_mark_running(tournament_id=stage.tournament_id)  # first round: running
    if stage.status != Stage.Status.RUNNING:
        stage.status = Stage.Status.RUNNING
        stage.started_at = stage.started_at or now
        stage.save(update_fields=["status", "started_at", "updated_at"])
    return rnd


def round_mark_closed(rnd: Round) -> bool:
    """Mark a complete round closed (caller checked completeness); False if it already was."""
    if rnd.status == Round.Status.CLOSED:
        return False
    rnd.status = Round.Status.CLOSED
    rnd.closed_at = timezone.now()
    rnd.save(update_fields=["status", "closed_at", "updated_at"])
    return True


def round_mark_advanced(round_id: int | None) -> None:
    if round_id is None:
        return
    Round.objects.filter(pk=round_id).update(
        advanced_at=timezone.now(), advance_error="", updated_at=timezone.now()
    )


def places_set(
    stage_id: int, places: Sequence[Placement], *, status: str, out_round: int | None
) -> None:
    """Give entrants their stage place and status in one UPDATE."""
    if not places:
        return
    StageEntry.objects.filter(stage_id=stage_id, entry_id__in=[p.player_id for p in places]).update(
        status=status,
        out_round=out_round,
        placing=Case(
            *[When(entry_id=p.player_id, then=Value(p.place)) for p in places],
            output_field=IntegerField(),
        ),
        updated_at=timezone.now(),
    )


def withdrawals_sync(data: StageData) -> None:
    """Entrants withdrawn from the tournament (tournament services, T7) are withdrawn here too."""
    gone = [e.entry_id for e in data.entrants if e.status == "active" and not e.active]
    if gone:
        last = data.last_round
        StageEntry.objects.filter(stage_id=data.id, entry_id__in=gone).update(
            status=StageEntry.Status.WITHDRAWN,
            out_round=last.number if last else None,
            updated_at=timezone.now(),
        )


def stage_finish(stage: Stage, data: StageData, step: NextStep) -> Stage | None:
    """Store a stage's end (T6): places, who went on, and the seeding of the next stage.

    Returns the next stage (now seeded by this stage's advancement order) or ``None`` when this
    was the last stage; then the advancing players (if any) take places 1..n in order.
    """
    assert step.action == FINISH_STAGE
    withdrawals_sync(data)
    places_set(
        stage.pk, step.eliminated, status=StageEntry.Status.ELIMINATED, out_round=step.out_round
    )
    next_stage = (
        Stage.objects.select_for_update()
        .filter(tournament_id=stage.tournament_id, number=stage.number + 1)
        .first()
    )
    if step.advanced:
        if next_stage is None:
            places_set(
                stage.pk,
                [Placement(p, i + 1) for i, p in enumerate(step.advanced)],
                status=StageEntry.Status.ADVANCED,
                out_round=None,
            )
        else:
            StageEntry.objects.filter(stage_id=stage.pk, entry_id__in=step.advanced).update(
                status=StageEntry.Status.ADVANCED, updated_at=timezone.now()
            )
    # Everyone not withdrawn has (or gets, in the next stage) a place 1..placed: the final
    # table, earlier knockout losers, the cut's losers. Withdrawn players come after them.
    refreshed = _refreshed_withdrawals(data, step.eliminated)
    placed = sum(1 for e in refreshed.entrants if e.status != StageEntry.Status.WITHDRAWN)
    withdrawn = withdrawn_places(refreshed, placed)
    if data.pairs is not None:  # T10: places count partnerships, both partners share one
        from brackets.services.pairs_planning import pairs_withdrawn_places

        withdrawn = pairs_withdrawn_places(refreshed)
    if withdrawn:
        StageEntry.objects.filter(
            stage_id=stage.pk, entry_id__in=[w.player_id for w in withdrawn]
        ).update(
            placing=Case(
                *[When(entry_id=w.player_id, then=Value(w.place)) for w in withdrawn],
                output_field=IntegerField(),
            )
        )
    now = timezone.now()
    stage.status = Stage.Status.FINISHED
    stage.finished_at = now
    stage.save(update_fields=["status", "finished_at", "updated_at"])
    round_mark_advanced(step.follows_round_id)
    if next_stage is None:
        if stage.kind == Stage.Kind.KNOCKOUT:
            # The final table has played (T6: a knockout stage is the last stage): the
            # tournament is over and its results are read-only from now on.
            tournament_mark_finished(tournament_id=stage.tournament_id)
        return None
    if next_stage.status not in (Stage.Status.PENDING, Stage.Status.SEEDED) or (
        next_stage.rounds.exists()
    ):
        raise ApplicationError(
            _("%(stage)s has already started; it cannot be seeded again.")
            % {"stage": next_stage.name},
            code="next_stage_started",
        )
    next_stage_seed(next_stage, step.advanced)
    return next_stage


def next_stage_seed(next_stage: Stage, advanced: Sequence[int]) -> None:
    """Seed ``next_stage`` with the previous stage's advancing entrants, seeds 1..n in their
    advancement order (T6); a pairs event's partners come in pairs (seeds 2k-1, 2k, T10)."""
    next_stage.entrants.all().delete()
    StageEntry.objects.bulk_create(
        [StageEntry(stage=next_stage, entry_id=p, seed=i + 1) for i, p in enumerate(advanced)]
    )
    next_stage.status = Stage.Status.SEEDED
    next_stage.seeding = Stage.Seeding.STANDINGS
    next_stage.save(update_fields=["status", "seeding", "updated_at"])


def finished_stage_advanced(stage: Stage) -> list[int]:
    """The entrants a finished last stage sent on, in advancement order, to seed a stage the
    director adds after it (T6: a qualifying stage is never the last one).

    :func:`stage_finish` found no next stage and gave them provisional places 1..n; they lose
    those places (the next stage places them), so the stage reads as if the next stage had
    existed when it ended. Caller holds the stage lock.
    """
    advanced = StageEntry.objects.filter(stage=stage, status=StageEntry.Status.ADVANCED)
    order = list(advanced.order_by("placing", "seed").values_list("entry_id", flat=True))
    advanced.update(placing=None, out_round=None, updated_at=timezone.now())
    return order


def _refreshed_withdrawals(data: StageData, placed: Sequence[Placement]) -> StageData:
    """``data`` as :func:`stage_finish` has just stored it: entrants withdrawn from the
    tournament counted as withdrawn here, out in the stage's latest round
    (:func:`withdrawals_sync`), and the ``placed`` entrants with their place. A finalist who
    withdrew during the final (T7) is placed by the final, after everyone who played on;
    placing them again among the withdrawn gave them another player's place."""
    from dataclasses import replace

    last = data.last_round.number if data.last_round else None
    place = {p.player_id: p.place for p in placed}
    return replace(
        data,
        entrants=tuple(
            replace(e, status=StageEntry.Status.ELIMINATED, placing=place[e.entry_id])
            if e.entry_id in place
            else replace(e, status=StageEntry.Status.WITHDRAWN, out_round=last)
            if e.status == StageEntry.Status.ACTIVE and not e.active
            else e
            for e in data.entrants
        ),
    )


def continuation_links(round_id: int) -> int:
    """:func:`_continuation_links_once` until nothing is missing (a continuation match may
    itself be forfeited and continued)."""
    total = 0
    while added := _continuation_links_once(round_id):
        total += added
    return total


def _continuation_links_once(round_id: int) -> int:
    """Link forfeit continuation matches (T7) to the round of the match they continue.

    ``scoring.services.match_forfeit`` lets the others play on in a new match at the same table
    (``Match.continues``); whoever called it (our withdrawal service or the scoring API), the
    round must wait for that match too. Two queries when nothing is missing, three otherwise.
    Returns how many links were added.
    """
    forfeited = dict(
        RoundMatch.objects.filter(
            round_id=round_id, match__end_reason=Match.EndReason.FORFEIT
        ).values_list("match_id", "table_number")
    )
    if not forfeited:
        return 0
    missing = Match.objects.filter(continues_id__in=forfeited, round_link__isnull=True)
    links = RoundMatch.objects.bulk_create(
        RoundMatch(round_id=round_id, match_id=match_id, table_number=forfeited[continues_id])
        for match_id, continues_id in missing.order_by("pk").values_list("pk", "continues_id")
    )
    return len(links)
