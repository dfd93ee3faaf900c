"""Who goes through at the end of a stage, and where the others finish (T6, T5).

Glossary:
    cut            -- the top N of the standings advance (T6).
    per-table      -- the top k (1 or 2) of every table by placing advance, plus the best
                      non-advancing players by standings to fill a target field (T6); players
                      who shared a table's line (T3) come before the rest of the field.
    line           -- the last advancing position. Players level on it after every T5 key
                      (standings rows sharing a rank) are *contested*: the result names them and
                      the number of spots they play for; the service creates the play-off table
                      (T6) and feeds its order back through :func:`resolve_playoff`.
    place          -- an eliminated player's final place: after everyone who went further, in
                      standings order; players level in the standings share a place.
    final table    -- the last stage's last round (T6): its result places its players first;
                      players level at it (a shared placing, T3) are ordered by the stage's
                      standings (T5) and share a place only if still level there. A shared
                      first stays shared: no champion without a win (T3).

Invariant: ``len(advanced) + playoff.spots`` is exactly the number the stage promised.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from brackets.engine.errors import BracketError
from brackets.engine.model import ByePolicy, PlayerId
from brackets.engine.standings import (
    MatchId,
    MatchRecord,
    StandingRow,
    Standings,
    check_shared_placings,
)


@dataclass(frozen=True, slots=True)
class Playoff:
    """Players level on the advancement line after T5, playing for ``spots`` places (T6)."""

    players: tuple[PlayerId, ...]
    spots: int


@dataclass(frozen=True, slots=True)
class Placement:
    """An eliminated player's final place (shared by players level in the standings)."""

    player_id: PlayerId
    place: int


@dataclass(frozen=True, slots=True)
class Advancement:
    """The outcome of a stage's advancement (T6).

    ``advanced`` is sure to go through (standings order); ``playoff``, if any, names who plays
    for the remaining spots; ``eliminated`` holds everyone else with their final place.
    """

    advanced: tuple[PlayerId, ...]
    playoff: Playoff | None
    eliminated: tuple[Placement, ...]

    @property
    def promised(self) -> int:
        """How many players this stage sends on once the play-off is played."""
        return len(self.advanced) + (self.playoff.spots if self.playoff else 0)


def standings_places(rows: Sequence[StandingRow], first_place: int) -> tuple[Placement, ...]:
    """Places from ``first_place`` on, in standings order; equal ranks share a place (the
    places of eliminated players, and of withdrawn ones after everyone else, T6, T7)."""
    out: list[Placement] = []
    for i, row in enumerate(rows):
        if i and row.rank == rows[i - 1].rank:
            out.append(Placement(row.player_id, out[-1].place))
        else:
            out.append(Placement(row.player_id, first_place + i))
    return tuple(out)


def _fill(
    pool: Sequence[StandingRow], spots: int, ahead: int
) -> tuple[list[PlayerId], Playoff | None, tuple[Placement, ...]]:
    """Take the best ``spots`` of ``pool`` (standings order) with T6's play-off on the line.

    ``ahead`` players already advance; eliminated places start after them and after any
    play-off players.
    """
    if spots >= len(pool):
        return [r.player_id for r in pool], None, ()
    if spots == 0:
        return [], None, standings_places(pool, ahead + 1)
    line_rank = pool[spots - 1].rank
    if pool[spots].rank != line_rank:
        return (
            [r.player_id for r in pool[:spots]],
            None,
            standings_places(pool[spots:], ahead + spots + 1),
        )
    sure = [r.player_id for r in pool if r.rank < line_rank]
    level = [r.player_id for r in pool if r.rank == line_rank]
    out = [r for r in pool if r.rank > line_rank]
    playoff = Playoff(players=tuple(level), spots=spots - len(sure))
    return sure, playoff, standings_places(out, ahead + len(sure) + len(level) + 1)


def _line_first(rows: Sequence[StandingRow], first: set[PlayerId]) -> list[StandingRow]:
    """``rows`` (standings order) with the players in ``first`` ahead of everyone else, each
    group in standings order; ranks are renumbered so that players are level only within a
    group (equal standings rank and the same group)."""
    offset = max((r.rank for r in rows), default=0)
    ahead = [r for r in rows if r.player_id in first]
    behind = [replace(r, rank=r.rank + offset) for r in rows if r.player_id not in first]
    return [*ahead, *behind]


