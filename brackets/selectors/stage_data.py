"""A stage loaded into plain dataclasses for the engine, and its standings (T4, T5).

Fetch first, then compute (STYLE.md §2, Saleor): :func:`stage_data` loads everything a stage's
seating, standings and advancement need with a fixed number of queries (four, whatever the
number of players or rounds); the pure :mod:`brackets.engine` computes on the result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from datetime import datetime
from typing import Any

from brackets.engine import (
    Advancement,
    ByePolicy,
    MatchRecord,
    Playoff,
    Seating,
    StandingRow,
    Standings,
    Table,
    advance_cut,
    compute_standings,
    resolve_playoff_groups,
)
from brackets.models import Round, Stage, StageEntry
from brackets.selectors.pairs_data import PairsData, pairs_data_for
from core.exceptions import NotFoundError
from core.sql import values_rows
from dominoes.records import unchecked
from scoring.models import Match, Seat
from tournament.models import Entry

FINISHED = Match.Status.FINISHED
DONE_STATUSES = (Match.Status.FINISHED, Match.Status.VOID)
# Rounds whose matches count in the stage standings (T5); play-off tables only break a tie on
# the advancement line (T6) and the final table places by its own result.
STANDINGS_KINDS = (Round.Kind.SWISS, Round.Kind.KNOCKOUT)


@dataclass(frozen=True, slots=True)
class SeatData:
    """One player's seat and result at a match (T4)."""

    entry_id: int
    seat: int
    placing: int | None
    points: int
    hands_won: int
    six_love_given: int
    six_love_received: int
    llaves: int
    ties: int
    replays_won: int
    forfeited: bool


@dataclass(frozen=True, slots=True)
class TableData:
    """One table of a round: its match and the seats in seat (= play) order."""

    match_id: int
    table_number: int
    status: str
    end_reason: str
    seats: tuple[SeatData, ...]

    @property
    def done(self) -> bool:
        return self.status in DONE_STATUSES


@dataclass(frozen=True, slots=True)
class RoundData:
    id: int
    number: int
    kind: str
    status: str
    byes: tuple[int, ...]
    advancing: int | None
    playoff_players: tuple[int, ...]
    advanced_at: datetime | None
    tables: tuple[TableData, ...]
    closed_at: datetime | None = None

    @property
    def complete(self) -> bool:
        """Every match finished (or void): the round can close."""
        return all(t.done for t in self.tables)

    def seating(self) -> Seating:
        """The round as the engine's value (T8 history): one table per table number, as
        published (a forfeit's continuation match is the same table, T7)."""
        first: dict[int, TableData] = {}
        for t in self.tables:
            first.setdefault(t.table_number, t)
        return Seating(
            tables=tuple(
                Table(number=t.table_number, seats=tuple(s.entry_id for s in t.seats))
                for t in first.values()
                if 3 <= len(t.seats) <= 4
            ),
            byes=self.byes,
        )

    def players(self) -> list[int]:
        """Everyone seated or given a bye this round, once each."""
        seen: dict[int, None] = {}
        for t in self.tables:
            for s in t.seats:
                seen[s.entry_id] = None
        for p in self.byes:
            seen[p] = None
        return list(seen)


@dataclass(frozen=True, slots=True)
class EntrantData:
    stage_entry_id: int
    entry_id: int
    seed: int
    status: str
    joined_round: int
    out_round: int | None
    placing: int | None
    name: str
    club: str
    rating: int | None
    entry_status: str = Entry.Status.ACTIVE

    @property
    def active(self) -> bool:
        """Still in the stage: active here and not withdrawn from the tournament (T7)."""
        return self.status == StageEntry.Status.ACTIVE and self.entry_status == Entry.Status.ACTIVE

    @property
    def withdrawal(self) -> str | None:
        """``"withdrawn"`` or ``"disqualified"`` for an entrant out of the stage by a
        withdrawal or disqualification (T7): withdrawn from the stage, or from the event while
        still active here; ``None`` otherwise. The live standings' outlook of the row (not
        "eliminated", which the results decide, T6)."""
        if self.status == StageEntry.Status.WITHDRAWN or (
            self.status == StageEntry.Status.ACTIVE and self.entry_status != Entry.Status.ACTIVE
        ):
            if self.entry_status == Entry.Status.DISQUALIFIED:
                return "disqualified"
            return "withdrawn"
        return None


