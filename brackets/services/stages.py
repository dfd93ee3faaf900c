"""Stage services: create, update, seed and reorder, late entries, withdrawals, advance."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Case, IntegerField, Value, When
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from brackets.engine import (
    BracketError,
    Entrant,
    plan_knockout,
    plan_tables,
    seed_by_rating,
    seed_manual,
)
from brackets.models import (
    CUT_SIZE_MAX,
    RNG_SEED_MAX,
    SWISS_ROUNDS_MAX,
    TIME_LIMIT_MAX,
    Stage,
    StageEntry,
)
from brackets.services._common import (
    Actor,
    action_log_record_by_id,
    bracket_error,
    first_stage_order,
    require_director_or_system,
    seed_order_error,
    stage_lock,
    tournament_notify,
)
from brackets.services.pairs import stage_seed_pairs, validate_pairs_config
from brackets.services.planning import FINISH_STAGE
from brackets.services.rounds import AdvanceResult, round_advance, round_preview
from brackets.services.store import finished_stage_advanced, next_stage_seed
from core.exceptions import ApplicationError
from ratings.selectors import seeding_ratings
from tournament.models import Entry, Tournament
from tournament.partnerships import partnership_of_entries

_ANYTIME = frozenset({"name", "auto_advance", "round_time_limit"})
_BEFORE_START = frozenset(
    {
        "swiss_rounds",
        "cut_size",
        "advance_per_table",
        "final_table_size",
        "allow_three",
        "bye_policy",
        "seat_order",
    }
)


def _check_choices(kind: str, bye_policy: str, seat_order: str, seeding: str) -> None:
    for field, value, choices in (
        ("kind", kind, Stage.Kind.values),
        ("bye_policy", bye_policy, Stage.ByePolicy.values),
        ("seat_order", seat_order, Stage.SeatOrder.values),
        ("seeding", seeding, Stage.Seeding.values),
    ):
        if value not in choices:
            raise ApplicationError(
                _("%(field)s must be one of %(choices)s.")
                % {"field": field, "choices": ", ".join(choices)},
                code="bad_choice",
                fields={field: [_("One of %(choices)s.") % {"choices": ", ".join(choices)}]},
            )


def _check_ranges(values: Mapping[str, Any]) -> None:
    """The stage numbers given (``None``: not set) within their ranges, else a 400 naming the
    field and its limit: a value past its column was a 500 (an overflow on SQLite, a
    DataError on PostgreSQL). Only the values given are checked, so a stored value from
    before a limit existed does not block changing something else."""
    limits: dict[str, tuple[int | None, int, str]] = {
        "swiss_rounds": (
            1,
            SWISS_ROUNDS_MAX,
            _("Rounds: from 1 to %(max)s (T2)."),
        ),
        # Its least value (3 players, 2 partnerships) is _validate_config's (T6, T10).
        "cut_size": (
            None,
            CUT_SIZE_MAX,
            _("Cut: at most %(max)s (T6); leave it empty to let everyone through."),
        ),
        "round_time_limit": (
            1,
            TIME_LIMIT_MAX,
            _("Round time limit: from 1 to %(max)s minutes (T2, T3)."),
        ),
        "rng_seed": (0, RNG_SEED_MAX, _("Random seed: from 0 to %(max)s (T8).")),
    }
    for field, (low, high, text) in limits.items():
        value = values.get(field)
        if value is None:
            continue
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value > high
            or (low is not None and value < low)
        ):
            message = text % {"max": high}
            raise ApplicationError(message, code="out_of_range", fields={field: [message]})


def _validate_config(stage: Stage, previous: Stage | None) -> None:
    """Stage settings that the engine and RULES.md §11 require (400 naming the field)."""

    def bad(field: str, message: str, rule: str = "T6") -> ApplicationError:
        return ApplicationError(message, code="bad_stage", rule=rule, fields={field: [message]})

    if stage.pairs:  # T10: the cut and the final count partnerships
        validate_pairs_config(stage)
        return

    if stage.kind == Stage.Kind.QUALIFYING and (stage.swiss_rounds or 0) < 1:
        raise bad("swiss_rounds", "A qualifying stage plays at least one round (T2).", "T2")
    if stage.advance_per_table not in (1, 2):
        raise bad("advance_per_table", "The top 1 or 2 of a table advance (T6).")
    if stage.final_table_size not in (3, 4):
        raise bad("final_table_size", "The final table seats 4, or 3 (T6).")
    if stage.final_table_size == 3 and not stage.allow_three:
        raise bad("final_table_size", "A final of 3 needs 3-player tables allowed (T1).", "T1")
    if stage.cut_size is not None and stage.cut_size < 3:
        raise bad("cut_size", "A cut lets at least 3 players through, a table (T1, T6).")
    if previous is not None and previous.kind == Stage.Kind.KNOCKOUT:
        raise bad("kind", "A knockout stage ends at its final table: it is the last stage (T6).")
    if (
        stage.kind == Stage.Kind.KNOCKOUT
        and previous is not None
        and previous.cut_size is not None
        and previous.cut_size < stage.final_table_size
    ):
        # A cut of 3 is a final table of 3 (T6): name the setting that fixes it, not only
        # that 3 players cannot fill a table of 4 (user test).
        raise bad(
            "final_table_size",
            _(
                "Set the final table seats to %(cut)s: the cut of %(prev)s lets %(cut)s "
                "through, fewer than the final's %(size)s seats (T6)."
            )
            % {"cut": previous.cut_size, "prev": previous.name, "size": stage.final_table_size},
        )
    if (
        stage.kind == Stage.Kind.KNOCKOUT
        and previous is not None
        and previous.cut_size is not None
        and previous.cut_size != stage.final_table_size
    ):
        _check_knockout(stage, previous.cut_size)


@transaction.atomic
def stage_create(
    *,
    tournament: Tournament,
    actor: Actor,
    name: str,
    kind: str,
    swiss_rounds: int | None = None,
    cut_size: int | None = None,
    advance_per_table: int = 1,
    final_table_size: int = 4,
    allow_three: bool = True,
    bye_policy: str = Stage.ByePolicy.WIN,
    seat_order: str = Stage.SeatOrder.BALANCED,
    seeding: str = Stage.Seeding.RATING,
    rng_seed: int | None = None,
    auto_advance: bool = False,
    round_time_limit: int | None = None,
) -> Stage:
    """Append a stage to the tournament's format (numbered 1, 2, ...).

    Stage 1 is seeded from the checked-in entries (:func:`stage_seed`); every later stage is
    seeded by the previous stage's advancement when that stage ends (T6), or at once when the
    previous stage is a qualifying stage that already ended (T6: the last stage is a final
    table, so a qualifying stage never ends the event). A knockout stage is always the last
    one: after it has finished, the tournament is over and nothing can be added.
    ``rng_seed`` is recorded (random by default) so every seating of the stage replays (T8).
    ``auto_advance`` is off unless asked for, as on the page and in the API: each next round
    waits for the director's preview and publish.
    """
    require_director_or_system(actor, tournament.pk)
    _check_choices(kind, bye_policy, seat_order, seeding)
    _check_ranges(
        {
            "swiss_rounds": swiss_rounds,
            "cut_size": cut_size,
            "round_time_limit": round_time_limit,
            "rng_seed": rng_seed,
        }
    )
    last = Stage.objects.filter(tournament=tournament).order_by("-number").first()
    if last is not None:
        # Lock order of every bracket write: the stage, then the tournament row. Holding the
        # last stage means it cannot finish meanwhile without seeing the stage created here.
        stage_lock(last.pk)
    # The tournament row serialises stage numbers; a finished tournament was refused above
    # (require_director: read-only until reopened).
    Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
    previous = Stage.objects.filter(tournament=tournament).order_by("-number").first()
    seed_now = previous is not None and previous.status == Stage.Status.FINISHED
    if seed_now and previous is not None and previous.kind == Stage.Kind.KNOCKOUT:
        raise ApplicationError(
            _("%(stage)s played the final: the tournament is over, no stage can follow it (T6).")
            % {"stage": previous.name},
            code="previous_stage_finished",
            rule="T6",
        )
    stage = Stage(
        tournament=tournament,
        number=(previous.number + 1) if previous else 1,
        name=name.strip() or f"Stage {(previous.number + 1) if previous else 1}",
        kind=kind,
        swiss_rounds=swiss_rounds if kind == Stage.Kind.QUALIFYING else None,
        cut_size=cut_size if kind == Stage.Kind.QUALIFYING else None,
        advance_per_table=advance_per_table,
        final_table_size=final_table_size,
        allow_three=allow_three,
        bye_policy=bye_policy,
        seat_order=seat_order,
        seeding=seeding if previous is None else Stage.Seeding.STANDINGS,
        rng_seed=rng_seed if rng_seed is not None else secrets.randbelow(2**31),
        auto_advance=auto_advance,
        round_time_limit=round_time_limit,
        pairs=tournament.entry_format == "pairs",  # T9
    )
    _validate_config(stage, previous)
    advanced: list[int] = []
    if seed_now and previous is not None:
        # T6: a qualifying stage is never the last one. It ended with no stage after it, so
        # the stage added now is seeded at once by its advancement, as stage_finish would have.
        advanced = finished_stage_advanced(previous)
        _check_advanced_field(stage, previous, len(advanced))
    stage.save()
    data: dict[str, Any] = {"number": stage.number, "kind": kind, "rng_seed": stage.rng_seed}
    if seed_now:
        next_stage_seed(stage, advanced)
        data["seeded_from"] = {"stage": previous.number if previous else None, "order": advanced}
    action_log_record_by_id(
        tournament_id=tournament.pk,
        actor=actor,
        verb="stage.create",
        target=stage,
        data=data,
    )
    tournament_notify(tournament.pk)
    return stage


@transaction.atomic
def stage_update(*, stage: Stage, actor: Actor, data: Mapping[str, Any]) -> Stage:
    """Change a stage's settings: name, auto-advance and time limit at any time; the format
    (rounds, cut, tables, byes, seat order) only before its first round is published."""
    require_director_or_system(actor, stage.tournament_id)
    stage = stage_lock(stage.pk)
    started = stage.rounds.exists() or stage.status == Stage.Status.FINISHED
    for key in data:
        if key not in _ANYTIME | _BEFORE_START:
            raise ApplicationError(
                _("%(field)s cannot be changed.") % {"field": key},
                code="read_only",
                fields={key: [_("Read-only.")]},
            )
        if key in _BEFORE_START and started:
            raise ApplicationError(
                _("%(field)s cannot change once the stage has started.") % {"field": key},
                code="stage_started",
                fields={key: [_("The stage has started.")]},
            )
        setattr(stage, key, data[key])
    _check_ranges(data)
    _check_choices(stage.kind, stage.bye_policy, stage.seat_order, stage.seeding)
    previous = Stage.objects.filter(
        tournament_id=stage.tournament_id, number=stage.number - 1
    ).first()
    _validate_config(stage, previous)
    stage.save()
    action_log_record_by_id(
        tournament_id=stage.tournament_id,
        actor=actor,
        verb="stage.update",
        target=stage,
        data=dict(data.items()),
    )
    tournament_notify(stage.tournament_id)
    return stage


def _check_knockout(stage: Stage, n: int) -> None:
    """``n`` players can play down to the stage's final table (T6), else a clear 400."""
    try:
        plan_knockout(
            n,
            per_table=stage.advance_per_table,
            final_size=stage.final_table_size,
            allow_three=stage.allow_three,
        )
    except BracketError as exc:
        raise bracket_error(exc) from exc


