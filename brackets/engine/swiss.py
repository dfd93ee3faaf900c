"""Swiss-style reseating for qualifying rounds (T8, T1).

Glossary:
    record order -- players by match wins, then hands won, best first (T5's first two keys);
                    equal records in an order drawn from the injected rng.
    pair cost    -- the price of seating two players at one table:
                    ``repeat·meetings + club·same_club + wins_gap·|match-win difference|``.
    table cost   -- the sum of the pair costs of a table; the seating cost is the sum over
                    tables. Lower is better.
    greedy       -- :func:`seat_greedy`: take the best unseated player, then fill the table
                    with the cheapest of the next few players in record order.
    swap         -- exchange two players of different tables whose match wins differ by at
                    most ``wins_window`` and whose tables are at most ``table_window`` apart.

:func:`reseat_swiss` starts from the greedy seating and applies improving swaps until none is
left. A swap is accepted only if it lowers the total cost *and does not add a repeat meeting*:
T8 puts repeat avoidance first, so the optimiser never seats more repeat pairs than the greedy
seating it started from. Costs are kept incrementally (a swap is priced from the two tables
only, O(table size) dict look-ups) so a 10,000-player field with five earlier rounds seats in
well under two seconds. With integer weights every accepted swap lowers an integer cost, so the
search always ends; ``max_moves`` bounds it further.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from brackets.engine.composition import choose_byes, plan_tables
from brackets.engine.errors import BracketError
from brackets.engine.history import History
from brackets.engine.model import Entrant, PlayerId, Record, Seating, StageConfig, Table
from brackets.engine.seats import order_seats

_ZERO_RECORD = Record()

T = TypeVar("T")
Rec = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SwissOptions:
    """Weights and search limits of the Swiss reseating (T8). Integers, so costs are exact."""

    repeat: int = 100
    """Cost per earlier meeting of two players seated together (T8: avoid repeat opponents)."""
    club: int = 30
    """Cost per pair of players from the same club at one table (T8)."""
    wins_gap: int = 10
    """Cost per match win of difference between two players at one table (similar records)."""
    greedy_window: int = 12
    """How far down the record order the greedy start looks for a table mate."""
    table_window: int = 8
    """Swaps consider tables at most this many table numbers apart (the score window)."""
    wins_window: int = 1
    """... and only partners whose match wins differ by at most this many."""
    max_moves: int | None = None
    """Upper bound on accepted swaps; ``None`` means 20 per player."""

    def __post_init__(self) -> None:
        minimums = {"repeat": 0, "club": 0, "wins_gap": 0, "greedy_window": 1}
        minimums |= {"table_window": 0, "wins_window": 0, "max_moves": 0}
        for name, minimum in minimums.items():
            value = getattr(self, name)
            if value is not None and value < minimum:
                raise BracketError(
                    code="bad_option",
                    rule="T8",
                    field=name,
                    message=f"Swiss option {name} must be at least {minimum}, not {value} (T8).",
                )


@dataclass(frozen=True, slots=True)
class SeatingCost:
    """What a seating costs, term by term (T8)."""

    repeats: int
    """Sum over seated pairs of their earlier meetings (a pair that met twice counts 2)."""
    same_club: int
    """Seated pairs from the same club."""
    wins_gap: int
    """Sum over seated pairs of their match-win difference."""

    def total(self, options: SwissOptions) -> int:
        return (
            options.repeat * self.repeats
            + options.club * self.same_club
            + options.wins_gap * self.wins_gap
        )


class _Field:
    """The players of one Swiss round as dense indices, with everything a pair cost needs."""

    __slots__ = ("club", "cost", "ids", "meet", "opts", "wins")

    def __init__(
        self,
        ids: Sequence[PlayerId],
        clubs: Mapping[PlayerId, str | None],
        records: Mapping[PlayerId, Record],
        history: History,
        opts: SwissOptions,
    ) -> None:
        self.ids = list(ids)
        self.opts = opts
        index = {p: i for i, p in enumerate(self.ids)}
        club_index: dict[str, int] = {}
        self.club = [
            -1 if (c := clubs.get(p)) is None else club_index.setdefault(c, len(club_index))
            for p in self.ids
        ]
        self.wins = [records.get(p, _ZERO_RECORD).match_wins for p in self.ids]
        # Earlier meetings keyed by dense index; players outside this round are dropped.
        self.meet: list[dict[int, int]] = []
        for p in self.ids:
            row: dict[int, int] = {}
            for q, k in history.opponents(p).items():
                j = index.get(q)
                if j is not None:
                    row[j] = k
            self.meet.append(row)
        self.cost = self._pair_cost()

    def _pair_cost(self) -> Callable[[int, int], int]:
        # A closure over locals: the search calls it millions of times on big fields.
        meet, wins, club = self.meet, self.wins, self.club
        w_repeat, w_gap, w_club = self.opts.repeat, self.opts.wins_gap, self.opts.club

        def cost(i: int, j: int) -> int:
            c = w_repeat * meet[i].get(j, 0) + w_gap * abs(wins[i] - wins[j])
            ci = club[i]
            if ci >= 0 and ci == club[j]:
                c += w_club
            return c

        return cost


def record_order(items: Sequence[T], rng: random.Random, record: Callable[[T], Rec]) -> list[T]:
    """``items`` in record order, best first: by ``record`` (match wins, then hands won: T5's
    first two keys), equal records in an order drawn from ``rng`` (replayable from its seed).
    Shared by the Swiss reseating of players (T8) and of partnerships (T9)."""
    drawn = list(items)
    rng.shuffle(drawn)
    drawn.sort(key=lambda x: tuple(-k for k in record(x)))  # stable: ties keep the draw
    return drawn


def _prepare(
    entrants: Sequence[Entrant],
    records: Mapping[PlayerId, Record],
    history: History,
    config: StageConfig,
    rng: random.Random,
    opts: SwissOptions,
) -> tuple[_Field, tuple[int, ...], tuple[PlayerId, ...]]:
    """Record order, byes (T1) and the field of seated players."""
    ids = sorted(e.player_id for e in entrants)
    if len(set(ids)) != len(ids):
        raise BracketError(
            code="duplicate_player",
            rule="T8",
            field="entrants",
            message="A player is entered twice (T8).",
        )
    plan = plan_tables(len(ids), allow_three=config.allow_three)
    ids = record_order(
        ids, rng, lambda p: ((r := records.get(p, _ZERO_RECORD)).match_wins, r.hands_won)
    )
    byes = choose_byes(ids, plan.byes, history)
    bye_set = set(byes)
    seated = [p for p in ids if p not in bye_set]
    clubs = {e.player_id: e.club for e in entrants}
    return _Field(seated, clubs, records, history, opts), plan.sizes, byes


def _greedy(field: _Field, sizes: Sequence[int]) -> list[list[int]]:
    """Fill tables top down: best unseated player, then the cheapest of the next few.

    Dense indices are already in record order, so "next in record order" is "next index".
    """
    n = len(field.ids)
    taken = [False] * n
    window = field.opts.greedy_window
    cost = field.cost
    head = 0
    tables: list[list[int]] = []
    for size in sizes:
        while taken[head]:
            head += 1
        members = [head]
        taken[head] = True
        for _ in range(size - 1):
            best, best_cost, seen, c = -1, 0, 0, head
            while seen < window and c < n:
                if not taken[c]:
                    price = sum(cost(c, m) for m in members)
                    if best < 0 or price < best_cost:
                        best, best_cost = c, price
                    seen += 1
                c += 1
            taken[best] = True
            members.append(best)
        tables.append(members)
    return tables


def _improve(field: _Field, tables: list[list[int]]) -> int:
    """Apply improving swaps that add no repeat meeting (T8); returns the number applied.

    Per table, each member's cost and repeats against its table mates are cached and
    refreshed only when a swap touches the table, so pricing a swap of p (table A) with q
    (table B) needs p against B and q against A only.
    """
    opts = field.opts
    cost, meet, wins = field.cost, field.meet, field.wins
    n_tables = len(tables)
    limit = opts.max_moves if opts.max_moves is not None else 20 * len(field.ids)
    window, wins_window = opts.table_window, opts.wins_window
    in_cost: list[list[int]] = [[] for _ in tables]  # member's cost against table mates
    in_rep: list[list[int]] = [[] for _ in tables]  # member's earlier meetings with them

    def refresh(t: int) -> bool:
        """Recompute table t's caches; True if any pair there costs something."""
        members = tables[t]
        in_cost[t] = [sum(cost(p, o) for o in members if o != p) for p in members]
        in_rep[t] = [sum(meet[p].get(o, 0) for o in members if o != p) for p in members]
        return any(in_cost[t])

    queue = deque(t for t in range(n_tables) if refresh(t))
    queued = [False] * n_tables
    for t in queue:
        queued[t] = True
    moves = 0
    while queue and moves < limit:
        a = queue.popleft()
        queued[a] = False
        improved = True
        while improved and moves < limit:
            improved = False
            table_a = tables[a]
            for i, p in enumerate(table_a):
                p_in_a = in_cost[a][i]
                if p_in_a == 0:
                    continue
                rest_a = [o for o in table_a if o != p]
                best: tuple[int, int, int] | None = None  # (delta, table, seat index in it)
                for b in range(max(0, a - window), min(n_tables, a + window + 1)):
                    if b == a:
                        continue
                    table_b, b_cost = tables[b], in_cost[b]
                    p_vs_b = [cost(p, o) for o in table_b]
                    p_in_b = sum(p_vs_b)
                    for j, q in enumerate(table_b):
                        if abs(wins[q] - wins[p]) > wins_window:
                            continue
                        # delta = (q in A) - (p in A) + (p in B without q) - (q in B)
                        partial = p_in_b - p_vs_b[j] - b_cost[j] - p_in_a
                        if partial >= 0 or (best is not None and partial >= best[0]):
                            continue  # q's cost in A is never negative: cannot beat best
                        delta = partial + sum(cost(q, o) for o in rest_a)
                        if delta >= 0 or (best is not None and delta >= best[0]):
                            continue
                        p_rep_b = sum(meet[p].get(o, 0) for o in table_b) - meet[p].get(q, 0)
                        q_rep_a = sum(meet[q].get(o, 0) for o in rest_a)
                        if q_rep_a + p_rep_b <= in_rep[a][i] + in_rep[b][j]:
                            best = (delta, b, j)
                if best is None:
                    continue
                _, b, j = best
                table_b = tables[b]
                table_a[i], table_b[j] = table_b[j], p
                moves += 1
                refresh(a)
                if refresh(b) and not queued[b]:
                    queue.append(b)
                    queued[b] = True
                improved = True
                break
    return moves