def advance_cut(standings: Standings, top: int) -> Advancement:
    """The top ``top`` of the standings advance (T6 cut).

    Ties on the line are broken by T5 (already in the standings ranks); players still level
    there are returned as a :class:`Playoff` for the contested spots. If ``top`` is at least
    the field, everyone advances.

    Raises :class:`BracketError` ``bad_cut`` when ``top`` < 1.
    """
    if top < 1:
        raise BracketError(
            code="bad_cut",
            rule="T6",
            field="top",
            message=f"A cut must let at least one player through, not {top} (T6).",
        )
    advanced, playoff, eliminated = _fill(standings.rows, top, 0)
    return Advancement(advanced=tuple(advanced), playoff=playoff, eliminated=eliminated)


def advance_per_table(
    round_records: Iterable[MatchRecord],
    standings: Standings,
    *,
    per_table: int,
    target: int | None = None,
    byes: Iterable[PlayerId] = (),
    bye_policy: ByePolicy = ByePolicy.WIN,
) -> Advancement:
    """Top ``per_table`` of every table advance, then the best others fill ``target`` (T6).

    ``round_records`` are the T4 lines of the deciding round (one match per table); a forfeit
    never advances by placing (T7). Under :attr:`ByePolicy.WIN` a player with a bye in that
    round advances as if they had won a table (T1). ``standings`` ranks everyone in the stage
    and orders the fill (players who shared a table's line first, T3), its line (T5, play-off
    if still level) and the eliminated places.
    ``target`` ``None`` means no fill.

    Raises :class:`BracketError` ``bad_per_table`` (k not 1 or 2), ``unknown_player`` (a table
    player missing from the standings), ``duplicate_placing`` (a shared placing that does not
    skip the places it covers, T3) or ``target_too_small`` (fewer spots than table
    qualifiers).
    """
    if per_table not in (1, 2):
        raise BracketError(
            code="bad_per_table",
            rule="T6",
            field="per_table",
            message=f"Per-table advancement takes the top 1 or 2 of a table, not {per_table} (T6).",
        )
    tables: dict[MatchId, list[MatchRecord]] = defaultdict(list)
    for rec in round_records:
        tables[rec.match_id].append(rec)
    for match_id, recs in tables.items():
        check_shared_placings(match_id, (r.placing for r in recs))
    # T3: players sharing a placing go through on it only if the whole group fits in the top
    # ``per_table``; otherwise the standings decide them with the fill (T5, T6).
    qualified = {
        r.player_id
        for recs in tables.values()
        for r in recs
        if not r.forfeit and sum(1 for o in recs if o.placing <= r.placing) <= per_table
    }
    if bye_policy is ByePolicy.WIN:
        qualified.update(byes)
    known = {r.player_id for r in standings.rows}
    unknown = sorted(qualified - known)
    if unknown:
        raise BracketError(
            code="unknown_player",
            rule="T6",
            field="standings",
            message=f"Qualifiers {', '.join(map(str, unknown))} are missing from the standings "
            "(T6).",
        )
    goal = len(qualified) if target is None else target
    if goal < len(qualified):
        raise BracketError(
            code="target_too_small",
            rule="T6",
            field="target",
            message=f"{len(qualified)} players qualify from their tables; a target field of "
            f"{goal} leaves no room for them (T6).",
        )
    # A table's unresolved spots go first to the players who shared its line (T3), then to the
    # rest of the field: someone who finished clearly below the line of their own table never
    # plays off for a spot that players level on another table's line could not settle.
    on_a_line = {
        r.player_id
        for recs in tables.values()
        for r in recs
        if not r.forfeit and r.player_id not in qualified and r.placing <= per_table
    }
    pool = _line_first([r for r in standings.rows if r.player_id not in qualified], on_a_line)
    filled, playoff, eliminated = _fill(pool, goal - len(qualified), len(qualified))
    chosen = qualified.union(filled)
    advanced = tuple(r.player_id for r in standings.rows if r.player_id in chosen)
    return Advancement(advanced=advanced, playoff=playoff, eliminated=eliminated)


def resolve_playoff(advancement: Advancement, order: Sequence[PlayerId]) -> Advancement:
    """Fold a strict play-off order (best first, nobody level) into an advancement (T6): the
    first ``spots`` players advance; the others are eliminated with the places right after
    the advancing field, in play-off order. :func:`resolve_playoff_groups` with one player
    per group.

    Raises :class:`BracketError` ``no_playoff`` or ``playoff_mismatch`` (``order`` is not
    exactly the play-off players).
    """
    return resolve_playoff_groups(advancement, [(p,) for p in order])