def _check_advanced_field(stage: Stage, previous: Stage, n: int) -> None:
    """The finished ``previous`` stage sent ``n`` entrants on: ``stage`` must seat them
    (T1, T6; T9, T10 over partnerships), else a clear 400 and nothing changes."""
    if stage.pairs:
        partnerships = n // 2
        if n % 2 or partnerships < 2:
            message = ngettext(
                "%(stage)s sent %(count)s partnership on: a table seats two (T9, T10).",
                "%(stage)s sent %(count)s partnerships on: a table seats two (T9, T10).",
                partnerships,
            ) % {"stage": previous.name, "count": partnerships}
            raise ApplicationError(
                message, code="field_too_small", rule="T10", fields={"kind": [message]}
            )
        return
    if n == 0:
        raise ApplicationError(
            _("%(stage)s sent nobody on: there is no one to seed (T6).") % {"stage": previous.name},
            code="field_too_small",
            rule="T6",
        )
    _check_field(stage, n)


def _check_field(stage: Stage, n: int) -> None:
    """A field too small to seat is a clear 400, not a crash (T1, T6)."""
    if stage.kind != Stage.Kind.QUALIFYING:
        if n != stage.final_table_size:
            _check_knockout(stage, n)
        return
    try:
        plan_tables(n, allow_three=stage.allow_three)
    except BracketError as exc:
        raise bracket_error(exc) from exc