def _finish(
    field: _Field,
    tables: list[list[int]],
    byes: tuple[PlayerId, ...],
    history: History,
    config: StageConfig,
    rng: random.Random,
) -> Seating:
    ids = field.ids
    return Seating(
        tables=tuple(
            Table(
                number=k + 1,
                seats=order_seats(
                    [ids[i] for i in members], history=history, rng=rng, policy=config.seat_order
                ),
            )
            for k, members in enumerate(tables)
        ),
        byes=byes,
    )


def seat_greedy(
    entrants: Sequence[Entrant],
    *,
    records: Mapping[PlayerId, Record],
    history: History,
    config: StageConfig,
    rng: random.Random,
    options: SwissOptions | None = None,
) -> Seating:
    """Greedy Swiss seating: the baseline :func:`reseat_swiss` starts from and improves on.

    Players in record order (T8); byes per T1 to the lowest records without an earlier bye;
    each table takes the best unseated player and then, one by one, the next player among the
    following ``greedy_window`` who adds the least pair cost. Seat order per ``config``.
    Players missing from ``records`` count as 0 wins, 0 hands.

    Raises :class:`BracketError` ``field_too_small`` (T1) or ``duplicate_player`` (T8).
    """
    opts = options or SwissOptions()
    field, sizes, byes = _prepare(entrants, records, history, config, rng, opts)
    return _finish(field, _greedy(field, sizes), byes, history, config, rng)


