"""Spectator documents of a pairs stage (T9, T10): standings of partnerships with their
players, and a bracket table's two partnerships, each named once (:func:`table_pairs_json`).

The same document shape as an individual stage's standings (``live.selectors``), with
``pairs: true`` and one row per partnership: ``pair_id``, ``name`` (the partnership's name or
its players), ``registered_name`` (the name alone, "" if none), ``players`` (entry id, name,
club), and T10's third key as ``third`` with ``third_key`` saying which it is
(``points_difference`` under pip scoring, ``six_loves_given`` otherwise); beside the keys,
``six_loves_received`` and ``forfeits`` (once per partnership, R46, T7), the partnership's
R35 statistics ``llaves``, ``ties`` and ``replays_won`` (R42, each event once, R46), and ``place``,
``status`` and ``outlook`` as an individual row has them
(:func:`brackets.selectors.pairs.pair_outcomes`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from brackets.models import Round, Stage
from brackets.selectors.pairs import (
    pair_cut_advancement,
    pair_final,
    pair_outcomes,
    pair_playoff_results,
    pair_seed,
    pair_standings_from_data,
    pairs_of,
    pairs_withdrawn,
    side_places,
    stage_pairs,
)
from brackets.selectors.stage_data import StageData, TableData
from live.cut_line import above_cut, cut_line_at
from scoring.models import Match
from scoring.presenters.partnership import SIDES
from tournament.partnerships import partnership_label

JSON = dict[str, Any]


def pair_json(pair_id: int, name: str, entry_ids: Sequence[int], names: Sequence[str]) -> JSON:
    """A partnership named once (T9): ``name`` is its label (registered name and both
    partners), ``registered_name`` the name alone ("" if none), ``players`` both partners."""
    return {
        "pair_id": pair_id,
        "name": partnership_label(name, names),
        "registered_name": name,
        "players": [{"entry_id": e, "name": n} for e, n in zip(entry_ids, names, strict=False)],
    }


def table_pairs_json(
    data: StageData,
    table: TableData,
    *,
    advanced: Callable[[int], bool | None],
    champion_pair_id: int | None = None,
) -> list[JSON]:
    """A pairs table's two partnerships, AC then BD, each named once by the players who sat
    there (T9, R42; T11: a substitute made since leaves a played table as it was,
    :class:`brackets.selectors.pair_roster.Roster`), with its place at the table: 1 and 2 (1
    and 1 when level, T3; ``None`` until finished), where both partners hold ``1, 3, 1, 3``
    (T4 over partnerships). ``[]`` for an individual stage. ``advanced``: the round's went-on
    mark (T6, T10)."""
    pd = data.pairs
    named = None if pd is None else pd.roster.table_pairs([s.entry_id for s in table.seats])
    if named is None:
        return []
    places = side_places(table.seats, finished=table.status == Match.Status.FINISHED)
    out: list[JSON] = []
    for k in (0, 1):
        mine = (table.seats[k], table.seats[k + 2])
        side = named[k]
        out.append(
            {
                **pair_json(side.pair_id, side.name, side.entry_ids, side.names),
                "letters": SIDES[k],
                "seats": [k, k + 2],
                "placing": places[k],
                "points": max(s.points for s in mine),
                "forfeited": any(s.forfeited for s in mine),
                "advanced": advanced(mine[0].entry_id),
                "champion": champion_pair_id is not None and champion_pair_id == side.pair_id,
            }
        )
    return out


def pairs_stage_standings(data: StageData, *, stage_json: JSON) -> JSON:
    """One pairs stage's standings in T10 order, the cut line and the final's result; the
    champion partnership is marked in both (``champion``), as an individual stage marks its
    champion (T10: a place is the partnership's, both partners share it)."""
    pairs = {p.info.pair_id: p for p in stage_pairs(data)}
    final = _final(data)
    champion = next((line["pair_id"] for line in final or () if line["champion"]), None)
    outcomes = pair_outcomes(data)
    standings = pair_standings_from_data(data, pairs=list(pairs), with_final=True)
    names = {e.entry_id: (e.name, e.club) for e in data.entrants}
    stage_over = data.status == Stage.Status.FINISHED
    cut = data.cut_size if data.kind == Stage.Kind.QUALIFYING else None
    rows: list[JSON] = []
    tie_groups: list[list[int]] = []
    group_of: dict[int, int] = {}
    # The cut line (T6 over partnerships, T10) as the pairs planner ends the stage: who plays
    # off, and the play-offs' results, which order the rows they settled (seed never, T3).
    active = [p for p, sp in pairs.items() if sp.active]
    line = pair_cut_advancement(data, active) if cut and not stage_over and active else None
    contested = set(line.playoff.players) if line is not None and line.playoff else set()
    played_key, played_off = pair_playoff_results(data)
    # Marked once the stage's own rounds are played, also while the play-off is played (T6).
    planned = data.plan_rounds()
    all_played = bool(data.swiss_rounds) and len(planned) >= (data.swiss_rounds or 0)
    all_played = all_played and all(r.complete for r in planned)
    ordered = sorted(standings.rows, key=lambda r: (r.rank, played_key.get(r.pair_id, [])))
    # Withdrawn partnerships (T7) rank after every partnership still in and take no place in
    # the cut. The line is drawn as an individual stage's (T6): under the cut-th partnership
    # still in, if one is below it, and never through a tie while rounds remain.
    gone = pairs_withdrawn(data)
    ranked = any(row.played for row in standings.rows)
    line_at = cut_line_at(
        [(row.pair_id, row.rank) for row in ordered],
        cut,
        counted={row.pair_id for row in ordered if row.pair_id not in gone},
        ranked=ranked,
        settled=all_played or stage_over,
    )
    for i, row in enumerate(ordered):
        info = pairs[row.pair_id].info
        tie_group = None
        if row.tied_with:
            tie_group = group_of.get(row.pair_id)
            if tie_group is None:
                tie_group = len(tie_groups)
                members = sorted({row.pair_id, *row.tied_with})
                tie_groups.append(members)
                group_of.update(dict.fromkeys(members, tie_group))
        rows.append(
            {
                "rank": row.rank,
                "pair_id": row.pair_id,
                "name": info.label,
                "registered_name": info.name,
                "players": [
                    {"entry_id": p, "name": names.get(p, (n, ""))[0], "club": c}
                    for p, n, c in zip(info.players, info.names, info.clubs, strict=False)
                ],
                "seed": pair_seed(pairs[row.pair_id].seed),
                **outcomes[row.pair_id],
                "played": row.played,
                "byes": row.byes,
                "bye_wins": data.bye_wins(row.byes),
                "match_wins": row.match_wins,
                "hands_won": row.hands_won,
                "third": row.third,
                "points_for": row.points_for,
                "points_against": row.points_against,
                "six_loves_given": row.six_loves_given,
                "six_loves_received": row.six_loves_received,
                "forfeits": row.forfeits,
                "llaves": row.llaves,
                "ties": row.ties,
                "replays_won": row.replays_won,
                "head_to_head": row.head_to_head,
                "decided_by": row.decided_by.value,
                "tie_group": tie_group,
                "active": pairs[row.pair_id].active,
                "champion": row.pair_id == champion,
                "above_cut": above_cut(i, row.rank, cut, line_at),
                "cut_after": line_at is not None and i == line_at,
                "playoff_on_line": all_played
                and row.pair_id in contested
                and row.pair_id not in played_off,
                "playoff_played": row.pair_id in played_off,
            }
        )
    return {
        "stage": stage_json,
        "pairs": True,
        "third_key": "points_difference" if standings.pip_scoring else "six_loves_given",
        "rounds_published": len(data.plan_rounds()),
        "rounds_complete": sum(1 for r in data.plan_rounds() if r.complete),
        "cut": cut,
        "rows": rows,
        "tie_groups": tie_groups,
        "final_table": final,
        "placed": False,  # partnerships rank by T10 keys; the final's result is shown on its own
        "rows_counted": any(r.kind in (Round.Kind.SWISS, Round.Kind.KNOCKOUT) for r in data.rounds),
        "ranked": ranked,  # as an individual stage
    }


def _final(data: StageData) -> list[JSON] | None:
    """The final's result, champion partnership first (T10), once it is finished; the winner
    is the champion once the stage is finished (the final is the event's last match)."""
    pd = pairs_of(data)
    stage_over = data.status == Stage.Status.FINISHED
    played = pair_final(data)
    if played is None:
        return None
    t, sides, winner = played
    order = sorted(sides, key=lambda p: p != winner)
    points = {sides[k]: max(s.points for i, s in enumerate(t.seats) if i % 2 == k) for k in (0, 1)}
    # Both partners who played the final, named with their partnership (T9), even one
    # replaced since (T11: no longer an entrant), in registered order (not the seats').
    players = {
        sides[k]: sorted(
            (s.entry_id for i, s in enumerate(t.seats) if i % 2 == k), key=pd.roster.slot
        )
        for k in (0, 1)
    }
    return [
        {
            "place": (1 if p == winner else 2) if winner is not None else None,
            "pair_id": p,
            "name": pd.pair(p).label,
            "registered_name": pd.pair(p).name,
            "players": [{"entry_id": e, "name": pd.roster.player(e)} for e in players[p]],
            "points": points[p],
            "champion": stage_over and winner is not None and p == winner,
        }
        for p in order
    ]
