"""What comes next in a stage, computed from a loaded :class:`StageData` (no database).

The manager half of Tabbycat's pattern: the services load a stage into plain dataclasses
(:func:`brackets.selectors.stage_data`), :func:`next_step_plan` maps the stage settings to engine
options, runs the engine and returns a :class:`NextStep`; the services store it. Because the
plan is a pure function of the stored data and the recorded seeds, a preview shows exactly what
a publish will store (as long as nothing changes in between).

Steps, per stage kind (RULES.md §11):

* qualifying: round 1 from the seeding by snake order (T8), rounds 2..R Swiss-style (T8), then
  the cut (T6) — a play-off table for players level on the line, or the end of the stage;
* knockout: rounds of per-table advancement planned by :func:`plan_knockout` from the current
  field (T6, T1, no byes), play-off tables on the line, then the final table; the stage ends when
  the final is played. Eliminated players' places are absolute within the stage.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from brackets.engine import (
    Advancement,
    BracketError,
    ByePolicy,
    Entrant,
    History,
    Placement,
    SeatOrder,
    StageConfig,
    advance_per_table,
    final_table_places,
    order_seats,
    plan_knockout,
    reseat_swiss,
    seat_seeded,
    standings_places,
)
from brackets.models import Round, Stage, StageEntry
from brackets.selectors import (
    EntrantData,
    RoundData,
    StageData,
    cut_advancement,
    fold_playoffs,
    round_records,
    stage_standings,
    standings_from_data,
)
from brackets.services.steps import (
    FINISH_STAGE,
    FINISHED,
    PUBLISH_ROUND,
    WAIT,
    NextStep,
    PlayoffSeating,
    PlayoffTable,
    SeatedTable,
    byes_text,
    stage_complete_message,
    tables_text,
)

__all__ = ["FINISHED", "FINISH_STAGE", "PUBLISH_ROUND", "WAIT", "NextStep", "SeatedTable"]


def stage_config(data: StageData) -> StageConfig:
    return StageConfig(
        allow_three=data.allow_three,
        bye_policy=ByePolicy(data.bye_policy),
        seat_order=SeatOrder(data.seat_order),
    )


def round_seed(data: StageData, number: int) -> int:
    """The recorded seed of round ``number``: replayable from the stage's seed (STYLE.md §1)."""
    return data.rng_seed * 1000 + number


def next_step_plan(data: StageData) -> NextStep:
    """The next step of a stage. Raises :class:`BracketError` when the engine cannot seat it."""
    if data.status == Stage.Status.FINISHED:
        return NextStep(FINISHED, _("%(stage)s is finished.") % {"stage": data.name})
    if data.status == Stage.Status.PENDING:
        if data.number > 1:  # T6: seeded by the advancement of the stage before it
            return NextStep(
                WAIT,
                _("%(stage)s has no entrants yet: it is seeded when the stage before it ends (T6).")
                % {"stage": data.name},
            )
        return NextStep(
            WAIT, _("%(stage)s has no entrants yet: seed it first (T8).") % {"stage": data.name}
        )
    last = data.last_round
    if last is not None and last.status == Round.Status.PUBLISHED:
        # A play-off table or the final is no round of the stage's plan (user test: "Round 3
        # is in play" in a stage of one round): named by what it is (T6).
        if last.kind == Round.Kind.PLAYOFF:
            waiting = _("The play-off table is in play: it closes when its last match ends.")
        elif last.kind == Round.Kind.FINAL:
            waiting = _("The final is in play: it closes when its last match ends.")
        else:
            waiting = _("Round %(number)s is in play: it closes when its last match ends.") % {
                "number": last.number
            }
        return NextStep(WAIT, waiting, follows_round_id=None)
    if data.pairs is not None:  # T9: a pairs stage seats partnerships
        from brackets.services.pairs_planning import plan_pairs_next

        return plan_pairs_next(data)
    if data.kind == Stage.Kind.QUALIFYING:
        return _plan_qualifying(data, last)
    return _plan_knockout(data, last)


# -- qualifying -----------------------------------------------------------------------------


def _active(data: StageData, number: int | None = None) -> list[EntrantData]:
    return [e for e in data.entrants if e.active and (number is None or e.joined_round <= number)]