def reseat_swiss(
    entrants: Sequence[Entrant],
    *,
    records: Mapping[PlayerId, Record],
    history: History,
    config: StageConfig,
    rng: random.Random,
    options: SwissOptions | None = None,
) -> Seating:
    """Seat a qualifying round Swiss-style (T8), tables and byes per T1.

    Groups players with similar records (match wins, then hands won), avoids repeat opponents
    and same-club tables where possible: the greedy seating of :func:`seat_greedy` is improved
    by swaps between nearby tables that lower ``SwissOptions`` cost without adding a repeat
    meeting. Table 1 is the top table. Deterministic for a given ``rng`` state.

    Raises :class:`BracketError` ``field_too_small`` (T1) or ``duplicate_player`` (T8).
    """
    opts = options or SwissOptions()
    field, sizes, byes = _prepare(entrants, records, history, config, rng, opts)
    tables = _greedy(field, sizes)
    _improve(field, tables)
    return _finish(field, tables, byes, history, config, rng)


def seating_cost(
    tables: Iterable[Table | Sequence[PlayerId]],
    *,
    history: History,
    entrants: Iterable[Entrant] = (),
    records: Mapping[PlayerId, Record] | None = None,
) -> SeatingCost:
    """Count repeat meetings, same-club pairs and match-win gaps of a seating (T8)."""
    clubs = {e.player_id: e.club for e in entrants}
    recs = records or {}
    repeats = same_club = gap = 0
    for t in tables:
        seats = t.seats if isinstance(t, Table) else tuple(t)
        for i, a in enumerate(seats):
            for b in seats[i + 1 :]:
                repeats += history.meetings(a, b)
                ca = clubs.get(a)
                if ca is not None and ca == clubs.get(b):
                    same_club += 1
                gap += abs(
                    recs.get(a, _ZERO_RECORD).match_wins - recs.get(b, _ZERO_RECORD).match_wins
                )
    return SeatingCost(repeats=repeats, same_club=same_club, wins_gap=gap)