@transaction.atomic
def stage_seed(
    *,
    stage: Stage,
    actor: Actor,
    method: str | None = None,
    order: Sequence[int] | None = None,
    rng_seed: int | None = None,
) -> Stage:
    """Seed the first stage from the tournament's active, checked-in entries (T8).

    ``method``: ``rating`` (highest first, ties by entry id), ``manual`` (``order`` = entry ids
    best first; without it the entries' own seeds), ``random`` (from ``rng_seed``, recorded;
    default the stage's seed). May be repeated until the first round is published.
    """
    require_director_or_system(actor, stage.tournament_id)
    stage = stage_lock(stage.pk)
    if stage.number != 1:
        raise ApplicationError(
            _("Later stages are seeded by the previous stage's advancement (T6); reorder instead."),
            code="seeded_by_advancement",
        )
    if stage.rounds.exists():
        raise ApplicationError(_("The stage has started."), code="stage_started")
    method = method or stage.seeding
    _check_choices(stage.kind, stage.bye_policy, stage.seat_order, method)
    _check_ranges({"rng_seed": rng_seed})
    if Tournament.objects.filter(pk=stage.tournament_id, entry_format="pairs").exists():
        # T9: a pairs event seeds partnerships.
        return stage_seed_pairs(
            stage=stage, actor=actor, method=method, order=order, rng_seed=rng_seed
        )
    entries = list(
        Entry.objects.filter(
            tournament_id=stage.tournament_id, status=Entry.Status.ACTIVE, checked_in=True
        )
        .select_related("player")
        .order_by("id")
    )
    if not entries:
        # "0 players cannot form a table" named the table rule for what is a missing step.
        message = _("No player is checked in yet: check players in before seeding (T8).")
        raise ApplicationError(
            message, code="field_too_small", rule="T8", fields={"players": [message]}
        )
    ids = [e.pk for e in entries]
    if order is None:
        order = [e.pk for e in sorted(entries, key=lambda e: (e.seed is None, e.seed, e.pk))]

    def by_rating() -> tuple[int, ...]:
        ratings = seeding_ratings(player_ids=[e.player_id for e in entries])
        return seed_by_rating(Entrant(e.pk, ratings.get(e.player_id, 0.0)) for e in entries)

    ordered = first_stage_order(
        stage,
        ids,
        method,
        by_rating=by_rating,
        order=order,
        rng_seed=rng_seed,
        names=lambda wrong: entry_names(tournament_id=stage.tournament_id, entry_ids=wrong),
    )
    _check_field(stage, len(ordered))
    stage.entrants.all().delete()
    StageEntry.objects.bulk_create(
        [StageEntry(stage=stage, entry_id=p, seed=i + 1) for i, p in enumerate(ordered)]
    )
    stage.seeding = method
    stage.status = Stage.Status.SEEDED
    stage.save(update_fields=["seeding", "status", "rng_seed", "updated_at"])
    action_log_record_by_id(
        tournament_id=stage.tournament_id,
        actor=actor,
        verb="stage.seed",
        target=stage,
        data={"method": method, "order": list(ordered), "rng_seed": stage.rng_seed},
    )
    tournament_notify(stage.tournament_id)
    return stage