@dataclass(frozen=True, slots=True)
class StageData:
    """A stage with its settings, entrants (seed order) and rounds (number order)."""

    id: int
    tournament_id: int
    number: int
    name: str
    kind: str
    status: str
    swiss_rounds: int | None
    cut_size: int | None
    advance_per_table: int
    final_table_size: int
    allow_three: bool
    bye_policy: str
    seat_order: str
    rng_seed: int
    auto_advance: bool
    round_time_limit: int | None
    entrants: tuple[EntrantData, ...]
    rounds: tuple[RoundData, ...]
    # A pairs stage (T9): its partnerships and their match statistics; None otherwise.
    pairs: PairsData | None = None

    def entrant(self, entry_id: int) -> EntrantData:
        for e in self.entrants:
            if e.entry_id == entry_id:
                return e
        raise KeyError(entry_id)

    @property
    def last_round(self) -> RoundData | None:
        return self.rounds[-1] if self.rounds else None

    def records(self, kinds: Sequence[str] = STANDINGS_KINDS) -> list[MatchRecord]:
        """T4 lines of the finished matches of rounds of ``kinds`` (forfeits per T7)."""
        return [rec for r in self.rounds if r.kind in kinds for rec in round_records(r)]

    def byes(self, kinds: Sequence[str] = STANDINGS_KINDS) -> list[int]:
        return [p for r in self.rounds if r.kind in kinds for p in r.byes]

    def bye_wins(self, byes: int) -> int:
        """How many of a row's ``byes`` its match wins count: all or none, by the stage's
        bye policy (T1). A bye is never a match played."""
        return byes if ByePolicy(self.bye_policy) is ByePolicy.WIN else 0

    def plan_rounds(self) -> list[RoundData]:
        """The rounds of the stage's plan, as "Rounds complete: c of p" counts them: play-off
        tables (T6) only settle a tie on the line ("3 of 3 published" beside "the stage has
        2 rounds" read as a round too many)."""
        return [r for r in self.rounds if r.kind != Round.Kind.PLAYOFF]

    def absent(self) -> frozenset[int]:
        """Entrants of the event's first stage withdrawn before taking any part in it: no seat
        in any of its matches, no bye. A no-show replaced at their first table (T7, T1) or a
        player who withdrew before round 1 never played: they have no row in the standings,
        no place and are not counted among the entrants (README, "Director choices"). A
        player who played, or qualified from an earlier stage, keeps a place after everyone
        still in (T7)."""
        if self.number != 1:
            return frozenset()
        gone = [e.entry_id for e in self.entrants if not e.active and e.placing is None]
        if not gone:
            return frozenset()
        took_part = {s.entry_id for r in self.rounds for t in r.tables for s in t.seats}
        took_part.update(p for r in self.rounds for p in r.byes)
        return frozenset(p for p in gone if p not in took_part)

    def withdrawn(self) -> dict[int, int]:
        """Entrants withdrawn or disqualified (T7) -> the round they went out in (0 before
        round 1): the standings rank them after everyone still in, who went further first,
        and the stage places them so (:func:`brackets.engine.compute_standings`). A player
        withdrawn from the event while active here goes out in the stage's latest round, as
        the stage's end records it (``brackets.services.store.withdrawals_sync``). A pairs
        stage ranks partnerships (T10) and is left to its own standings."""
        if self.pairs is not None:
            return {}
        last = self.last_round.number if self.last_round else 0
        out: dict[int, int] = {}
        for e in self.entrants:
            if e.status == StageEntry.Status.WITHDRAWN:
                out[e.entry_id] = e.out_round or 0
            elif e.status == StageEntry.Status.ACTIVE and not e.active:
                out[e.entry_id] = last
        return out

    def ranked(self) -> list[int]:
        """The entrants the standings rank and the places count, seed order: everyone but
        :meth:`absent`."""
        absent = self.absent()
        return [e.entry_id for e in self.entrants if e.entry_id not in absent]


