"""What comes next in a pairs stage (T9, T10), computed from a loaded :class:`StageData`.

The partnership twin of :mod:`brackets.services.planning`: :func:`next_step_plan` hands a stage with
``pairs`` data to :func:`plan_pairs_next`, which returns the same :class:`NextStep` so the
services store, close and advance pairs rounds exactly like individual ones (locks, the
done-marker, the reconciliation sweep). What differs:

* the unit is the partnership: seeds, records, byes and places are per partnership, and a
  step's places and advancing list name both players of each partnership (stage entries are
  per player, so the next stage is seeded partner by partner, in partnership order);
* qualifying rounds seat two partnerships per table, partners opposite, round 1 by snake seed
  order and later rounds Swiss-style (:func:`brackets.engine.pairs.reseat_pairs`);
* the cut follows T6 over partnerships (T10), with play-off tables of two partnerships for
  those level on the line; a knockout stage plays rounds of two partnerships per table where
  the table's winner goes on (the top seed takes the bye of an odd field, T1) until two
  partnerships are left, who play the final (T10).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from brackets.engine import (
    Advancement,
    BracketError,
    Placement,
    standings_places,
)
from brackets.engine.pairs import (
    PairHistory,
    PairSeating,
    reseat_pairs,
    seat_pairs_knockout,
    seat_pairs_seeded,
)
from brackets.models import Round
from brackets.selectors.pairs import (
    pair_cut_advancement,
    pair_standings_from_data,
    pairs_of,
    pairs_withdrawn,
    round_pairs,
    stage_pairs,
    table_sides,
    table_winner,
)
from brackets.selectors.stage_data import RoundData, StageData
from brackets.services.steps import (
    FINISH_STAGE,
    PUBLISH_ROUND,
    NextStep,
    byes_text,
    stage_complete_message,
    tables_text,
)


def _members(data: StageData, pair_ids: Sequence[int]) -> tuple[int, ...]:
    """Both players of each partnership, partnership by partnership (stage entries)."""
    pd = pairs_of(data)
    entrants = {e.entry_id for e in data.entrants}
    return tuple(p for pid in pair_ids for p in pd.pair(pid).players if p in entrants)


def _member_places(data: StageData, places: Sequence[Placement]) -> tuple[Placement, ...]:
    pd = pairs_of(data)
    entrants = {e.entry_id for e in data.entrants}
    return tuple(
        Placement(p, pl.place)
        for pl in places
        for p in pd.pair(pl.player_id).players
        if p in entrants
    )


def _step(
    data: StageData,
    *,
    number: int,
    kind: str,
    seating: PairSeating,
    message: str,
    follows: int | None,
    seed: int,
    advancing: int | None = None,
    playoff: tuple[int, ...] = (),
    eliminated: tuple[Placement, ...] = (),
    out_round: int | None = None,
) -> NextStep:
    return NextStep(
        PUBLISH_ROUND,
        message,
        follows_round_id=follows,
        round_number=number,
        round_kind=kind,
        seating=seating,
        advancing=advancing,
        playoff_players=_members(data, playoff),
        rng_seed=seed,
        eliminated=eliminated,
        out_round=out_round,
    )


def plan_pairs_next(data: StageData) -> NextStep:
    """The next step of a pairs stage that is seeded and has no round in play (T9, T10).

    Returns a :class:`brackets.services.steps.NextStep`; raises :class:`BracketError`
    when the field cannot be seated or a knockout table has no winner (T3: the director
    orders a sudden-death hand).
    """
    last = data.last_round
    if data.kind == "qualifying":
        return _plan_qualifying(data, last)
    return _plan_knockout(data, last)


def _seed(data: StageData, number: int) -> int:
    return data.rng_seed * 1000 + number


def _plan_qualifying(data: StageData, last: RoundData | None) -> NextStep:
    pd = pairs_of(data)
    swiss = [r for r in data.rounds if r.kind == Round.Kind.SWISS]
    total = data.swiss_rounds or 1
    follows = last.id if last is not None else None
    active = [p for p in stage_pairs(data) if p.active]
    if len(swiss) < total:
        number = len(data.rounds) + 1
        seed = _seed(data, number)
        if not swiss:
            seating = seat_pairs_seeded([p.pair for p in active], round_number=number)
        else:
            standings = pair_standings_from_data(data)
            history = PairHistory.from_rounds(round_pairs(pd, r) for r in swiss)
            seating = reseat_pairs(
                [p.pair for p in active],
                wins={r.pair_id: r.match_wins for r in standings.rows},
                hands={r.pair_id: r.hands_won for r in standings.rows},
                history=history,
                rng=random.Random(seed),
                round_number=number,
            )
        return _step(
            data,
            number=number,
            kind=Round.Kind.SWISS,
            seating=seating,
            message=_("Round %(number)s of %(total)s: %(tables)s, %(byes)s (T9).")
            % {
                "number": number,
                "total": total,
                "tables": tables_text(len(seating.tables), pairs=True),
                "byes": byes_text(len(seating.bye_pairs)),
            },
            follows=follows,
            seed=seed,
        )
    assert last is not None
    ids = [p.info.pair_id for p in active]
    if not ids:
        raise BracketError(
            code="field_too_small",
            rule="T10",
            message=_("No partnership is left to advance (T10)."),
        )
    adv = pair_cut_advancement(data, ids)  # play-offs folded in; the live line's too
    if adv.playoff is not None:
        return _playoff_step(data, last, adv)
    return _finish(data, last, adv.advanced, adv.eliminated, out_round=swiss[-1].number)


def _playoff_step(data: StageData, last: RoundData, adv: Advancement) -> NextStep:
    assert adv.playoff is not None
    number = last.number + 1
    by_id = {p.info.pair_id: p.pair for p in stage_pairs(data)}
    seating = seat_pairs_seeded([by_id[p] for p in adv.playoff.players], round_number=number)
    return _step(
        data,
        number=number,
        kind=Round.Kind.PLAYOFF,
        seating=seating,
        message=ngettext(
            "Play-off (T6, T10): %(pairs)s partnerships level on the line play for "
            "%(spots)s place.",
            "Play-off (T6, T10): %(pairs)s partnerships level on the line play for "
            "%(spots)s places.",
            adv.playoff.spots,
        )
        % {"pairs": len(adv.playoff.players), "spots": adv.playoff.spots},
        follows=last.id,
        seed=_seed(data, number),
        advancing=adv.playoff.spots,
        playoff=adv.playoff.players,
    )


def _finish(
    data: StageData,
    last: RoundData,
    advanced: Sequence[int],
    eliminated: Sequence[Placement],
    *,
    out_round: int,
) -> NextStep:
    return NextStep(
        FINISH_STAGE,
        stage_complete_message(data.name, len(advanced), len(eliminated), pairs=True),
        follows_round_id=last.id,
        eliminated=_member_places(data, eliminated),
        out_round=out_round,
        advanced=_members(data, advanced),
    )


def _plan_knockout(data: StageData, last: RoundData | None) -> NextStep:
    pd = pairs_of(data)
    pairs = stage_pairs(data)
    seed_of = {p.info.pair_id: p.seed for p in pairs}
    active = {p.info.pair_id for p in pairs if p.active}
    by_id = {p.info.pair_id: p.pair for p in pairs}
    if last is None:
        survivors = [p.info.pair_id for p in pairs if p.active]
        eliminated: tuple[Placement, ...] = ()
        number, follows, out = 1, None, None
    else:
        table = last.tables[0] if last.tables else None
        if last.kind == Round.Kind.FINAL:
            winner = table_winner(pd, table) if table else None
            sides = table_sides(pd, table) if table else None
            if winner is None or sides is None:
                raise _no_winner(last)
            loser = sides[1] if winner == sides[0] else sides[0]
            return _finish(
                data, last, (), (Placement(winner, 1), Placement(loser, 2)), out_round=last.number
            )
        winners: list[int] = []
        losers: list[int] = []
        for t in last.tables:
            sides = table_sides(pd, t)
            if sides is None:
                continue
            w = table_winner(pd, t)
            if w is None:
                raise _no_winner(last, t.table_number)
            winners.append(w)
            losers += [p for p in sides if p != w]
        winners += round_pairs(pd, last)[1]  # the bye goes through (T1)
        survivors = sorted((p for p in winners if p in active), key=lambda p: seed_of[p])
        place = len(survivors) + 1  # losers of a round share the place after the survivors
        eliminated = tuple(Placement(p, place) for p in losers)
        number, follows, out = last.number + 1, last.id, last.number
    if len(survivors) < 2:
        raise BracketError(
            code="field_too_small",
            rule="T10",
            message=ngettext(
                "%(n)s partnership left: a final needs two (T10).",
                "%(n)s partnerships left: a final needs two (T10).",
                len(survivors),
            )
            % {"n": len(survivors)},
        )
    field_ = [by_id[p] for p in survivors]
    if len(survivors) == 2:
        return _step(
            data,
            number=number,
            kind=Round.Kind.FINAL,
            seating=seat_pairs_seeded(field_, round_number=number),
            message=_("The final: one match between the top two partnerships (T10)."),
            follows=follows,
            seed=_seed(data, number),
            eliminated=_member_places(data, eliminated),
            out_round=out,
        )
    seating = seat_pairs_knockout(field_, round_number=number)
    going_on = len(seating.tables) + len(seating.bye_pairs)
    return _step(
        data,
        number=number,
        kind=Round.Kind.KNOCKOUT,
        seating=seating,
        message=_(
            "Knockout round of %(n)s: %(tables)s, each table's winner goes on (%(going_on)s, T10)."
        )
        % {
            "n": ngettext("%(n)s partnership", "%(n)s partnerships", len(survivors))
            % {"n": len(survivors)},
            "tables": tables_text(len(seating.tables)),
            "going_on": ngettext("%(n)s partnership", "%(n)s partnerships", going_on)
            % {"n": going_on},
        },
        follows=follows,
        seed=_seed(data, number),
        advancing=going_on,
        eliminated=_member_places(data, eliminated),
        out_round=out,
    )


def _no_winner(rnd: RoundData, table: int | None = None) -> BracketError:
    if table is not None:
        message = _(
            "Round %(number)s, table %(table)s ended level: play a sudden-death hand at the "
            "table and enter its winner with Override (placings), then advance (T3, T10)."
        ) % {"number": rnd.number, "table": table}
    else:
        message = _(
            "Round %(number)s, the final ended level: play a sudden-death hand at the table "
            "and enter its winner with Override (placings), then advance (T3, T10)."
        ) % {"number": rnd.number}
    return BracketError(code="no_winner", rule="T3", message=message)


def pairs_withdrawn_places(data: StageData) -> list[Placement]:
    """Places for withdrawn partnerships (T7 over partnerships, :func:`pairs_withdrawn`) not
    placed yet, after every other partnership of the stage: who went further first, then
    T10; partnerships level on both share a place and seed never decides one (T3), as for
    withdrawn players (:func:`brackets.services.planning.withdrawn_places`). These are the
    ranks the standings give them, so every page shows the same place; partners share it."""
    pd = pairs_of(data)
    by_entry = {e.entry_id: e for e in data.entrants}
    pairs = stage_pairs(data)
    todo = {
        p
        for p in pairs_withdrawn(data)
        if all(by_entry[x].placing is None for x in pd.pair(p).players if x in by_entry)
    }
    if not todo:
        return []
    placed = len(pairs) - len(todo)
    rows = [r for r in pair_standings_from_data(data).as_standings().rows if r.player_id in todo]
    return [
        Placement(x, place.place)
        for place in standings_places(rows, placed + 1)
        for x in pd.pair(place.player_id).players
        if x in by_entry
    ]
