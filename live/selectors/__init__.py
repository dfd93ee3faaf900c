"""What spectators read: tournament summary, live tables, standings, bracket, a player's results.

Fetch first, then compute (STYLE.md §2): every function here loads with a fixed number of
queries, whatever the number of players, tables or hands (asserted in tests/live for 8, 64
and 256 players), and returns plain JSON-able dicts. The same dicts feed the pages, the public
API and the projector. Results are cached per tournament version by :mod:`live.cache`; these
functions never cache anything themselves.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict
from typing import Any

from django.db.models import Q

from brackets.engine import Advancement, Tiebreak
from brackets.models import Round, RoundMatch, Stage, StageEntry
from brackets.selectors import (
    FINISHED,
    Placing,
    RoundData,
    SeatData,
    StageData,
    TableData,
    cut_advancement,
    playoff_decided,
    playoff_ordered,
    playoff_result,
    stage_data_for,
    stage_standings,
    tournament_placings,
    went_on,
)
from brackets.selectors.pair_roster import NamedPair, roster_for
from brackets.selectors.pairs import (
    PairPlacing,
    pairs_of_entries,
    pairs_placings,
    round_bye_pairs,
    stage_pairs,
)
from brackets.selectors.stage_data import counted_lines
from dominoes.records import unchecked
from live.cut_line import above_cut, cut_line_at
from live.outlook import WinBounds, cut_outlook
from live.pairs import pair_json, pairs_stage_standings, table_pairs_json
from live.selectors.matches import MatchJSON, hand_json, matches_json, round_link
from scoring.models import Hand, Match, Seat
from scoring.presenters.match import ruleset_of
from scoring.presenters.partnership import partnership_sides
from tournament.models import Entry, Tournament
from tournament.partnerships import is_pairs_event

JSON = dict[str, Any]


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


#: A match still to be played out: scheduled or in play.
OPEN_MATCH = frozenset({Match.Status.SCHEDULED, Match.Status.IN_PROGRESS})


def _round_json(rnd: Round, open_tables: int | None = None) -> JSON:
    """A round; ``open_tables`` (its tables not yet finished) where the document counts them:
    after time is called (T3) the tables the director kept going play on."""
    return {
        "id": rnd.pk,
        "stage_id": rnd.stage_id,
        "number": rnd.number,
        "kind": rnd.kind,
        "status": rnd.status,
        "time_limit": rnd.time_limit,
        "clock_started_at": _iso(rnd.clock_started_at),
        "clock_ends_at": _iso(rnd.clock_ends_at),
        "time_called_at": _iso(rnd.time_called_at),
        "open_tables": open_tables,
        # A pairs stage's round (T9): its final is one match between two partnerships (T10).
        "pairs": rnd.stage.pairs,
    }


def _stage_json(stage: Stage) -> JSON:
    return {
        "id": stage.pk,
        "number": stage.number,
        "name": stage.name,
        "kind": stage.kind,
        "status": stage.status,
        "swiss_rounds": stage.swiss_rounds,
        "cut_size": stage.cut_size,
        "advance_per_table": stage.advance_per_table,
        "final_table_size": stage.final_table_size,
        # A pairs stage (T9): its cut and field count partnerships, its final is one match
        # between two partnerships (T10).
        "pairs": stage.pairs,
    }


def current_rounds(*, tournament_id: int) -> list[Round]:
    """The rounds in play: every published round, or else the last round played (one query).

    Usually one round; a play-off table (T6) may run next to it.
    """
    rounds = list(
        Round.objects.filter(stage__tournament_id=tournament_id)
        .select_related("stage")
        .order_by("-stage__number", "-number")
        .only(
            "id",
            "stage_id",
            "stage__pairs",
            "number",
            "kind",
            "status",
            "time_limit",
            "clock_started_at",
            "time_called_at",
        )[:20]
    )
    published = [r for r in rounds if r.status == Round.Status.PUBLISHED]
    chosen = published or rounds[:1]
    return sorted(chosen, key=lambda r: (r.stage_id, r.number))


def tournament_summary(*, tournament: Tournament) -> JSON:
    """Home page data: status, stages, the current stage and round with its clock (4 queries)."""
    stages = list(Stage.objects.filter(tournament_id=tournament.pk).order_by("number"))
    rounds = current_rounds(tournament_id=tournament.pk)
    counts: dict[str, int] = defaultdict(int)
    open_in: dict[int, int] = defaultdict(int)
    open_matches: dict[str, list[int]] = {s: [] for s in sorted(OPEN_MATCH)}
    # A table is counted once: a forfeited match and its continuation (T7) share one table,
    # which is in play or finished as its latest match is (the round page counts the same way).
    table_status: dict[tuple[int, int], str] = {}
    if rounds:
        for match_id, round_id, status, table_number in (
            Match.objects.filter(round_link__round__in=rounds)
            .order_by("pk")
            .values_list("pk", "round_link__round_id", "status", "round_link__table_number")
        ):
            table_status[(round_id, table_number)] = status
            if status in OPEN_MATCH:
                open_in[round_id] += 1
                open_matches[status].append(match_id)
    for status in table_status.values():
        counts[status] += 1
    current_stage = None
    if rounds:
        current_stage = next((s for s in stages if s.pk == rounds[0].stage_id), None)
    elif stages:
        current_stage = next((s for s in stages if s.status == Stage.Status.RUNNING), stages[0])
    return {
        "tournament": {
            "id": tournament.pk,
            "slug": tournament.slug,
            "name": tournament.name,
            "venue": tournament.venue,
            "status": tournament.status,
            "starts_on": _iso(tournament.starts_on),
            "ends_on": _iso(tournament.ends_on),
            "version": tournament.version,
        },
        "stages": [_stage_json(s) for s in stages],
        "current_stage": None if current_stage is None else _stage_json(current_stage),
        "current_rounds": [_round_json(r, open_in[r.pk]) for r in rounds],
        "tables": {
            "total": sum(counts.values()),
            "in_progress": counts[Match.Status.IN_PROGRESS],
            "finished": counts[Match.Status.FINISHED],
        },
        # The tables of the current round(s) not finished yet, by status: live pages re-fetch
        # when an event shows a match in another status (started, finished, reopened).
        "open_matches": open_matches,
    }


def live_tables(*, tournament: Tournament) -> JSON:
    """Every table of the current round(s), in table order (five queries)."""
    rounds = current_rounds(tournament_id=tournament.pk)
    links = list(
        RoundMatch.objects.filter(round__in=rounds)
        .select_related("match__table", "round__stage")
        .order_by("round__stage_id", "round__number", "table_number")
    )
    matches = []
    open_in: dict[int, int] = defaultdict(int)
    for link in links:
        match = link.match
        match.round_link = link  # no second query per match
        matches.append(match)
        if match.status in OPEN_MATCH:
            open_in[link.round_id] += 1
    return {
        "tournament_version": tournament.version,
        "rounds": [_round_json(r, open_in[r.pk]) for r in rounds],
        "tables": matches_json(matches),
    }


# --- standings -----------------------------------------------------------------------------


def _win_bounds(data: StageData, rows: Any) -> list[WinBounds]:
    """Min and max match wins of every entrant (see :mod:`live.outlook`)."""
    future = max((data.swiss_rounds or 0) - len(data.rounds), 0)
    open_match: dict[int, int] = defaultdict(int)
    for rnd in data.rounds:
        if rnd.kind not in (Round.Kind.SWISS, Round.Kind.KNOCKOUT):
            continue
        for table in rnd.tables:
            if table.done:
                continue
            for seat in table.seats:
                open_match[seat.entry_id] += 1
    status = {e.entry_id: e.status for e in data.entrants}
    active = (StageEntry.Status.ACTIVE, None)
    # WinBounds' fields in order: player, min wins, max wins, active (one per entrant).
    return [
        _new_bounds(
            row.player_id,
            row.match_wins,
            row.match_wins + open_match[row.player_id] + future,
            status.get(row.player_id) in active,
        )
        for row in rows
    ]


_new_bounds = unchecked(WinBounds)


def _final_places(data: StageData) -> dict[int, int]:
    """Entry -> place in the event, for a finished stage nobody advanced from (the last one:
    its final table and the rounds before it placed every entrant, T6); empty otherwise."""
    if data.status != Stage.Status.FINISHED or any(
        e.status == StageEntry.Status.ADVANCED for e in data.entrants
    ):
        return {}
    return {e.entry_id: e.placing for e in data.entrants if e.placing is not None}


def _outlooks(
    data: StageData,
    rows: Any,
    places: dict[int, int],
    final_table: list[JSON] | None,
    line: Advancement | None,
    rounds_played: bool,
) -> dict[int, str]:
    """Certain outcomes: the stage's own verdict once given, else the cut (T6).

    Once every round of the stage is played nothing is left to happen but the cut: the
    standings decide every row through ``line`` (the brackets' own advancement, as the
    director's page ends the stage), clinched above it and eliminated below; players level
    across it get neither (their play-off decides), until their play-off table is played out.
    Before that only what is already certain, by the conservative bound of
    :func:`live.outlook.cut_outlook`.

    In the last stage, once finished, the final table's players are not "eliminated": its
    single first place is the champion and the others are marked as final-table players (a
    shared first place, T3, names no champion until the director's play-off decides it).
    """
    out: dict[int, str] = {}
    for e in data.entrants:
        if e.status == StageEntry.Status.ADVANCED:
            out[e.entry_id] = "advanced"
        elif e.status == StageEntry.Status.ELIMINATED:
            out[e.entry_id] = "eliminated"
        elif e.withdrawal is not None:  # T7: out by a withdrawal, not by the results
            out[e.entry_id] = e.withdrawal
    if places:
        finalists = {line["entry_id"] for line in final_table or ()}
        firsts = [entry for entry, place in places.items() if place == 1]
        for entry in finalists:
            out[entry] = "final_table"
        if len(firsts) == 1 and firsts[0] in finalists:
            out[firsts[0]] = "champion"
    # A withdrawal (T7) marks one row, not the stage's verdict: the others still get theirs.
    verdict = any(
        e.status in (StageEntry.Status.ADVANCED, StageEntry.Status.ELIMINATED)
        for e in data.entrants
    )
    undecided = data.status != Stage.Status.FINISHED and not verdict
    if not (undecided and data.kind == Stage.Kind.QUALIFYING and data.cut_size):
        return out
    if rounds_played and line is not None:
        for player_id in line.advanced:
            out.setdefault(player_id, "clinched")
        for placement in line.eliminated:
            out.setdefault(placement.player_id, "eliminated")
        return out
    for player_id, outlook in cut_outlook(_win_bounds(data, rows), data.cut_size).items():
        out.setdefault(player_id, outlook.value)
    return out


def stage_standings_from_data(data: StageData, *, stage: Stage) -> JSON:
    """One stage's standings in T5 order with the tiebreak columns, cut line and outlook."""
    if data.pairs is not None:  # T10: a pairs stage ranks partnerships
        return pairs_stage_standings(data, stage_json=_stage_json(stage))
    standings = stage_standings(data)  # the final table's level players are placed by it
    by_entry = {e.entry_id: e for e in data.entrants}
    places = _final_places(data)
    final_table = _final_table(data, places)
    cut = data.cut_size if data.kind == Stage.Kind.QUALIFYING else None
    # Every round of the stage's plan is played: only the cut is left (play-off tables, T6,
    # settle the line and are not rounds of the stage).
    planned = data.plan_rounds()
    rounds_played = bool(data.swiss_rounds) and len(planned) >= (data.swiss_rounds or 0)
    rounds_played = rounds_played and all(r.complete for r in planned)
    # The brackets' own advancement line (T6) while the stage runs: who is through, who is
    # out and who plays off, exactly as the director's page will end the stage.
    line = (
        cut_advancement(data, standings) if cut and data.status != Stage.Status.FINISHED else None
    )
    outlook = _outlooks(data, standings.rows, places, final_table, line, rounds_played)
    rows: list[JSON] = []
    # Players level on every key (T5) form a tie group, listed once per stage and referenced by
    # index from each of its rows: listing the group on every row made the body quadratic in a
    # large tie (51 % of a 5,000-player body, issue 19).
    tie_groups: list[list[int]] = []
    group_of: dict[int, int] = {}
    # A tie needs the director's play-off (T5, T6) only once the stage's rounds are all played
    # and only where it straddles the cut line; before that the next rounds will separate it.
    # It stays marked while its play-off table is played (and again if it leaves them level).
    # Once the play-off table is played out the line is decided (T6): no "play-off needed".
    played_off = playoff_decided(data)
    # Before the stage's first match is finished every row is level on nothing: no rank, no
    # tie and no cut line worth showing yet (the rows keep their shape for API clients).
    ranked = any(row.played for row in standings.rows)
    count = len(standings.rows)
    # Players level on the line after every T5 key, as the advancement names them (T6): a tie
    # inside the cut, or wholly below it, needs no play-off.
    contested = set(line.playoff.players) if line is not None and line.playoff else set()
    # Level rows (before the first result: every row) in stage seed, then name.
    ordered = playoff_ordered(data, standings.rows, played_off)
    if places and cut is None:
        # The finished last stage lists its rows in event places (the final table's result,
        # then by the round each player went out in, T6), not by the T5 keys of its rounds.
        ordered.sort(key=lambda r: places.get(r.player_id, count + 1))
    line_at = cut_line_at(
        [(row.player_id, row.rank) for row in ordered],
        cut,
        counted={e.entry_id for e in data.entrants if _in_the_cut(e)},
        ranked=ranked,
        settled=rounds_played or data.status == Stage.Status.FINISHED,
    )
    for i, row in enumerate(ordered):
        entrant = by_entry.get(row.player_id)
        tie_group = None
        if row.tied_with:
            tie_group = group_of.get(row.player_id)
            if tie_group is None:
                tie_group = len(tie_groups)
                members = sorted({row.player_id, *row.tied_with})
                tie_groups.append(members)
                for member in members:
                    group_of[member] = tie_group
        rows.append(
            {
                "rank": row.rank,
                "place": places.get(row.player_id),
                "entry_id": row.player_id,
                "name": entrant.name if entrant else "",
                "club": entrant.club if entrant else "",
                "seed": entrant.seed if entrant else None,
                "played": row.played,
                "byes": row.byes,
                "bye_wins": data.bye_wins(row.byes) if row.byes else 0,
                "match_wins": row.match_wins,
                "hands_won": row.hands_won,
                "six_loves_given": row.six_loves_given,
                "head_to_head": row.head_to_head,
                "decided_by": _TIEBREAK_VALUE[row.decided_by],
                "tie_group": tie_group,
                "points": row.points,
                "six_loves_received": row.six_loves_received,
                "llaves": row.llaves,
                "ties": row.ties,
                "replays_won": row.replays_won,
                "forfeits": row.forfeits,
                "status": _row_status(entrant, outlook.get(row.player_id)),
                "outlook": outlook.get(row.player_id),
                "above_cut": above_cut(i, row.rank, cut, line_at),
                "cut_after": line_at is not None and i == line_at,
                "playoff_on_line": bool(
                    rounds_played and row.player_id in contested and row.player_id not in played_off
                ),
                "playoff_played": row.player_id in played_off,
            }
        )
    counted = data.plan_rounds()
    return {
        "stage": _stage_json(stage),
        "rounds_published": len(counted),
        "rounds_complete": sum(1 for r in counted if r.complete),
        "cut": cut,
        "rows": rows,
        "tie_groups": tie_groups,
        "final_table": final_table,
        # The finished last stage: rows are in event places (``place``), not T5 ranks.
        "placed": bool(places) and cut is None,
        # Rows count the stage's Swiss/knockout rounds only (T5): a stage that is a final table
        # alone has nothing to show there (every row 0 and level), only the final's result.
        "rows_counted": any(r.kind in (Round.Kind.SWISS, Round.Kind.KNOCKOUT) for r in data.rounds),
        # A match of the stage is finished: until then rank, tie groups and the cut line mean
        # nothing (everyone is level on nothing) and the pages show the stage as not started.
        "ranked": ranked,
    }


_TIEBREAK_VALUE = {t: t.value for t in Tiebreak}  # a dict read, not the enum's property


def _in_the_cut(entrant: Any) -> bool:
    """Whether the entrant takes one of the cut's places (T6): not withdrawn (T7), as the
    advancement counts only players still in the stage."""
    return bool(
        entrant.status != StageEntry.Status.WITHDRAWN
        and entrant.entry_status == Entry.Status.ACTIVE
    )


def _row_status(entrant: Any, outlook: str | None) -> str:
    """The entrant's status in the stage; a player of the finished last stage's final table
    reads ``finished`` (the stage stores them as out, like everyone it placed, but they
    played it to its end: the champion is not "eliminated")."""
    if entrant is None:
        return ""
    if outlook in ("champion", "final_table"):
        return "finished"
    return str(entrant.status)


def _final_table(data: StageData, places: dict[int, int]) -> list[JSON] | None:
    """The played final table's result, champion first, or ``None`` until it is finished.

    The final table places by its own result, not by the stage standings (T5 counts Swiss and
    knockout rounds only), so the standings page shows it on its own above them. After a
    forfeit (T7) the continuation's lines place the players who played on and the forfeiting
    player comes last; players level at the table are listed in their event ``places`` (the
    stage's standings order them, T5), never by seat.
    """
    finals = [r for r in data.rounds if r.kind == Round.Kind.FINAL and r.tables]
    final = finals[-1] if finals else None
    if final is None or not final.complete or not any(t.status == FINISHED for t in final.tables):
        return None
    lines: dict[int, SeatData] = {}
    for table in final.tables:
        if table.status != FINISHED:
            continue
        for seat in table.seats:
            if seat.placing is not None or seat.entry_id not in lines:
                lines[seat.entry_id] = seat
    by_entry = {e.entry_id: e for e in data.entrants}
    seats = sorted(
        lines.values(),
        key=lambda s: (
            s.forfeited,
            s.placing is None,
            s.placing or 0,
            places.get(s.entry_id, 0),
            s.seat,
        ),
    )
    return [
        {
            "place": s.placing,
            "entry_id": s.entry_id,
            "name": by_entry[s.entry_id].name if s.entry_id in by_entry else "",
            "club": by_entry[s.entry_id].club if s.entry_id in by_entry else "",
            "points": s.points,
            "forfeited": s.forfeited,
        }
        for s in seats
    ]


def standings(*, tournament: Tournament) -> JSON:
    """Standings of every stage (T5), latest stage first; 1 + 3 queries per stage."""
    stages = list(Stage.objects.filter(tournament_id=tournament.pk).order_by("-number"))
    return {
        "tournament_version": tournament.version,
        "stages": [
            stage_standings_from_data(stage_data_for(stage), stage=stage)
            for stage in stages
            if stage.status != Stage.Status.PENDING
        ],
    }


# --- bracket -------------------------------------------------------------------------------


def bracket(*, tournament: Tournament) -> JSON:
    """Stages -> rounds -> tables -> who advanced, to the final table and final placings.

    1 + 3 queries per stage (+ 3 for a pairs stage's partnerships) + 1 for the placings
    (+ 2 in a pairs event for the partnerships' places, T10).
    """
    stages = list(Stage.objects.filter(tournament_id=tournament.pk).order_by("number"))
    placings = tournament_placings(tournament_id=tournament.pk)
    champion = _champion(tournament, placings)
    pairs = is_pairs_event(tournament)
    # T10: in a pairs event a place is a partnership's; both partners are named in it once.
    pair_places = pairs_placings(tournament_id=tournament.pk) if pairs else []
    champion_pair = _champion_pair(tournament, pair_places)
    champion_pair_id = champion_pair["pair_id"] if champion_pair else None
    out_stages = []
    for stage in stages:
        data = stage_data_for(stage)
        names = {e.entry_id: e.name for e in data.entrants}
        if data.pairs is not None:  # T11: a replaced player is no entrant but sat at tables
            names = {**{m.entry_id: m.player for m in data.pairs.roster.memberships}, **names}
        rounds = []
        for rnd in data.rounds:
            mark = went_on(data, rnd)
            # A played play-off that left players level (T3, T6): a further table decides.
            verdict = playoff_result(data, rnd) or {}
            still_level = {p for p, on in verdict.items() if on is None}
            continues, played_on = _continuations(rnd)
            bye_pairs = round_bye_pairs(data, rnd)
            rounds.append(
                {
                    "id": rnd.id,
                    "number": rnd.number,
                    "kind": rnd.kind,
                    "status": rnd.status,
                    "advancing": rnd.advancing,
                    # A pairs bye names the partnership's players at that round (T11).
                    "byes": [
                        {"entry_id": e, "name": n}
                        for p in bye_pairs
                        for e, n in zip(p.entry_ids, p.names, strict=True)
                    ]
                    if data.pairs is not None
                    else [{"entry_id": b, "name": names.get(b, "")} for b in rnd.byes],
                    "bye_pairs": [_named_pair(p) for p in bye_pairs],
                    "tables": [
                        {
                            "match_id": t.match_id,
                            "table_number": t.table_number,
                            "status": t.status,
                            "end_reason": t.end_reason,
                            "continues": continues.get(t.match_id),
                            # T9: a pairs table's two partnerships, each once (else []).
                            "sides": table_pairs_json(
                                data,
                                t,
                                advanced=mark,
                                champion_pair_id=champion_pair_id
                                if rnd.kind == Round.Kind.FINAL
                                else None,
                            ),
                            "seats": [
                                {
                                    "seat": s.seat,
                                    "entry_id": s.entry_id,
                                    "name": names.get(s.entry_id, ""),
                                    "placing": s.placing,
                                    "points": s.points,
                                    "counted_points": counted[k],
                                    "forfeited": s.forfeited,
                                    "played_on": s.entry_id in played_on.get(t.match_id, ()),
                                    "advanced": mark(s.entry_id),
                                    "still_level": s.entry_id in still_level,
                                    "champion": bool(
                                        champion
                                        and rnd.kind == Round.Kind.FINAL
                                        and s.entry_id == champion["entry_id"]
                                    ),
                                }
                                for k, s in enumerate(t.seats)
                            ],
                        }
                        for t in rnd.tables
                        for counted in (_counted_points(t, pairs=data.pairs is not None),)
                    ],
                }
            )
        advanced = [e for e in data.entrants if e.status == StageEntry.Status.ADVANCED]
        out_stages.append(
            {
                **_stage_json(stage),
                "entrants": len(data.ranked()),
                "advanced": [{"entry_id": e.entry_id, "name": e.name} for e in advanced],
                "partnerships": None if data.pairs is None else len(stage_pairs(data)),
                "advanced_pairs": [
                    _named_pair(p) for p in pairs_of_entries(data, (e.entry_id for e in advanced))
                ],
                "rounds": rounds,
            }
        )
    return {
        "tournament_version": tournament.version,
        "stages": out_stages,
        "placings": [
            {"place": p.place, "entry_id": p.entry_id, "name": p.name, "stage": p.stage_number}
            for p in placings
        ],
        "champion": champion,
        # Until the last match is played the places listed are those already decided (the
        # players out so far), not the final placings.
        "finished": tournament.status == Tournament.Status.FINISHED,
        "pairs": pairs,
        "pair_placings": [
            {
                "place": p.place,
                **pair_json(p.partnership_id, p.name, p.entry_ids, p.players),
                "stage": p.stage_number,
            }
            for p in pair_places
        ],
        "champion_pair": champion_pair,
    }


def _named_pair(pair: NamedPair) -> JSON:
    return pair_json(pair.pair_id, pair.name, pair.entry_ids, pair.names)


def _champion_pair(tournament: Tournament, places: list[PairPlacing]) -> JSON | None:
    """The finished pairs event's single first partnership (T10), or ``None``."""
    if tournament.status != Tournament.Status.FINISHED:
        return None
    firsts = [p for p in places if p.place == 1]
    if len(firsts) != 1:
        return None
    first = firsts[0]
    return pair_json(first.partnership_id, first.name, first.entry_ids, first.players)


def _counted_points(table: TableData, *, pairs: bool) -> list[int | None]:
    """Each seat's points as the standings count them (T5, T7; README rule decision 6), as
    every page shows them (:func:`brackets.selectors.stage_data.counted_lines`): a forfeit is a
    0-6 loss with no points, and a player who played on at the continuation has no line in the
    forfeited match (None). Until the match is finished, the points on the table."""
    if table.status != Match.Status.FINISHED:
        return [s.points for s in table.seats]
    lines = counted_lines(table.match_id, table.seats, partners=pairs)
    return [None if line is None else line.points for line in lines]


def _continuations(rnd: RoundData) -> tuple[dict[int, int], dict[int, set[int]]]:
    """A forfeit's continuation (T7) is a second match at the same table of the round, after
    the match it continues (stage data lists a table's matches in id order): continuation
    match id -> the match it continues, and forfeited match id -> the players who played on
    at its continuation (unplaced in the forfeited match, placed there)."""
    continues: dict[int, int] = {}
    played_on: dict[int, set[int]] = {}
    before: dict[int, TableData] = {}
    for table in rnd.tables:
        previous = before.get(table.table_number)
        if previous is not None:
            continues[table.match_id] = previous.match_id
            played_on[previous.match_id] = {s.entry_id for s in table.seats}
        before[table.table_number] = table
    return continues, played_on


def _champion(tournament: Tournament, placings: list[Placing]) -> JSON | None:
    """The finished tournament's single first place, or ``None`` (still playing, or a shared
    first place that no play-off has split yet, T3)."""
    if tournament.status != Tournament.Status.FINISHED:
        return None
    firsts = [p for p in placings if p.place == 1]
    if len(firsts) != 1:
        return None
    return {"entry_id": firsts[0].entry_id, "name": firsts[0].name}


# --- one player ----------------------------------------------------------------------------


def _player_partnership(tournament: Tournament, entry_id: int) -> JSON | None:
    """The partnership a player entered a pairs event with (T9), named as the standings name
    it, with its current players (a substitute in, T11), and ``left``: this player was
    replaced. ``None`` outside a pairs event (no query then) or for a player in none."""
    if not is_pairs_event(tournament):
        return None
    roster = roster_for(entry_ids=[entry_id])
    pid = roster.pair_of(entry_id)
    if pid is None:
        return None
    members = roster.members_at(pid, None)
    return {
        **pair_json(
            pid,
            roster.registered.get(pid, ""),
            [m.entry_id for m in members],
            [m.player for m in members],
        ),
        "left": roster.by_entry[entry_id].left_at is not None,
    }


def player_results(*, tournament: Tournament, entry_id: int) -> JSON | None:
    """A player's matches and hands in this tournament (five queries; six in a pairs event,
    for the partnership), or ``None``."""
    entry = (
        Entry.objects.filter(pk=entry_id, tournament_id=tournament.pk)
        .select_related("player")
        .first()
    )
    if entry is None:
        return None
    match_ids = list(
        Seat.objects.filter(entry_id=entry.pk, match__tournament_id=tournament.pk)
        .exclude(match__status=Match.Status.VOID)
        .values_list("match_id", flat=True)
    )
    matches = list(
        Match.objects.filter(pk__in=match_ids)
        .select_related("table", "round_link__round__stage")
        .order_by("round_link__round__stage__number", "round_link__round__number", "id")
    )
    tables = {m["id"]: m for m in matches_json(matches)}
    hands: dict[int, list[JSON]] = defaultdict(list)
    for hand in Hand.objects.filter(match_id__in=match_ids, void=False).order_by(
        "match_id", "number"
    ):
        hands[hand.match_id].append(hand_json(hand))
    results = []
    for match in matches:
        table = tables[match.pk]
        seat = next(s for s in table["seats"] if s["entry_id"] == entry.pk)
        link = round_link(match)
        results.append(
            {
                "match": table,
                "seat": seat["seat"],
                "stage": None if link is None else _stage_json(link.round.stage),
                "round": None if link is None else _round_json(link.round),
                "hands": hands.get(match.pk, []),
            }
        )
    stage_rows = StageEntry.objects.filter(entry_id=entry.pk).filter(
        Q(placing__isnull=False) | ~Q(status=StageEntry.Status.ACTIVE)
    )
    return {
        "tournament_version": tournament.version,
        "entry": {
            "id": entry.pk,
            "player_id": entry.player_id,
            "name": str(entry.player),
            "club": entry.player.club,
            "country": entry.player.country,
            "seed": entry.seed,
            "status": entry.status,
        },
        "partnership": _player_partnership(tournament, entry.pk),
        "stages": [
            {"stage_id": s.stage_id, "status": s.status, "placing": s.placing}
            for s in stage_rows.order_by("stage__number")
        ],
        "matches": results,
    }


def match_detail(*, tournament: Tournament, match_id: int) -> JSON | None:
    """One table with every live hand (four queries; one more at a table of a pairs stage,
    for the partnerships' names), or ``None`` if not this tournament's.

    ``sides``: at a partnership table (R42) its two partnerships AC and BD, each with both
    partners, its registered name in a pairs event (T9) and its one score, as the referee's
    page shows them (:func:`scoring.presenters.partnership.partnership_sides`); else ``[]``.
    The match's own ``sides`` say the same (its table card shows them)."""
    match = (
        Match.objects.filter(pk=match_id, tournament_id=tournament.pk)
        .select_related("table", "round_link__round__stage")
        .first()
    )
    if match is None:
        return None
    table: MatchJSON = matches_json([match])[0]
    match.tournament = tournament  # the ruleset and the entry format are read from it: no query
    # The match JSON names the partnerships of a started partnership match and of a pairs
    # table; before its first hand a partnership ruleset is the tournament's (no query).
    sides = table["sides"] or [
        asdict(side)
        for side in partnership_sides(
            match,
            ruleset_of(match),
            [s["name"] for s in table["seats"]],
            [s["score"] for s in table["seats"]],
        )
    ]
    table["sides"] = sides
    rows = list(Hand.objects.filter(match_id=match.pk, void=False).order_by("number"))
    hands = [hand_json(h) for h in rows]
    # Hands entered move by move at a feature table have a replay (live/replay.py, issue 15).
    replays = [h.number for h in rows if h.play_log is not None]
    return {
        "tournament_version": tournament.version,
        "match": table,
        "sides": sides,
        "hands": hands,
        "replays": replays,
    }