def playoff_groups(rnd: RoundData, players: Iterable[int]) -> list[tuple[int, ...]]:
    """A play-off round's result for ``players``, best first, in groups of players level at
    it (T6): placing at the play-off table. One placing at two play-off tables, a placing
    shared at one (T3), or no placing (a forfeit, T7, or not seated) are level: seed order
    never decides (T3); a group still level on the line plays a further table (T6).
    """
    placing = {
        s.entry_id: s.placing
        for t in rnd.tables  # a forfeit's continuation (T7) places who played on
        for s in t.seats
        if not s.forfeited and s.placing is not None
    }
    groups: dict[int, list[int]] = {}
    for p in players:
        groups.setdefault(placing.get(p) or 99, []).append(p)
    return [tuple(groups[k]) for k in sorted(groups)]


def played_playoffs(data: StageData, *, after: int = 0) -> list[RoundData]:
    """The stage's played-out play-off rounds (T6) after round ``after``, in order."""
    return [
        r
        for r in data.rounds
        if r.number > after and r.kind == Round.Kind.PLAYOFF and r.tables and r.complete
    ]


def plan_end(data: StageData) -> int:
    """The number of the stage's last round of its plan: its play-offs come after it."""
    return max((r.number for r in data.plan_rounds()), default=0)


def fold_playoffs(adv: Advancement, data: StageData, *, after: int) -> Advancement:
    """``adv`` with the stage's played-out play-off rounds after round ``after`` folded in,
    in order (T6): each decides who of the players still level on the line goes on; a group
    still level after the last one stays ``adv.playoff``, for a further play-off table."""
    for rnd in played_playoffs(data, after=after):
        if adv.playoff is None:
            break
        adv = resolve_playoff_groups(adv, playoff_groups(rnd, adv.playoff.players))
    return adv


def level_verdict(
    groups: Sequence[Sequence[int]], players: Sequence[int], spots: int
) -> dict[int, bool | None]:
    """A play-off result in ``groups`` of level players (best first) for ``spots`` places:
    player -> goes on (True), out (False) or still level on the line (None: a further
    play-off table decides, T6). Individual and pairs play-offs alike."""
    adv = resolve_playoff_groups(
        Advancement(advanced=(), playoff=Playoff(tuple(players), spots), eliminated=()), groups
    )
    verdict: dict[int, bool | None] = dict.fromkeys(adv.advanced, True)
    verdict.update({p.player_id: False for p in adv.eliminated})
    verdict.update(dict.fromkeys(adv.playoff.players if adv.playoff else ()))
    return verdict


def playoff_verdict(rnd: RoundData, players: Sequence[int], spots: int) -> dict[int, bool | None]:
    """One played-out play-off round on its own (:func:`level_verdict` of its placings)."""
    return level_verdict(playoff_groups(rnd, players), players, spots)


def playoff_decided(data: StageData) -> set[int]:
    """Players whose latest play-off table of the stage (T6) is played out and settled them:
    the play-off, not a director still to order one, decides their line. Players still
    level after it wait for a further table."""
    latest: dict[int, bool] = {}
    for rnd in data.rounds:
        if rnd.kind != Round.Kind.PLAYOFF:
            continue
        seated = [s.entry_id for t in rnd.tables for s in t.seats]
        level: set[int] = set()
        if rnd.complete and rnd.advancing is not None:
            players = list(rnd.playoff_players) or seated
            verdict = playoff_verdict(rnd, players, rnd.advancing)
            level = {p for p, v in verdict.items() if v is None}
        for entry in seated:
            latest[entry] = rnd.complete and entry not in level
    return {entry for entry, done in latest.items() if done}