def _plan_qualifying(data: StageData, last: RoundData | None) -> NextStep:
    swiss = [r for r in data.rounds if r.kind == Round.Kind.SWISS]
    total = data.swiss_rounds or 1
    follows = last.id if last is not None else None
    if len(swiss) < total:
        number = len(data.rounds) + 1
        active = _active(data, number)
        seed = round_seed(data, number)
        rng = random.Random(seed)
        config = stage_config(data)
        if not swiss:
            seating = seat_seeded([e.entry_id for e in active], config, rng=rng)  # T8 snake
        else:
            standings = standings_from_data(data)
            history = History.from_seatings(r.seating() for r in swiss)
            seating = reseat_swiss(
                [Entrant(e.entry_id, float(e.rating or 0), e.club or None) for e in active],
                records=standings.records(),
                history=history,
                config=config,
                rng=rng,
            )
        return NextStep(
            PUBLISH_ROUND,
            _("Round %(number)s of %(total)s: %(tables)s, %(byes)s.")
            % {
                "number": number,
                "total": total,
                "tables": tables_text(len(seating.tables)),
                "byes": byes_text(len(seating.byes)),
            },
            follows_round_id=follows,
            round_number=number,
            round_kind=Round.Kind.SWISS,
            seating=seating,
            rng_seed=seed,
        )
    # The cut (T6): over the active players only, so a withdrawn player never goes through.
    assert last is not None
    active_ids = [e.entry_id for e in _active(data)]
    adv = cut_advancement(data)  # the line the live standings show too
    if not active_ids or adv is None:
        raise BracketError(
            code="field_too_small", rule="T6", message="Nobody is left to advance (T6)."
        )
    # Played-out play-off tables are folded in already (T6); players still level after
    # them (a shared placing, T3, or one placing at two tables) play a further table.
    if adv.playoff is not None:
        return _playoff_step(data, last, adv)
    return _finish_step(data, last, adv, out_round=swiss[-1].number)


# -- knockout -------------------------------------------------------------------------------


def _plan_knockout(data: StageData, last: RoundData | None) -> NextStep:
    if last is None:
        survivors = [e.entry_id for e in _active(data)]
        return _knockout_round(data, survivors, number=1, follows=None, eliminated=(), out=None)
    if last.kind == Round.Kind.FINAL:
        # The final's result (its continuation's after a forfeit, T7), then the stage's
        # standings for players level at it (T5); seed order never decides a place (T3).
        places = final_table_places(
            round_records(last),
            stage_standings(data),
            players=[s.entry_id for t in last.tables for s in t.seats],
        )
        return NextStep(
            FINISH_STAGE,
            _("The final table is played: %(stage)s is complete.") % {"stage": data.name},
            follows_round_id=last.id,
            eliminated=places,
            out_round=last.number,
            advanced=(),
        )
    base = _last_knockout_round(data)
    adv = _knockout_advancement(data, base)
    adv = fold_playoffs(adv, data, after=base.number)  # each play-off table in turn (T6)
    if adv.playoff is not None:
        # Players below the line are out now, not once the play-off is played: they take
        # their places (after the play-off's players) and spectators see them out (T6).
        return _playoff_step(data, last, adv, eliminated=adv.eliminated, out=base.number)
    seed_of = {e.entry_id: e.seed for e in data.entrants}
    survivors = sorted(adv.advanced, key=lambda p: seed_of[p])  # current seed (issue text)
    return _knockout_round(
        data,
        survivors,
        number=last.number + 1,
        follows=last.id,
        eliminated=adv.eliminated,
        out=base.number,
    )


def _last_knockout_round(data: StageData) -> RoundData:
    for r in reversed(data.rounds):
        if r.kind == Round.Kind.KNOCKOUT:
            return r
    raise BracketError(code="no_round", rule="T6", message="No knockout round was played (T6).")


def _knockout_advancement(data: StageData, rnd: RoundData) -> Advancement:
    """Top k of each table plus the best others to the round's target field (T6)."""
    active = {e.entry_id for e in _active(data)}
    players = [p for p in rnd.players() if p in active]
    standings = standings_from_data(data, players=players)
    records = [r for r in round_records(rnd) if r.player_id in active]
    target = min(rnd.advancing or len(players), len(players))
    return advance_per_table(
        records,
        standings,
        per_table=data.advance_per_table,
        target=max(target, 0),
        byes=[p for p in rnd.byes if p in active],
        bye_policy=ByePolicy(data.bye_policy),
    )