def entry_names(*, tournament_id: int, entry_ids: Sequence[int]) -> dict[int, str]:
    """The player names of the tournament's entries among ``entry_ids`` (others left out)."""
    return dict(
        Entry.objects.filter(tournament_id=tournament_id, pk__in=list(entry_ids)).values_list(
            "pk", "player__name"
        )
    )


def _partners_together(
    stage: Stage, current: Sequence[int], ordered: Sequence[int]
) -> tuple[int, ...]:
    """A pairs stage's seed order keeps partners side by side (T9: partnerships are seeded,
    seeds 2k+1 and 2k+2): each partnership takes the place of its first player in
    ``ordered``, its players in their current order."""
    unit = partnership_of_entries(tournament_id=stage.tournament_id)
    members: dict[int, list[int]] = {}
    for entry_id in current:
        members.setdefault(unit.get(entry_id, -entry_id), []).append(entry_id)
    out: list[int] = []
    for entry_id in ordered:
        key = unit.get(entry_id, -entry_id)
        if entry_id not in out:
            out.extend(e for e in members[key] if e not in out)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class SeedReorderResult:
    """What :func:`stage_seed_reorder` did: the stage, and whether its seed order changed
    (the order it already had saves and logs nothing)."""

    stage: Stage
    changed: bool