def cut_advancement(data: StageData, standings: Standings | None = None) -> Advancement | None:
    """The cut (T6) of a running qualifying stage as its standings stand now: the top
    ``cut_size`` of its active players (everyone without a cut), players level on the line
    after every T5 key named for the play-off, and a played-out play-off table that is the
    stage's last round folded in (its winners through, T6). ``None`` once nobody is active
    (a finished stage: its entrants' statuses hold the verdict).

    The one advancement line: the planning service ends the stage with it ("4 go on, 12 out",
    or a play-off) and the live standings read who is on the line from it, so the spectator
    pages never disagree with the director's. ``standings``: the stage's T5 standings when
    already computed (rows of players no longer active are left out, ranks kept).
    """
    active = {e.entry_id for e in data.entrants if e.active}
    base = standings_from_data(data) if standings is None else standings
    rows = Standings(rows=tuple(r for r in base.rows if r.player_id in active))
    if not rows.rows:
        return None
    adv = advance_cut(rows, min(data.cut_size or len(rows.rows), len(rows.rows)))
    last = data.last_round
    if adv.playoff is not None and last is not None and last.kind == Round.Kind.PLAYOFF:
        adv = fold_playoffs(adv, data, after=plan_end(data))
    return adv


def playoff_ordered(
    data: StageData, rows: Iterable[StandingRow], played_off: set[int] | None = None
) -> list[StandingRow]:
    """Standings rows in the order a stage lists them: T5, and players still level on every
    T5 key whose play-off is played out in the play-off's result (T6: its winner above the
    cut line, not in seed order). The live standings and the director's API list alike.

    Other level rows (before the stage's first result: every row) are listed in stage seed,
    then name, never in the order the entries were made; they still share a rank (T5)."""
    seeds = {e.entry_id: (e.seed, e.name.casefold()) for e in data.entrants}
    last = (len(seeds) + 1, "")  # a player no longer an entrant (T11) after the entrants
    ordered = sorted(rows, key=lambda r: (r.rank, seeds.get(r.player_id, last)))
    played_off = playoff_decided(data) if played_off is None else played_off
    if not played_off:
        return ordered
    # Each played-off player's play-off results in order (T6): their group at every played
    # play-off table they sat at, so a further table orders the players its first left level.
    key: dict[int, tuple[int, ...]] = {}
    for rnd in played_playoffs(data):
        players = [s.entry_id for t in rnd.tables for s in t.seats]
        for i, group in enumerate(playoff_groups(rnd, players)):
            for player in group:
                key[player] = (*key.get(player, ()), i)
    ordered.sort(key=lambda r: (r.rank, key.get(r.player_id, ())))
    # The play-off is T5's last key: it splits the rank its players shared (the loser of a
    # play-off for 3rd is 4th, on every page), and only players it left level stay level.
    by_rank: dict[int, list[tuple[int, ...]]] = {}
    for r in ordered:
        if r.player_id in key:
            by_rank.setdefault(r.rank, []).append(key[r.player_id])
    sig: dict[int, tuple[int, tuple[int, ...]]] = {}
    out: list[StandingRow] = []
    for r in ordered:
        k = key.get(r.player_id, ())
        rank = r.rank + sum(1 for other in by_rank.get(r.rank, ()) if k and other < k)
        sig[r.player_id] = (rank, k)
        out.append(replace(r, rank=rank))
    return [
        replace(r, tied_with=tuple(p for p in r.tied_with if sig.get(p) == sig[r.player_id]))
        if r.tied_with
        else r
        for r in out
    ]


def standings_line(match_id: int, s: SeatData) -> MatchRecord | None:
    """What one seat of a finished match counts for the standings (T4, T5, T7): the one
    selector of it, read by the standings and by every page that shows figures as they count
    (the round's results sheet, a player's record). None for a seat with no line here: the
    players who played on after a forfeit are unplaced in the forfeited match, their line is
    the continuation's (its hands and points alone; the forfeited match's end with it). A
    forfeited seat is a 0-6 loss: no points, no hands, one six-love received, whatever hands
    it won before it left. Statistics pages count every recorded hand instead and say so
    (``ratings.stats``)."""
    if s.placing is None:
        return None
    if s.forfeited:
        return MatchRecord.forfeit_loss(match_id, s.entry_id, s.placing)
    record = _new_record(
        match_id,
        s.entry_id,
        s.placing,
        max(s.points, 0),
        s.hands_won,
        s.six_love_given,
        s.six_love_received,
        s.llaves,
        s.ties,
        s.replays_won,
        False,
    )
    record.__post_init__()  # the T4 checks MatchRecord(...) makes
    return record


