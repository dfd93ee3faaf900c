"""Reads of pairs events (T9, T10): a stage's partnerships, their match lines and standings,
and the partnership places of a tournament, for the pairs planner, pages and the API."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypedDict

from django.db.models import Exists, OuterRef

from brackets.engine import Advancement, ByePolicy, advance_cut, resolve_playoff_groups
from brackets.engine.pairs import Pair, PairLine, PairRow, PairStandings, pairs_standings
from brackets.models import Round, Stage, StageEntry
from brackets.selectors.pair_roster import NamedPair, roster_for, round_moment
from brackets.selectors.pairs_data import PairInfo, PairsData, TeamLine
from brackets.selectors.stage_data import (
    STANDINGS_KINDS,
    EntrantData,
    RoundData,
    SeatData,
    StageData,
    TableData,
    level_verdict,
    plan_end,
    played_playoffs,
    stage_data,
    stage_data_for,
)
from scoring.engine.placing import side_places as engine_side_places
from scoring.models import Match, Seat
from tournament.models import Entry, Partnership, PartnershipMember
from tournament.partnerships import partnership_label


def pair_seed(player_seed: int) -> int:
    """A partnership's seed in a pairs stage (1, 2, ...) from the best stage seed of its
    players: partnership k holds seeds 2k-1 and 2k (T8 over partnerships, T9), so pages
    number partnerships, not players."""
    return (player_seed + 1) // 2


@dataclass(frozen=True, slots=True)
class StagePair:
    """A partnership in a stage: its seed (best of its players' stage seeds) and status."""

    info: PairInfo
    seed: int
    active: bool

    @property
    def pair(self) -> Pair:
        a, b = self.info.players
        return Pair(
            pair_id=self.info.pair_id,
            players=(a, b),
            clubs=(self.info.clubs[0] or None, self.info.clubs[1] or None),
            rating=sum(r or 0 for r in self.info.ratings) / 2,
        )


def pairs_of(data: StageData) -> PairsData:
    assert data.pairs is not None
    return data.pairs


def stage_pairs(data: StageData) -> list[StagePair]:
    """The stage's partnerships in seed order: those with a player among its entrants."""
    pd = pairs_of(data)
    by_entry = {e.entry_id: e for e in data.entrants}
    out: list[StagePair] = []
    for info in pd.pairs:
        mine = [by_entry[p] for p in info.players if p in by_entry]
        if not mine:
            continue
        active = (
            info.status == "active"
            and len(info.players) == 2
            and len(mine) == 2
            and all(e.active for e in mine)
        )
        out.append(StagePair(info=info, seed=min(e.seed for e in mine), active=active))
    out.sort(key=lambda p: (p.seed, p.info.pair_id))
    return out


def pairs_withdrawn(data: StageData) -> dict[int, int]:
    """Partnerships of a loaded pairs stage withdrawn or disqualified (T7 over partnerships)
    -> the round they went out in (0 before round 1), the pairs twin of
    :meth:`StageData.withdrawn`: the standings rank them after every partnership still in
    (:func:`brackets.engine.pairs.pairs_standings`) and the stage places them so
    (:func:`brackets.services.pairs_planning.pairs_withdrawn_places`).

    A partnership is two players (T9): one of its players withdrawn from the stage or the
    event without a substitute (T11) takes it out, in the round the first of them went out
    (a player withdrawn from the event while active here, in the stage's latest round, as
    the stage's end records it); so does the partnership's own withdrawal."""
    last = data.last_round.number if data.last_round else 0
    by_entry = {e.entry_id: e for e in data.entrants}
    out: dict[int, int] = {}
    for sp in stage_pairs(data):
        rounds = [last] if sp.info.status == "withdrawn" else []
        for player in sp.info.players:
            e = by_entry.get(player)
            if e is None:
                continue
            if e.status == StageEntry.Status.WITHDRAWN:
                rounds.append(e.out_round or 0)
            elif e.status == StageEntry.Status.ACTIVE and not e.active:
                rounds.append(last)
        if rounds:
            out[sp.info.pair_id] = min(rounds)
    return out


def players_gone(*, entry_ids: Iterable[int]) -> set[int]:
    """Those of ``entry_ids`` withdrawn or disqualified from the event, or withdrawn from a
    stage (T7): the players a partnership's substitute replaces (T11). Two queries."""
    ids = list(entry_ids)
    out = set(
        Entry.objects.filter(
            pk__in=ids, status__in=[Entry.Status.WITHDRAWN, Entry.Status.DISQUALIFIED]
        ).values_list("pk", flat=True)
    )
    out |= set(
        StageEntry.objects.filter(entry_id__in=ids, status=StageEntry.Status.WITHDRAWN).values_list(
            "entry_id", flat=True
        )
    )
    return out


def players_disqualified(*, entry_ids: Iterable[int]) -> set[int]:
    """Those of ``entry_ids`` disqualified from the event (T7). One query."""
    return set(
        Entry.objects.filter(pk__in=list(entry_ids), status=Entry.Status.DISQUALIFIED).values_list(
            "pk", flat=True
        )
    )


def table_sides(pd: PairsData, table: TableData) -> tuple[int, int] | None:
    """(AC, BD) partnerships of a four-seat table (R42), ``None`` if it is not one."""
    if len(table.seats) != 4:
        return None
    ac = pd.pair_of.get(table.seats[0].entry_id)
    bd = pd.pair_of.get(table.seats[1].entry_id)
    if ac is None or bd is None or ac == bd:
        return None
    return ac, bd


class PlacedSeat(Protocol):
    """A seat's result as every reader of a table carries it (stage data, page rows)."""

    @property
    def placing(self) -> int | None: ...

    @property
    def forfeited(self) -> bool: ...


def side_places(seats: Sequence[PlacedSeat], *, finished: bool) -> tuple[int | None, int | None]:
    """The places of partnerships AC and BD (seats 0/2 and 1/3, R42) at a finished table, by
    the one rule every page reads (:func:`scoring.engine.placing.side_places`: 1 and 2, 1 and 1
    when level, T3/T4/T7); ``(None, None)`` until the table is finished.

    >>> from types import SimpleNamespace as S
    >>> side_places([S(placing=p, forfeited=False) for p in (1, 3, 1, 3)], finished=True)
    (1, 2)
    >>> side_places([S(placing=1, forfeited=False)] * 4, finished=True)
    (1, 1)
    """
    if not finished:
        return (None, None)
    return engine_side_places([s.placing for s in seats], [s.forfeited for s in seats])


def table_winner(pd: PairsData, table: TableData) -> int | None:
    """The partnership that won a finished table: its best placing is better than the other's
    (T4 over partnerships; a first place shared across partnerships is no win, T3). A
    forfeited player loses for the partnership (T7)."""
    sides = table_sides(pd, table)
    if sides is None:
        return None
    places = side_places(table.seats, finished=table.status == Match.Status.FINISHED)
    if places == (1, 2):
        return sides[0]
    if places == (2, 1):
        return sides[1]
    return None


def round_lines(pd: PairsData, rnd: RoundData) -> list[PairLine]:
    """The T10 lines of a round's finished tables: one per partnership per match."""
    out: list[PairLine] = []
    for t in rnd.tables:
        sides = table_sides(pd, t)
        if sides is None or t.status != Match.Status.FINISHED:
            continue
        winner = table_winner(pd, t)
        team = pd.team_lines.get(t.match_id)
        for k in (0, 1):
            mine = [s for i, s in enumerate(t.seats) if i % 2 == k]
            theirs = [s for i, s in enumerate(t.seats) if i % 2 != k]
            forfeit = any(s.forfeited for s in mine)
            out.append(
                PairLine(
                    match_id=t.match_id,
                    pair_id=sides[k],
                    opponent_id=sides[1 - k],
                    won=winner == sides[k],
                    hands_won=0
                    if forfeit
                    else (team[k].hands_won if team else max(s.hands_won for s in mine)),
                    points_for=0 if forfeit else max(0, max(s.points for s in mine)),
                    points_against=max(0, max(s.points for s in theirs)),
                    six_loves_given=0
                    if forfeit
                    else (team[k].six_loves_given if team else max(s.six_love_given for s in mine)),
                    forfeit=forfeit,
                    **({} if forfeit else _team_r35(team[k] if team else None, mine)),
                )
            )
    return out


def _team_r35(team: TeamLine | None, mine: Sequence[SeatData]) -> dict[str, int]:
    """A partnership's llaves, ties and replays won in one match (R35 over partnerships, R42),
    each event once (R46): the engine's fold of the stored hands (``team``). A match that does
    not fold falls back on its two seats as hands won does: llaves summed (a llave is one
    player's domino, R23, never shared), ties and replays won the better partner's (partners
    sharing a lowest count are both credited with the one hand)."""
    if team is not None:
        return {"llaves": team.llaves, "ties": team.ties, "replays_won": team.replays_won}
    return {
        "llaves": sum(s.llaves for s in mine),
        "ties": max(s.ties for s in mine),
        "replays_won": max(s.replays_won for s in mine),
    }


def round_pairs(pd: PairsData, rnd: RoundData) -> tuple[list[tuple[int, int]], list[int]]:
    tables = [s for t in rnd.tables if (s := table_sides(pd, t)) is not None]
    byes = list(dict.fromkeys(pd.pair_of[p] for p in rnd.byes if p in pd.pair_of))
    return tables, byes


def pair_standings_from_data(
    data: StageData,
    *,
    pairs: Sequence[int] | None = None,
    pip_scoring: bool | None = None,
    with_final: bool = False,
) -> PairStandings:
    """T10 standings of a loaded pairs stage over its qualifying and knockout rounds; with
    ``with_final`` (the pages and exports) the final's match too, so its winner ranks first
    rather than level with the runner-up (T10). Withdrawn partnerships (T7,
    :func:`pairs_withdrawn`) rank after every partnership still in, as withdrawn players do."""
    kinds = (*STANDINGS_KINDS, Round.Kind.FINAL) if with_final else STANDINGS_KINDS
    pd = pairs_of(data)
    ids = [p.info.pair_id for p in stage_pairs(data)] if pairs is None else list(pairs)
    lines: list[PairLine] = []
    byes: list[int] = []
    for r in data.rounds:
        if r.kind not in kinds:
            continue
        keep = set(ids)
        lines += [x for x in round_lines(pd, r) if x.pair_id in keep]
        byes += [p for p in round_pairs(pd, r)[1] if p in keep]
    if pip_scoring is None:  # R45: the tournament's scoring, before its first result too
        pip_scoring = data.pairs.pip_scoring if data.pairs is not None else False
    keep = set(ids)
    return pairs_standings(
        lines,
        pairs=ids,
        byes=byes,
        bye_policy=ByePolicy(data.bye_policy),
        pip_scoring=pip_scoring,
        withdrawn={p: r for p, r in pairs_withdrawn(data).items() if p in keep},  # T7
    )


def pair_playoff_groups(data: StageData, rnd: RoundData, level: Sequence[int]) -> list[list[int]]:
    """A played play-off round's result for the partnerships ``level`` (T6 over partnerships,
    T10), best first in groups of partnerships level at it: table winners (one group however
    many tables), then the bye, then the others (losers, and both partnerships of a table
    that ended level, T3). Seed order never separates a group (T3)."""
    pd = pairs_of(data)
    winners = {w for t in rnd.tables if (w := table_winner(pd, t)) is not None}
    byes = set(round_pairs(pd, rnd)[1])
    groups: list[list[int]] = [[], [], []]
    for p in level:
        groups[0 if p in winners else 1 if p in byes else 2].append(p)
    return [g for g in groups if g]


def pair_cut_advancement(data: StageData, pairs: Sequence[int]) -> Advancement:
    """The cut of a pairs qualifying stage (T6 over partnerships, T10) over the active
    partnerships ``pairs``: the top ``cut_size`` by T10, the partnerships level on the line
    as a play-off, and every played-out play-off round folded in, in turn; partnerships a
    play-off leaves level stay the play-off, for a further table. The pairs planner ends the
    stage with it and the live standings draw their line from it."""
    standings = pair_standings_from_data(data, pairs=pairs)
    adv = advance_cut(standings.as_standings(), min(data.cut_size or len(pairs), len(pairs)))
    for rnd in played_playoffs(data, after=plan_end(data)):
        if adv.playoff is None:
            break
        adv = resolve_playoff_groups(adv, pair_playoff_groups(data, rnd, adv.playoff.players))
    return adv


def pair_playoff_results(data: StageData) -> tuple[dict[int, list[int]], set[int]]:
    """For the live standings: each played-off partnership's group at every played play-off
    round it sat at (orders the rows: a further table orders what its first left level), and
    the partnerships whose latest play-off round is played out and settled them (not left
    level for a further table, T6)."""
    pd = pairs_of(data)
    key: dict[int, list[int]] = {}
    settled: dict[int, bool] = {}
    for rnd in data.rounds:
        if rnd.kind != Round.Kind.PLAYOFF:
            continue
        level = list(dict.fromkeys(pd.pair_of[p] for p in rnd.playoff_players if p in pd.pair_of))
        if not rnd.tables or not rnd.complete:
            settled.update(dict.fromkeys(level, False))
            continue
        groups = pair_playoff_groups(data, rnd, level)
        for i, group in enumerate(groups):
            for pair in group:
                key.setdefault(pair, []).append(i)
        verdict = level_verdict(groups, level, rnd.advancing) if rnd.advancing else {}
        settled.update({p: verdict.get(p) is not None or not verdict for p in level})
    return key, {p for p, done in settled.items() if done}


@dataclass(frozen=True, slots=True)
class PairStandingLine:
    """A partnership's standings row with its players, seed and status (T10)."""

    row: PairRow
    pair: PairInfo
    seed: int
    active: bool
    outlook: str | None = None
    """:func:`pair_outcomes`' outlook: champion, final_table, advanced, eliminated,
    withdrawn or disqualified; None while uncertain."""

    @property
    def seed_number(self) -> int:
        """The partnership's seed (1, 2, ...): its players hold stage seeds 2k-1 and 2k."""
        return pair_seed(self.seed)


def pairs_standings_table(*, stage_id: int) -> list[PairStandingLine] | None:
    """T10 standings of a pairs stage (six queries); ``None`` for an individual stage."""
    data = stage_data(stage_id=stage_id)
    if data.pairs is None:
        return None
    pairs = {p.info.pair_id: p for p in stage_pairs(data)}
    standings = pair_standings_from_data(data, pairs=list(pairs), with_final=True)
    outcomes = pair_outcomes(data)
    return [
        PairStandingLine(
            row=r,
            pair=pairs[r.pair_id].info,
            seed=pairs[r.pair_id].seed,
            active=pairs[r.pair_id].active,
            outlook=outcomes[r.pair_id]["outlook"] if r.pair_id in outcomes else None,
        )
        for r in standings.rows
    ]


def pair_final(data: StageData) -> tuple[TableData, tuple[int, int], int | None] | None:
    """The pairs stage's final (T10) once a table of it is finished: the table, its (AC, BD)
    partnerships and the winner (:func:`table_winner`; None when level, T3); else None."""
    pd = pairs_of(data)
    for r in reversed(data.rounds):
        if r.kind != Round.Kind.FINAL:
            continue
        for t in r.tables:
            sides = table_sides(pd, t)
            if sides is None or t.status != Match.Status.FINISHED:
                continue
            return t, sides, table_winner(pd, t)
    return None


class PairOutcome(TypedDict):
    """A partnership's ``place``, ``status`` and ``outlook`` in a stage (:func:`pair_outcomes`)."""

    place: int | None
    status: str
    outlook: str | None


def pair_outcomes(data: StageData) -> dict[int, PairOutcome]:
    """Each partnership's ``place``, ``status`` and ``outlook`` in a loaded pairs stage (T7,
    T10), the one rule the live standings and the director's standings API read: the final's
    winner is the champion and both its partnerships the final table once the stage is
    finished (:func:`pair_final`); withdrawn partnerships by :func:`pairs_withdrawn`."""
    by_entry = {e.entry_id: e for e in data.entrants}
    played = pair_final(data) if data.status == Stage.Status.FINISHED else None
    finalists = set(played[1]) if played is not None else set()
    champion = played[2] if played is not None else None
    gone = pairs_withdrawn(data)
    return {
        sp.info.pair_id: _pair_outcome(
            [by_entry[p] for p in sp.info.players if p in by_entry],
            withdrawn=sp.info.pair_id in gone,
            champion=champion is not None and sp.info.pair_id == champion,
            finalist=sp.info.pair_id in finalists,
        )
        for sp in stage_pairs(data)
    }


def _pair_outcome(
    members: Sequence[EntrantData], *, withdrawn: bool, champion: bool, finalist: bool
) -> PairOutcome:
    """A partnership's ``place``, ``status`` and ``outlook`` in a stage, as an individual row's
    (T10: both partners share them). ``place`` is its place in the event once this stage
    placed it (the partners' placing here: out in this stage, or its final played), as the
    bracket lists it; ``status`` the partners' stage status (``finished`` for the finished
    final's two partnerships, ``withdrawn`` for a withdrawn partnership, T7); ``outlook``
    ``champion``, ``final_table``, ``advanced`` or ``eliminated`` once certain, and for a
    ``withdrawn`` partnership (:func:`pairs_withdrawn`)
    ``disqualified`` if a player of it was disqualified, else ``withdrawn`` (T7: out by a
    withdrawal, not by its results, as a withdrawn player's row reads); else null."""
    statuses = {e.status for e in members}
    placings = [e.placing for e in members if e.placing is not None]
    if champion:
        outlook: str | None = "champion"
    elif finalist:
        outlook = "final_table"
    elif StageEntry.Status.ADVANCED in statuses:
        outlook = "advanced"
    elif withdrawn:
        gone = {e.withdrawal for e in members}
        outlook = "disqualified" if "disqualified" in gone else "withdrawn"
    elif statuses and statuses <= {StageEntry.Status.ELIMINATED}:
        outlook = "eliminated"
    else:
        outlook = None
    if outlook in ("champion", "final_table"):
        status = "finished"
    elif withdrawn or StageEntry.Status.WITHDRAWN in statuses:
        status = str(StageEntry.Status.WITHDRAWN)
    elif StageEntry.Status.ADVANCED in statuses:
        status = str(StageEntry.Status.ADVANCED)
    else:
        status = str(members[0].status) if members else ""
    return PairOutcome(place=min(placings) if placings else None, status=status, outlook=outlook)


@dataclass(frozen=True, slots=True)
class PairPlacing:
    """A partnership's final place: the place its players hold in the deepest stage."""

    partnership_id: int
    place: int
    stage_number: int
    players: tuple[str, ...]
    name: str = ""
    """The partnership's registered name ("" if none)."""
    entry_ids: tuple[int, ...] = ()
    """The players' entry ids, in the order of ``players``."""

    @property
    def label(self) -> str:
        """The partnership named once: "Los Primos (Ana & Bea)" or "Ana & Bea" (T9)."""
        return partnership_label(self.name, self.players)


def pairs_placings(*, tournament_id: int) -> list[PairPlacing]:
    """Final places of partnerships, best first (two queries); each names its players of
    the deepest stage in registered order (``slot``, T9), as every list of partnerships
    does."""
    pair_of: dict[int, int] = {}
    pair_name: dict[int, str] = {}
    slot: dict[int, int] = {}
    for member, partnership, registered, member_slot in PartnershipMember.objects.filter(
        partnership__tournament_id=tournament_id
    ).values_list("entry_id", "partnership_id", "partnership__name", "slot"):
        pair_of[member] = partnership
        pair_name[partnership] = registered or ""
        slot[member] = member_slot
    best: dict[int, tuple[int, int]] = {}
    names: dict[int, dict[int, str]] = {}
    for entry_id, place, number, name in (
        StageEntry.objects.filter(stage__tournament_id=tournament_id, placing__isnull=False)
        .order_by("stage__number")
        .values_list("entry_id", "placing", "stage__number", "entry__player__name")
    ):
        pid = pair_of.get(entry_id)
        if pid is None:
            continue
        if pid not in best or best[pid][1] < number:
            best[pid] = (int(place or 0), number)
            names[pid] = {}
        if best[pid][1] == number:
            names[pid][entry_id] = name

    def registered_order(pid: int) -> list[int]:
        return sorted(names[pid], key=lambda e: (slot.get(e, 2), e))

    return sorted(
        (
            PairPlacing(
                pid,
                place,
                number,
                tuple(names[pid][e] for e in registered_order(pid)),
                name=pair_name.get(pid, ""),
                entry_ids=tuple(registered_order(pid)),
            )
            for pid, (place, number) in best.items()
        ),
        key=lambda p: (p.place, p.partnership_id),
    )


def pairs_of_entries(data: StageData, entry_ids: Iterable[int]) -> list[NamedPair]:
    """The partnerships of ``entry_ids`` in a loaded pairs stage, each once, in the order of
    their first player in ``entry_ids`` (a list by player becomes a list by partnership: the
    players who went on, a round's byes). ``[]`` for an individual stage."""
    pd = data.pairs
    if pd is None:
        return []
    out: list[NamedPair] = []
    seen: set[int] = set()
    for entry_id in entry_ids:
        pid = pd.pair_of.get(entry_id)
        if pid is None or pid in seen:
            continue
        seen.add(pid)
        info = pd.pair(pid)
        out.append(NamedPair(pair_id=pid, name=info.name, entry_ids=info.players, names=info.names))
    return out


def round_bye_pairs(data: StageData, rnd: RoundData) -> list[NamedPair]:
    """A loaded pairs stage's round byes by partnership, named by their players at that round
    (T11, :meth:`brackets.selectors.pair_roster.Roster.byes`); ``[]`` for an individual
    stage."""
    if data.pairs is None:
        return []
    return data.pairs.roster.byes(rnd.byes, moment=round_moment(rnd.status, rnd.closed_at))


def round_byes_named(rnd: Round) -> list[NamedPair]:
    """A round's byes by partnership, as :func:`round_bye_pairs` names them, without loading
    the stage: one query."""
    byes = [int(b) for b in rnd.byes]
    return roster_for(entry_ids=byes).byes(byes, moment=round_moment(rnd.status, rnd.closed_at))


def pairs_named(entry_ids: Sequence[int]) -> list[NamedPair]:
    """The partnerships of ``entry_ids`` (a round's byes, T9 and T1), each once with the
    players of ``entry_ids`` who play for it, in partnership order: one query, without
    loading the stage."""
    rows: dict[int, tuple[str, list[int], list[str]]] = {}
    for pid, name, entry_id, player in (
        PartnershipMember.objects.filter(entry_id__in=entry_ids)
        .order_by("partnership__number", "slot", "id")
        .values_list("partnership_id", "partnership__name", "entry_id", "entry__player__name")
    ):
        _, ids, names = rows.setdefault(pid, (name or "", [], []))
        ids.append(entry_id)
        names.append(player)
    return [
        NamedPair(pair_id=pid, name=name, entry_ids=tuple(ids), names=tuple(names))
        for pid, (name, ids, names) in rows.items()
    ]


@dataclass(frozen=True, slots=True)
class PairsInPlay:
    """The partnerships some players play for now, with their matches not done (T11).

    What :func:`brackets.services.pairs.partnership_substitute_refusals` decides from: the
    service and the pages ask it, not this."""

    pair_of: dict[int, int]
    """A current player's entry id -> the partnership they play for."""
    matches: dict[int, list[int]]
    """Partnership id -> the matches not done where one of its current players is seated
    (one id per seat, so a match both partners sit in appears twice); empty if none."""


def pairs_in_play(*, entry_ids: Iterable[int]) -> PairsInPlay:
    """T11: the partnerships ``entry_ids`` play for now, with their current players' matches not
    done. Two queries."""
    current = PartnershipMember.objects.filter(left_at__isnull=True)
    members = list(
        current.filter(
            partnership_id__in=current.filter(entry_id__in=list(entry_ids)).values("partnership_id")
        ).values_list("partnership_id", "entry_id")
    )
    pair_of = {entry_id: pair_id for pair_id, entry_id in members}
    matches: dict[int, list[int]] = {pair_id: [] for pair_id, _ in members}
    if pair_of:
        for entry_id, match_id in (
            Seat.objects.filter(
                entry_id__in=list(pair_of),
                match__status__in=[Match.Status.SCHEDULED, Match.Status.IN_PROGRESS],
            )
            .order_by("match_id", "seat")
            .values_list("entry_id", "match_id")
        ):
            matches[pair_of[entry_id]].append(match_id)
    return PairsInPlay(pair_of=pair_of, matches=matches)


def pairs_knocked_out(*, tournament_id: int) -> set[int]:
    """The partnerships that lost a table of the latest round of a running pairs knockout
    stage (T10: the table's winner goes through), the final's too: out of the event from the
    moment their match is decided, though the stage stores them eliminated only when it
    publishes its next round (or ends). Read as the planner reads a table
    (:func:`table_winner`). One query, and the stage's data where one is running."""
    out: set[int] = set()
    for stage in Stage.objects.filter(
        tournament_id=tournament_id,
        pairs=True,
        kind=Stage.Kind.KNOCKOUT,
        status=Stage.Status.RUNNING,
    ):
        data = stage_data_for(stage)
        last = data.last_round
        if data.pairs is None or last is None:
            continue
        if last.kind not in (Round.Kind.KNOCKOUT, Round.Kind.FINAL):
            continue
        for table in last.tables:
            winner = table_winner(data.pairs, table)
            sides = table_sides(data.pairs, table)
            if winner is not None and sides is not None:
                out.update(p for p in sides if p != winner)
    return out


def pairs_out(*, pair_ids: Iterable[int], tournament_id: int) -> dict[int, str]:
    """T7, T6/T10: those of ``pair_ids`` out of the event as a whole, partnership id -> why:
    ``"disqualified"`` (one of its current players is, T7: T11 names a substitute only for a
    withdrawal or a no-show), ``"withdrawn"`` (the partnership itself, or both its current
    players: T11 replaces one player, the other keeps the record) or ``"eliminated"`` (one of
    its players, past or current, is eliminated from a stage: the cut, T6/T10, or a knockout
    round, also a table of it already lost, :func:`pairs_knocked_out`). A partnership out only
    because one player withdrew is not here: a substitute keeps it playing (T11). What
    :func:`brackets.services.pairs.partnership_substitute_refusals` refuses first. Two
    queries, and a running pairs knockout stage's data."""
    ids = list(pair_ids)
    if not ids:
        return {}
    knocked_out = pairs_knocked_out(tournament_id=tournament_id)
    eliminated = StageEntry.objects.filter(
        entry_id=OuterRef("entry_id"), status=StageEntry.Status.ELIMINATED
    )
    rows = (
        PartnershipMember.objects.filter(partnership_id__in=ids)
        .annotate(eliminated=Exists(eliminated))
        .values_list(
            "partnership_id", "partnership__status", "left_at", "entry__status", "eliminated"
        )
    )
    status: dict[int, str] = {}
    current: dict[int, list[str]] = {}
    out_of_stage: set[int] = set()
    for pair_id, pair_status, left_at, entry_status, was_eliminated in rows:
        status[pair_id] = pair_status
        if left_at is None:
            current.setdefault(pair_id, []).append(entry_status)
        if was_eliminated or pair_id in knocked_out:
            out_of_stage.add(pair_id)
    out: dict[int, str] = {}
    gone = {Entry.Status.WITHDRAWN, Entry.Status.DISQUALIFIED}
    for pair_id, pair_status in status.items():
        players = current.get(pair_id, [])
        if Entry.Status.DISQUALIFIED in players:
            out[pair_id] = "disqualified"
        elif pair_status == Partnership.Status.WITHDRAWN or (
            len(players) == 2 and all(s in gone for s in players)
        ):
            out[pair_id] = "withdrawn"
        elif pair_id in out_of_stage:
            out[pair_id] = "eliminated"
    return out
