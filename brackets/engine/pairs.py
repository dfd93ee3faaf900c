"""Pairs events: seating partnerships two to a table, Swiss reseating and T10 standings.

Glossary:
    pair       -- a partnership entered in a stage (T9): its id, its two current players (in
                  slot order), the players' clubs and a seeding rating.
    pair table -- two partnerships at one table. ``ac`` sits in seats 0 and 2, ``bd`` in seats
                  1 and 3 (R42: partners opposite); :meth:`PairTable.seats` gives the four
                  players in seat (= play) order.
    meeting    -- two partnerships seated at one table in an earlier round (T9 repeat).
    club clash -- a player of one partnership shares a club with a player of the other (T8);
                  every such pair of players counts once.
    line       -- one partnership's result in one finished match (T10): match won, hands won,
                  points for and against, six-loves given.

Seating round 1 is a snake over the tables by seed (T8): table t seats seed t against seed
2T + 1 - t, so the top seeds meet late. Later rounds are Swiss-style (:func:`reseat_pairs`):
a greedy pairing down the record order, improved by exchanging opponents between two tables
while that lowers the cost without adding a repeat meeting (T9 puts repeats first).

The engine stays pure: no Django, randomness only from the injected :class:`random.Random`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from brackets.engine.composition import bye_positions
from brackets.engine.errors import BracketError
from brackets.engine.model import PlayerId

# The T10 standings of partnerships live in their own module; re-exported here.
from brackets.engine.pair_standings import PairId as PairId
from brackets.engine.pair_standings import PairLine as PairLine
from brackets.engine.pair_standings import PairRow as PairRow
from brackets.engine.pair_standings import PairStandings as PairStandings
from brackets.engine.pair_standings import pairs_standings as pairs_standings
from brackets.engine.swiss import record_order


@dataclass(frozen=True, slots=True)
class Pair:
    """A partnership in a stage (T9): two current players, their clubs, a seeding rating."""

    pair_id: PairId
    players: tuple[PlayerId, PlayerId]
    clubs: tuple[str | None, str | None] = (None, None)
    rating: float = 0

    def __post_init__(self) -> None:
        if len(self.players) != 2 or self.players[0] == self.players[1]:
            raise BracketError(
                code="bad_partnership",
                rule="T9",
                field="players",
                message=f"Partnership {self.pair_id} needs two different players (T9).",
            )


@dataclass(frozen=True, slots=True)
class PairTable:
    """Two partnerships at table ``number``: ``ac`` in seats 0 and 2, ``bd`` in 1 and 3 (R42)."""

    number: int
    ac: PairId
    bd: PairId
    players: tuple[PlayerId, PlayerId, PlayerId, PlayerId]
    """The four players in seat order: ac's first, bd's first, ac's second, bd's second."""

    def __post_init__(self) -> None:
        if self.ac == self.bd:
            raise BracketError(
                code="duplicate_seat",
                rule="T9",
                field="seats",
                message=f"Table {self.number} seats partnership {self.ac} against itself (T9).",
            )

    @property
    def seats(self) -> tuple[PlayerId, ...]:
        return self.players


@dataclass(frozen=True, slots=True)
class PairSeating:
    """A round of a pairs stage: its tables (top first) and the partnerships given a bye."""

    tables: tuple[PairTable, ...]
    bye_pairs: tuple[PairId, ...] = ()
    bye_players: tuple[PlayerId, ...] = ()

    @property
    def byes(self) -> tuple[PlayerId, ...]:
        """The players of the partnerships given a bye (what a round stores, T1)."""
        return self.bye_players

    def players(self) -> list[PlayerId]:
        return [p for t in self.tables for p in t.players] + list(self.bye_players)


@dataclass
class PairHistory:
    """Earlier meetings and byes of partnerships (T9)."""

    meetings: dict[tuple[PairId, PairId], int] = field(default_factory=dict)
    byes: dict[PairId, int] = field(default_factory=dict)

    @classmethod
    def from_rounds(
        cls, rounds: Iterable[tuple[Iterable[tuple[PairId, PairId]], Iterable[PairId]]]
    ) -> PairHistory:
        """From each earlier round's (ac, bd) tables and its bye partnerships."""
        h = cls()
        for tables, byes in rounds:
            for a, b in tables:
                key = (min(a, b), max(a, b))
                h.meetings[key] = h.meetings.get(key, 0) + 1
            for p in byes:
                h.byes[p] = h.byes.get(p, 0) + 1
        return h

    def met(self, a: PairId, b: PairId) -> int:
        return self.meetings.get((min(a, b), max(a, b)), 0)