def counted_lines(
    match_id: int, seats: Sequence[SeatData], *, partners: bool
) -> list[MatchRecord | None]:
    """Each seat's :func:`standings_line` of a finished match, in ``seats`` order, for the
    pages that show a match's figures as they count (the director's round page, the round's
    results sheet). At a partnership table (R42) a forfeit is the partnership's 0-6 loss
    (T7): both partners read the forfeit's line. ``None``: played on at the continuation."""
    lost = {s.seat % 2 for s in seats if s.forfeited} if partners and len(seats) == 4 else set()
    return [
        standings_line(match_id, replace(s, forfeited=True) if s.seat % 2 in lost else s)
        for s in seats
    ]


def seat_data(seat: Seat | dict[str, Any]) -> SeatData:
    """A stored seat (:class:`scoring.models.Seat`, or a ``values()`` row of its fields) as
    :class:`SeatData`."""
    if isinstance(seat, dict):
        return SeatData(**{f.name: seat[f.name] for f in fields(SeatData)})
    return SeatData(**{f.name: getattr(seat, f.name) for f in fields(SeatData)})


def round_records(round_data: RoundData) -> list[MatchRecord]:
    """The T4 lines of a round's finished matches (:func:`standings_line`, forfeits per
    T7)."""
    out: list[MatchRecord] = []
    for t in round_data.tables:
        if t.status != FINISHED:
            continue
        for s in t.seats:
            record = standings_line(t.match_id, s)
            if record is not None:
                out.append(record)
    return out


# Seat columns read for the engine, by name: the seat's own fields, then its match's and round
# link's. Rows come back as tuples in this order (a dict per row was a fifth of a 5,000-player
# standings build); ``_SEAT_DATA`` is the slice that makes a SeatData, in its field order.
_SEAT_FIELDS: tuple[str, ...] = (
    "match_id",
    "entry_id",
    "seat",
    "placing",
    "points",
    "hands_won",
    "six_love_given",
    "six_love_received",
    "llaves",
    "ties",
    "replays_won",
    "forfeited",
    "match__status",
    "match__end_reason",
    "match__round_link__round_id",
    "match__round_link__table_number",
)
_SEAT_DATA = slice(1, 12)
_ENTRANT_FIELDS = (
    "id",
    "entry_id",
    "seed",
    "status",
    "joined_round",
    "out_round",
    "placing",
    "entry__player__name",
    "entry__player__club",
    "entry__player__rating",
    "entry__status",
)
assert tuple(f.name for f in fields(SeatData)) == _SEAT_FIELDS[_SEAT_DATA]
# Rows from the database, built field by field without the frozen __init__ (a 5,000-player
# stage reads 15,000 seats and as many T4 lines; the lines still run MatchRecord's checks).
_new_seat = unchecked(SeatData)
_new_record = unchecked(MatchRecord)
assert len(fields(EntrantData)) == len(_ENTRANT_FIELDS)


def stage_data(*, stage_id: int) -> StageData:
    """Load a stage for the engine with four queries, whatever its size (STYLE.md §2).

    Raises :class:`NotFoundError` for an unknown stage.
    """
    stage = Stage.objects.filter(pk=stage_id).first()
    if stage is None:
        raise NotFoundError(f"No stage {stage_id}.", code="not_found")
    return stage_data_for(stage)