@transaction.atomic
def stage_seed_reorder(
    *, stage: Stage, actor: Actor, order: Sequence[int], reason: str = ""
) -> SeedReorderResult:
    """Set a new seed order (entry ids, best first) before the stage's first round (T8).
    The order the stage already has changes and logs nothing (``changed`` is False)."""
    require_director_or_system(actor, stage.tournament_id)
    stage = stage_lock(stage.pk)
    if stage.rounds.exists():
        raise ApplicationError(_("The stage has started."), code="stage_started")
    current = list(
        StageEntry.objects.filter(stage=stage).order_by("seed").values_list("entry_id", flat=True)
    )
    try:
        ordered = seed_manual(current, list(order))
    except BracketError as exc:
        names = entry_names(tournament_id=stage.tournament_id, entry_ids=exc.players)
        raise seed_order_error(exc, names) from exc
    if stage.pairs:
        ordered = _partners_together(stage, current, ordered)
    if list(ordered) == current:
        # The order as it is (the list saved again untouched): nothing to write, and no
        # "Seed order changed" entry whose before and after are the same.
        return SeedReorderResult(stage=stage, changed=False)
    # One UPDATE; the (stage, seed) unique constraint is deferred to commit.
    StageEntry.objects.filter(stage=stage).update(
        seed=Case(
            *[When(entry_id=p, then=Value(i + 1)) for i, p in enumerate(ordered)],
            output_field=IntegerField(),
        ),
        updated_at=timezone.now(),
    )
    action_log_record_by_id(
        tournament_id=stage.tournament_id,
        actor=actor,
        verb="stage.reorder",
        target=stage,
        reason=reason,
        data={"before": current, "after": list(ordered)},
    )
    tournament_notify(stage.tournament_id)
    return SeedReorderResult(stage=stage, changed=True)


def stage_advance(*, stage: Stage, actor: Actor) -> AdvanceResult:
    """The director ends a complete stage: places, who goes on, the next stage's seeding (T6).

    Only when the stage's last round (or play-off) is done and nothing else is to be played;
    otherwise 400 saying what comes next. The next stage's first round is published too if
    that stage auto-advances.
    """
    require_director_or_system(actor, stage.tournament_id)
    step = round_preview(stage=stage, actor=actor)
    if step.action != FINISH_STAGE or step.follows_round_id is None:
        raise ApplicationError(
            _("The stage is not complete: %(reason)s") % {"reason": step.message},
            code="stage_not_complete",
        )
    return round_advance(round_id=step.follows_round_id, actor=actor)