@dataclass(frozen=True, slots=True)
class PairSwissOptions:
    """Weights of the Swiss pairing of partnerships (T9). Integers, so costs are exact."""

    repeat: int = 1000
    club: int = 30
    wins_gap: int = 10
    window: int = 8
    """How far down the record order the greedy start looks for an opponent."""
    table_window: int = 16
    """Exchanges consider tables at most this many apart in record order (similar records)."""


def _table(number: int, ac: Pair, bd: Pair, *, flip: bool) -> PairTable:
    """Partners opposite (R42). ``flip`` swaps bd's players so who plays right after whom
    changes from round to round (T8's balance, over a partnership's two players)."""
    b0, b1 = (bd.players[1], bd.players[0]) if flip else bd.players
    return PairTable(number, ac.pair_id, bd.pair_id, (ac.players[0], b0, ac.players[1], b1))


def _bye_pairs(order: Sequence[Pair], history: PairHistory | None) -> tuple[Pair, ...]:
    """An odd partnership out sits out (T9, T1): fewest earlier byes, then lowest in order."""
    if len(order) % 2 == 0:
        return ()
    h = history or PairHistory()
    (index,) = bye_positions([h.byes.get(p.pair_id, 0) for p in order], 1)
    return (order[index],)


def _check_field(pairs: Sequence[Pair]) -> None:
    ids = [p.pair_id for p in pairs]
    if len(set(ids)) != len(ids):
        raise BracketError(
            code="duplicate_player",
            rule="T9",
            field="pairs",
            message="A partnership is listed twice (T9).",
        )
    players = [x for p in pairs for x in p.players]
    if len(set(players)) != len(players):
        raise BracketError(
            code="duplicate_player",
            rule="T9",
            field="pairs",
            message="A player is in two partnerships (T9).",
        )
    if len(pairs) < 2:
        raise BracketError(
            code="field_too_small",
            rule="T9",
            field="pairs",
            message=f"{len(pairs)} partnership{'' if len(pairs) == 1 else 's'} cannot fill a "
            "table of two partnerships (T9).",
        )


def seat_pairs_seeded(pairs: Sequence[Pair], *, round_number: int = 1) -> PairSeating:
    """Round 1 by seed (``pairs`` best first): snake order, so top seeds meet late (T8, T9).

    With T tables, table t seats seed t (seats 0/2) against seed 2T + 1 - t (seats 1/3); an odd
    partnership out (the lowest seed) gets a bye (T9, T1).

    Raises :class:`BracketError` ``field_too_small`` (fewer than two) or ``duplicate_player``.
    """
    _check_field(pairs)
    bye = _bye_pairs(pairs, None)
    field_ = [p for p in pairs if p not in bye]
    t = len(field_) // 2
    tables = tuple(
        _table(i + 1, field_[i], field_[2 * t - 1 - i], flip=round_number % 2 == 0)
        for i in range(t)
    )
    return PairSeating(
        tables=tables,
        bye_pairs=tuple(p.pair_id for p in bye),
        bye_players=tuple(x for p in bye for x in p.players),
    )


def club_clashes(a: Pair, b: Pair) -> int:
    """Pairs of players, one from each partnership, from the same club (T8)."""
    return sum(1 for x in a.clubs for y in b.clubs if x is not None and x == y)


def pairing_cost(
    a: Pair,
    b: Pair,
    *,
    history: PairHistory,
    wins: Mapping[PairId, int],
    options: PairSwissOptions,
) -> int:
    """The price of seating ``a`` against ``b`` (T9): repeats, club clashes, record gap."""
    return (
        options.repeat * history.met(a.pair_id, b.pair_id)
        + options.club * club_clashes(a, b)
        + options.wins_gap * abs(wins.get(a.pair_id, 0) - wins.get(b.pair_id, 0))
    )