def _knockout_round(
    data: StageData,
    survivors: Sequence[int],
    *,
    number: int,
    follows: int | None,
    eliminated: tuple[Placement, ...],
    out: int | None,
) -> NextStep:
    """Seat the survivors by current seed (snake, T8): the final table or a knockout round."""
    seed = round_seed(data, number)
    rng = random.Random(seed)
    config = stage_config(data)
    n = len(survivors)
    if n == data.final_table_size:
        seating = seat_seeded(list(survivors), config, rng=rng)
        return NextStep(
            PUBLISH_ROUND,
            _("The final table of %(n)s plays to the target (T6).") % {"n": n},
            follows_round_id=follows,
            round_number=number,
            round_kind=Round.Kind.FINAL,
            seating=seating,
            rng_seed=seed,
            eliminated=eliminated,
            out_round=out,
        )
    plan = plan_knockout(
        n,
        per_table=data.advance_per_table,
        final_size=data.final_table_size,
        allow_three=data.allow_three,
    )
    first = plan.rounds[0]
    seating = seat_seeded(list(survivors), config, rng=rng)
    return NextStep(
        PUBLISH_ROUND,
        (
            _(
                "Knockout round of %(n)s: %(tables)s, top %(per_table)s of each table plus "
                "%(fill)s go on (%(advancing)s; %(rounds)s to the final table)."
            )
            if first.fill
            else _(
                "Knockout round of %(n)s: %(tables)s, top %(per_table)s of each table go on "
                "(%(advancing)s; %(rounds)s to the final table)."
            )
        )
        % {
            "n": n,
            "tables": tables_text(first.tables),
            "per_table": first.per_table,
            "fill": ngettext("%(n)s best other", "%(n)s best others", first.fill)
            % {"n": first.fill},
            "advancing": ngettext("%(n)s player", "%(n)s players", first.advancing)
            % {"n": first.advancing},
            "rounds": ngettext("%(n)s round", "%(n)s rounds", len(plan.rounds))
            % {"n": len(plan.rounds)},
        },
        follows_round_id=follows,
        round_number=number,
        round_kind=Round.Kind.KNOCKOUT,
        seating=seating,
        advancing=first.advancing,
        rng_seed=seed,
        eliminated=eliminated,
        out_round=out,
        extra={"plan": [r.players for r in plan.rounds] + [plan.final_size]},
    )


# -- play-offs and the end of a stage -------------------------------------------------------


def playoff_sizes(n: int) -> list[int]:
    """Tables for ``n`` (>= 2) play-off players: as few as possible, sizes as even as possible.

    Play-off tables may seat 2 (R2 deals for two): a tie on the line is often between two.
    """
    tables = -(-n // 4)
    base, extra = divmod(n, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def _playoff_step(
    data: StageData,
    last: RoundData,
    adv: Advancement,
    *,
    eliminated: tuple[Placement, ...] = (),
    out: int | None = None,
) -> NextStep:
    assert adv.playoff is not None
    number = last.number + 1
    seed = round_seed(data, number)
    rng = random.Random(seed)
    players = list(adv.playoff.players)
    groups: list[list[int]] = [[] for _ in playoff_sizes(len(players))]
    sizes = playoff_sizes(len(players))
    # Snake over the tables in standings order, like a seeded round (T8).
    row, i = 0, 0
    while i < len(players):
        order = range(len(groups)) if row % 2 == 0 else range(len(groups) - 1, -1, -1)
        for t in order:
            if i < len(players) and len(groups[t]) < sizes[t]:
                groups[t].append(players[i])
                i += 1
        row += 1
    tables = tuple(
        PlayoffTable(number=k + 1, seats=order_seats(g, history=History.empty(), rng=rng))
        for k, g in enumerate(groups)
    )
    words = {"players": len(players), "spots": adv.playoff.spots}
    if last.kind == Round.Kind.PLAYOFF and set(players) <= set(last.players()):
        # The play-off just played left them level (T3): say why there is another table.
        message = ngettext(
            "Further play-off (T3, T6): the play-off left %(players)s players level on the "
            "advancement line; they play again for %(spots)s place. Seed order never decides.",
            "Further play-off (T3, T6): the play-off left %(players)s players level on the "
            "advancement line; they play again for %(spots)s places. Seed order never decides.",
            adv.playoff.spots,
        )
    else:
        message = ngettext(
            "Play-off (T6): %(players)s players level on the advancement line play for "
            "%(spots)s place.",
            "Play-off (T6): %(players)s players level on the advancement line play for "
            "%(spots)s places.",
            adv.playoff.spots,
        )
    return NextStep(
        PUBLISH_ROUND,
        message % words,
        follows_round_id=last.id,
        round_number=number,
        round_kind=Round.Kind.PLAYOFF,
        seating=PlayoffSeating(tables=tables),
        advancing=adv.playoff.spots,
        playoff_players=tuple(players),
        rng_seed=seed,
        eliminated=eliminated,
        out_round=out,
    )


def _finish_step(data: StageData, last: RoundData, adv: Advancement, *, out_round: int) -> NextStep:
    return NextStep(
        FINISH_STAGE,
        stage_complete_message(data.name, len(adv.advanced), len(adv.eliminated)),
        follows_round_id=last.id,
        eliminated=adv.eliminated,
        out_round=out_round,
        advanced=adv.advanced,
    )


def withdrawn_places(data: StageData, placed: int) -> list[Placement]:
    """Places for withdrawn entrants (T7) after the ``placed`` players still in: who went
    further first, then the stage's standings (T5); withdrawn players level on both share a
    place, and seed order never decides one (T3). These are the ranks the standings give them
    (:meth:`StageData.withdrawn`), so every page shows the same place."""
    absent = data.absent()  # never played: no place (StageData.absent)
    todo = {
        e.entry_id
        for e in data.entrants
        if e.status == StageEntry.Status.WITHDRAWN
        and e.placing is None
        and e.entry_id not in absent
    }
    rows = [r for r in stage_standings(data).rows if r.player_id in todo]
    return list(standings_places(rows, placed + 1))