def stage_data_for(stage: Stage) -> StageData:
    """:func:`stage_data` for an already loaded (possibly locked) stage: three queries."""
    # EntrantData's fields are _ENTRANT_FIELDS in order (asserted at import).
    # Both reads are thousands of rows at a large event: values_rows (binary, prepared).
    entrants = tuple(
        EntrantData(*row)
        for row in values_rows(
            StageEntry.objects.filter(stage_id=stage.pk)
            .order_by("seed")
            .values_list(*_ENTRANT_FIELDS)
        )
    )
    # Per round, per match (dicts keep the table-number order of the query).
    seats_by_round: dict[int, dict[int, list[tuple[Any, ...]]]] = {}
    for row in values_rows(
        Seat.objects.filter(match__round_link__round__stage_id=stage.pk)
        .order_by(
            "match__round_link__round_id",
            "match__round_link__table_number",
            "match_id",
            "seat",
        )
        .values_list(*_SEAT_FIELDS)
    ):
        # row: match_id, the SeatData fields, status, end_reason, round_id, table_number
        seats_by_round.setdefault(row[14], {}).setdefault(row[0], []).append(row)
    rounds: list[RoundData] = []
    for r in Round.objects.filter(stage_id=stage.pk).order_by("number"):
        tables: list[TableData] = []
        for rows in seats_by_round.get(r.pk, {}).values():
            match_id, *_, status, end_reason, _round_id, table_number = rows[0]
            tables.append(
                TableData(
                    match_id=match_id,
                    table_number=table_number,
                    status=status,
                    end_reason=end_reason,
                    seats=tuple([_new_seat(*x[_SEAT_DATA]) for x in rows]),
                )
            )
        rounds.append(
            RoundData(
                id=r.pk,
                number=r.number,
                kind=r.kind,
                status=r.status,
                byes=tuple(r.byes),
                advancing=r.advancing,
                playoff_players=tuple(r.playoff_players),
                advanced_at=r.advanced_at,
                tables=tuple(tables),
                closed_at=r.closed_at,
            )
        )
    return StageData(
        id=stage.pk,
        tournament_id=stage.tournament_id,
        number=stage.number,
        name=stage.name,
        kind=stage.kind,
        status=stage.status,
        swiss_rounds=stage.swiss_rounds,
        cut_size=stage.cut_size,
        advance_per_table=stage.advance_per_table,
        final_table_size=stage.final_table_size,
        allow_three=stage.allow_three,
        bye_policy=stage.bye_policy,
        seat_order=stage.seat_order,
        rng_seed=stage.rng_seed,
        auto_advance=stage.auto_advance,
        round_time_limit=stage.round_time_limit,
        entrants=entrants,
        rounds=tuple(rounds),
        pairs=(
            pairs_data_for(tournament_id=stage.tournament_id, stage_id=stage.pk)
            if stage.pairs
            else None
        ),
    )


def standings_from_data(data: StageData, *, players: Iterable[int] | None = None) -> Standings:
    """T5 standings of a loaded stage: its qualifying or knockout rounds, byes per T1; players
    withdrawn (T7) after everyone still in (:meth:`StageData.withdrawn`), as the stage places
    them.

    ``players`` restricts the rows to those players (ranks are kept, so a shared rank still
    means "level after every T5 key"); by default every entrant has a row.
    """
    standings = compute_standings(
        data.records(),
        players=data.ranked(),
        byes=data.byes(),
        bye_policy=ByePolicy(data.bye_policy),
        withdrawn=data.withdrawn(),  # after everyone still in (T7)
    )
    if players is None:
        return standings
    keep = set(players)
    return Standings(rows=tuple(r for r in standings.rows if r.player_id in keep))


def stage_standings(data: StageData) -> Standings:
    """The standings a stage shows and places by (T5): its Swiss and knockout rounds, or, for
    a stage that is a final table alone, the final itself (one match, its points, the single
    first place's win, T4). Play-off tables only break a tie on the advancement line (T6) and
    never count here. The final table's players level at it are placed in this order
    (:func:`brackets.engine.final_table_places`), so the places agree with the columns."""
    if any(r.kind in STANDINGS_KINDS for r in data.rounds):
        return standings_from_data(data)
    final = data.records((Round.Kind.FINAL,))
    if not final:
        return standings_from_data(data)
    return compute_standings(
        final,
        players=data.ranked(),
        byes=[],
        bye_policy=ByePolicy(data.bye_policy),
        withdrawn=data.withdrawn(),
    )