def reseat_pairs(
    pairs: Sequence[Pair],
    *,
    wins: Mapping[PairId, int],
    hands: Mapping[PairId, int] | None = None,
    history: PairHistory,
    rng: random.Random,
    round_number: int,
    options: PairSwissOptions | None = None,
) -> PairSeating:
    """A Swiss-style round of partnerships (T9): similar records meet, repeat opposing
    partnerships and same-club tables are avoided where possible.

    Record order is match wins, then hands won, best first; equal records in an order drawn
    from ``rng``. The odd partnership out (fewest byes, lowest record) gets a bye. A greedy
    pairing down the record order is then improved by exchanging opponents between two tables
    whenever that lowers the total cost and adds no repeat meeting; the better record of a
    table sits in seats 0/2. Replays from the same ``rng`` seed.

    Raises :class:`BracketError` ``field_too_small`` or ``duplicate_player``.
    """
    opts = options or PairSwissOptions()
    _check_field(pairs)
    hands = hands or {}
    order = record_order(pairs, rng, lambda p: (wins.get(p.pair_id, 0), hands.get(p.pair_id, 0)))
    bye = _bye_pairs(order, history)
    todo = [p for p in order if p not in bye]

    def cost(a: Pair, b: Pair) -> int:
        return pairing_cost(a, b, history=history, wins=wins, options=opts)

    # Greedy: the best unpaired partnership meets the cheapest of the next few.
    matches: list[list[Pair]] = []
    left = list(todo)
    while left:
        a = left.pop(0)
        window = left[: opts.window]
        j = min(range(len(window)), key=lambda k: (cost(a, window[k]), k))
        matches.append([a, left.pop(j)])

    # Exchange opponents between two tables while it helps and adds no repeat (T9).
    improved = True
    passes = 0
    while improved and passes < 50:
        improved = False
        passes += 1
        for i in range(len(matches)):
            for k in range(i + 1, min(len(matches), i + 1 + opts.table_window)):
                a, b = matches[i]
                c, d = matches[k]
                now = cost(a, b) + cost(c, d)
                met_now = history.met(a.pair_id, b.pair_id) + history.met(c.pair_id, d.pair_id)
                for x, y, z, w in ((a, c, b, d), (a, d, b, c)):
                    met = history.met(x.pair_id, y.pair_id) + history.met(z.pair_id, w.pair_id)
                    if met <= met_now and cost(x, y) + cost(z, w) < now:
                        matches[i], matches[k] = [x, y], [z, w]
                        improved = True
                        break
    position = {p.pair_id: i for i, p in enumerate(order)}
    matches.sort(key=lambda m: min(position[m[0].pair_id], position[m[1].pair_id]))
    tables = []
    for n, (x, y) in enumerate(matches, start=1):
        ac, bd = (x, y) if position[x.pair_id] < position[y.pair_id] else (y, x)
        tables.append(_table(n, ac, bd, flip=round_number % 2 == 0))
    return PairSeating(
        tables=tuple(tables),
        bye_pairs=tuple(p.pair_id for p in bye),
        bye_players=tuple(x for p in bye for x in p.players),
    )


def seating_repeats(seating: PairSeating, history: PairHistory) -> int:
    """Earlier meetings of the partnerships seated together (T9)."""
    return sum(history.met(t.ac, t.bd) for t in seating.tables)


# -- knockout -------------------------------------------------------------------------------


def seat_pairs_knockout(pairs: Sequence[Pair], *, round_number: int) -> PairSeating:
    """A knockout round of partnerships by current seed (T10, T6): seed 1 against the lowest,
    and so on inwards; with an odd field the top seed gets the bye (it goes through, T1).

    Raises :class:`BracketError` ``field_too_small`` or ``duplicate_player``.
    """
    _check_field(pairs)
    if len(pairs) % 2:
        top, rest = pairs[0], list(pairs[1:])
        seating = seat_pairs_seeded(rest, round_number=round_number)
        return PairSeating(tables=seating.tables, bye_pairs=(top.pair_id,), bye_players=top.players)
    return seat_pairs_seeded(pairs, round_number=round_number)
