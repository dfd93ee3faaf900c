"""Read side of the tournament bracket (the director overview's stage-by-stage tree): plain
frozen rows for the template, built in a fixed number of queries."""

from __future__ import annotations

from dataclasses import dataclass, field

from brackets.models import Round, Stage, StageEntry
from brackets.presenters.pairs import (
    SideLine,
    pair_sides,
    round_kind_label,
    stage_kind_label,
)
from brackets.presenters.seat_line import SeatLine
from brackets.selectors import StageData, stage_data_for, tournament_placings, went_on
from brackets.selectors.pairs import (
    pairs_of_entries,
    pairs_placings,
    round_bye_pairs,
    stage_pairs,
)
from brackets.selectors.stage_data import counted_lines
from core.choice_labels import choice_label
from scoring.engine.placing import sole_first
from scoring.models import Match
from scoring.presenters.match import SEAT_LETTERS
from tournament.models import Tournament
from tournament.partnerships import is_pairs_event


@dataclass(frozen=True, slots=True)
class BracketTable:
    number: int
    match_id: int
    status: str
    end_reason: str
    seats: tuple[SeatLine, ...]
    sides: tuple[SideLine, ...] = ()
    """In a pairs stage, the table's two partnerships, each once with its place (T9, R42)."""
    continuation: bool = False
    """A forfeit's continuation (T7): the second match at this table in the round."""


@dataclass(frozen=True, slots=True)
class BracketRound:
    id: int
    number: int
    kind: str
    kind_label: str
    status: str
    status_label: str
    tables: tuple[BracketTable, ...]
    byes: tuple[str, ...]
    going_on: int

    @property
    def table_count(self) -> int:
        """Physical tables: a forfeited match and its continuation (T7) are one table, each
        its own card."""
        return len({t.number for t in self.tables})


@dataclass(frozen=True, slots=True)
class BracketStage:
    id: int
    number: int
    name: str
    kind: str
    kind_label: str
    status: str
    status_label: str
    entrants: int
    rounds: tuple[BracketRound, ...]
    advanced: tuple[str, ...] = ()
    """Who went on: players, or in a pairs stage partnerships, each named once (T9)."""
    final: BracketRound | None = None
    partnerships: int | None = None
    """A pairs stage's partnerships (T9); ``None`` for an individual stage."""


@dataclass(frozen=True, slots=True)
class Bracket:
    stages: tuple[BracketStage, ...]
    placings: tuple[tuple[int, str], ...] = field(default=())
    """(place, name): players, or in a pairs event partnerships, each named once (T9, T10)."""
    pairs: bool = False

    @property
    def final(self) -> BracketRound | None:
        for stage in reversed(self.stages):
            if stage.final is not None:
                return stage.final
        return None