def resolve_playoff_groups(
    advancement: Advancement, groups: Sequence[Sequence[PlayerId]]
) -> Advancement:
    """Fold a play-off's result into an advancement (T6). ``groups`` lists the play-off
    players best first, players level at the play-off (a shared placing, T3, or the same
    placing at two play-off tables) in one group.

    Groups that fit in the ``spots`` advance; groups wholly below them are eliminated with
    the places right after the advancing field and whoever still plays off, in play-off
    order (a group shares its place). A group that straddles the line is still level on it:
    the result keeps it as a smaller :class:`Playoff` for the spots left, and the service
    creates a further play-off table (T6: "if still tied, by a play-off table the system
    creates"). Seed order never decides a spot (T3).

    Raises :class:`BracketError` ``no_playoff`` or ``playoff_mismatch`` (``groups`` do not
    hold exactly the play-off players, each once).
    """
    playoff = advancement.playoff
    if playoff is None:
        raise BracketError(
            code="no_playoff",
            rule="T6",
            field="order",
            message="This advancement has no play-off to resolve (T6).",
        )
    flat = [p for g in groups for p in g]
    if sorted(flat) != sorted(playoff.players) or len(set(flat)) != len(flat) or not all(groups):
        raise BracketError(
            code="playoff_mismatch",
            rule="T6",
            field="order",
            message=f"The play-off order must list exactly players {list(playoff.players)} (T6).",
        )
    winners: list[PlayerId] = []
    level: tuple[PlayerId, ...] = ()
    below: list[Sequence[PlayerId]] = []
    for group in groups:
        room = playoff.spots - len(winners)
        if level or room <= 0:
            below.append(group)
        elif len(group) <= room:
            winners.extend(group)
        else:
            level = tuple(group)
    still = Playoff(players=level, spots=playoff.spots - len(winners)) if level else None
    first = len(advancement.advanced) + len(winners) + len(level) + 1
    losers: list[Placement] = []
    for group in below:
        losers.extend(Placement(p, first) for p in group)
        first += len(group)
    return Advancement(
        advanced=advancement.advanced + tuple(winners),
        playoff=still,
        eliminated=tuple(losers) + advancement.eliminated,
    )


def final_table_places(
    final: Iterable[MatchRecord],
    standings: Standings,
    *,
    players: Iterable[PlayerId] = (),
) -> tuple[Placement, ...]:
    """The places of the final table's players (T6), best first, from place 1.

    ``final`` holds the T4 lines of the final round: one placed line per player (after a
    forfeit, T7, the forfeiting player's line in the forfeited match and the others' lines in
    its continuation, so the forfeiting player comes after everyone who played on). Players
    take the places of the final's result; players level there (a shared placing, T3) are
    ordered by ``standings`` (T5 over the stage's record: match wins, hands won, six-loves
    given, head-to-head) and share a place only when the standings rank them level too. A
    first place shared at the final stays shared (1, 1, 3, 4): a champion needs a win of the
    final or the director's play-off (T3, T5), never the record of the rounds before it.
    ``players`` may name finalists with no placed line (a void final): they come after the
    placed lines and before any forfeit, in standings order. Seed and seat order never decide
    a place (T3).

    Raises :class:`BracketError` ``duplicate_record`` (a player with two placed lines) or
    ``unknown_player`` (a finalist missing from the standings).
    """
    rank = {r.player_id: r.rank for r in standings.rows}
    lines: dict[PlayerId, MatchRecord] = {}
    for rec in final:
        if rec.player_id in lines:
            raise BracketError(
                code="duplicate_record",
                rule="T4",
                field="final",
                message=f"Player {rec.player_id} has two placed lines at the final table (T4).",
            )
        lines[rec.player_id] = rec
    unplaced = [p for p in dict.fromkeys(players) if p not in lines]
    unknown = sorted(p for p in (*lines, *unplaced) if p not in rank)
    if unknown:
        raise BracketError(
            code="unknown_player",
            rule="T6",
            field="standings",
            message=f"Finalists {', '.join(map(str, unknown))} are missing from the standings "
            "(T6).",
        )
    # Level groups at the table, best first: who played the final to its end, by placing,
    # then finalists without a line, then forfeits (T7: a forfeit never places by placing).
    groups: dict[tuple[int, int], list[PlayerId]] = defaultdict(list)
    for p, rec in lines.items():
        groups[(2 if rec.forfeit else 0, rec.placing)].append(p)
    if unplaced:
        groups[(1, 0)] = unplaced
    out: list[Placement] = []
    first = 1
    for key in sorted(groups):
        group = sorted(groups[key], key=lambda p: (rank[p], p))
        shared_first = key == (0, 1)
        for i, p in enumerate(group):
            if i and (shared_first or rank[p] == rank[group[i - 1]]):
                out.append(Placement(p, out[-1].place))
            else:
                out.append(Placement(p, first + i))
        first += len(group)
    return tuple(out)