def _bracket_stage(
    stage: Stage, data: StageData, next_seed: dict[int, int], previous_cut: int | None
) -> BracketStage:
    by_entry = {e.entry_id: e for e in data.entrants}
    pairs = data.pairs is not None
    # T11: a replaced player is no longer an entrant but keeps the tables they sat at.
    played = data.pairs.roster.player if data.pairs is not None else (lambda _e: "")
    rounds: list[BracketRound] = []
    for rnd in data.rounds:
        mark = went_on(data, rnd)  # as the public bracket marks it
        tables = []
        seen_tables: set[int] = set()  # a table's matches come in id order (T7)
        for t in rnd.tables:
            continuation = t.table_number in seen_tables
            seen_tables.add(t.table_number)
            first = sole_first([s.placing or 0 for s in t.seats])
            # A finished match's points as the standings count them (T5, T7; README rule
            # decision 6): a forfeit is a 0-6 loss, and the players who played on at the
            # continuation have no line here (the round page's and results sheet's selector).
            lines = (
                counted_lines(t.match_id, t.seats, partners=pairs)
                if t.status == Match.Status.FINISHED
                else None
            )
            points = (
                [s.points for s in t.seats]
                if lines is None
                else [None if line is None else line.points for line in lines]
            )
            forfeit = any(s.forfeited for s in t.seats)
            seats = tuple(
                SeatLine(
                    letter=SEAT_LETTERS[s.seat] if s.seat < len(SEAT_LETTERS) else "?",
                    entry_id=s.entry_id,
                    name=by_entry[s.entry_id].name
                    if s.entry_id in by_entry
                    else played(s.entry_id) or f"#{s.entry_id}",
                    seed=by_entry[s.entry_id].seed if s.entry_id in by_entry else None,
                    points=points[k],
                    placing=s.placing,
                    forfeited=s.forfeited,
                    played_on=lines is not None and lines[k] is None and forfeit,
                    goes_on=mark(s.entry_id) is True,
                    won=first is not None and k == first,
                )
                for k, s in enumerate(t.seats)
            )
            tables.append(
                BracketTable(
                    number=t.table_number,
                    match_id=t.match_id,
                    status=t.status,
                    end_reason=t.end_reason,
                    seats=seats,
                    sides=pair_sides(
                        seats,
                        data.pairs.roster.table_pairs([s.entry_id for s in seats]),
                        finished=t.status == Match.Status.FINISHED,
                    )
                    if data.pairs is not None
                    else (),
                    continuation=continuation,
                )
            )
        rounds.append(
            BracketRound(
                id=rnd.id,
                number=rnd.number,
                kind=rnd.kind,
                kind_label=round_kind_label(rnd.kind, pairs=pairs),
                status=rnd.status,
                status_label=choice_label(Round.Status, rnd.status),
                tables=tuple(tables),
                byes=tuple(p.label for p in round_bye_pairs(data, rnd))
                if data.pairs is not None
                else tuple(by_entry[p].name for p in rnd.byes if p in by_entry),
                # Players who went on, or in a pairs stage their partnerships (T10).
                going_on=len(
                    pairs_of_entries(
                        data, (s.entry_id for t in tables for s in t.seats if s.goes_on)
                    )
                )
                if data.pairs is not None
                else sum(1 for t in tables for s in t.seats if s.goes_on),
            )
        )
    # In advancement order: the next stage's seeds (or this stage's places after the last).
    advanced = sorted(
        (e for e in data.entrants if e.status == StageEntry.Status.ADVANCED),
        key=lambda e: (next_seed.get(e.entry_id, 10**9), e.placing or 10**9, e.seed),
    )
    final = next((r for r in reversed(rounds) if r.kind == Round.Kind.FINAL), None)
    return BracketStage(
        id=stage.pk,
        number=stage.number,
        name=stage.name,
        kind=stage.kind,
        # A knockout whose field is the final table is that table alone (T6, T10).
        kind_label=stage_kind_label(stage, previous_cut),
        status=stage.status,
        status_label=choice_label(Stage.Status, stage.status),
        entrants=len(data.ranked()),
        rounds=tuple(rounds),
        advanced=tuple(p.label for p in pairs_of_entries(data, (e.entry_id for e in advanced)))
        if data.pairs is not None
        else tuple(e.name for e in advanced),
        final=final,
        partnerships=None if data.pairs is None else len(stage_pairs(data)),
    )


def build_bracket(tournament: Tournament) -> Bracket:
    """Stages, rounds, tables, who went on, the final table and the final places. Four
    queries per stage and one for the places."""
    stages = list(Stage.objects.filter(tournament=tournament).order_by("number"))
    datas = [stage_data_for(s) for s in stages]
    built: list[BracketStage] = []
    for i, (stage, data) in enumerate(zip(stages, datas, strict=True)):
        following = datas[i + 1] if i + 1 < len(datas) else None
        next_seed = {e.entry_id: e.seed for e in following.entrants} if following else {}
        previous_cut = stages[i - 1].cut_size if i else None
        built.append(_bracket_stage(stage, data, next_seed, previous_cut))
    if is_pairs_event(tournament):
        # T10: a partnership holds one place; both partners are named in it, once.
        placings = tuple((p.place, p.label) for p in pairs_placings(tournament_id=tournament.pk))
        return Bracket(stages=tuple(built), placings=placings, pairs=True)
    placings = tuple((p.place, p.name) for p in tournament_placings(tournament_id=tournament.pk))
    return Bracket(stages=tuple(built), placings=placings)
