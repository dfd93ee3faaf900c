"""Seeding a stage and the snake distribution of seeds over tables (T8).

Glossary:
    seed order -- the players best first: by rating, by a director's manual order, or shuffled
                  from a recorded random seed (T8).
    snake      -- dealing seeds over tables row by row, alternating direction: with 4 tables,
                  seeds 1-4 go to tables 1-4, seeds 5-8 to tables 4-1, and so on. The top
                  ``t`` seeds sit at ``t`` different tables, so they meet late (T8).

A random seed order is a pure function of the player ids and the recorded seed:
``seed_random(ids, 7) == seed_random(reversed(ids), 7)``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from brackets.engine.composition import choose_byes, plan_tables
from brackets.engine.errors import BracketError
from brackets.engine.history import History
from brackets.engine.model import Entrant, PlayerId, Seating, StageConfig, Table
from brackets.engine.seats import order_seats


def _check_unique(ids: Sequence[PlayerId], field: str) -> None:
    seen: set[PlayerId] = set()
    for p in ids:
        if p in seen:
            raise BracketError(
                code="duplicate_player",
                rule="T8",
                field=field,
                message=f"Player {p} is listed twice (T8).",
                players=(p,),
            )
        seen.add(p)


def seed_by_rating(entrants: Iterable[Entrant]) -> tuple[PlayerId, ...]:
    """Seed order by rating, highest first; equal ratings by player id, lowest first (T8)."""
    ordered = sorted(entrants, key=lambda e: (-e.rating, e.player_id))
    ids = tuple(e.player_id for e in ordered)
    _check_unique(ids, "entrants")
    return ids


def seed_manual(player_ids: Iterable[PlayerId], order: Sequence[PlayerId]) -> tuple[PlayerId, ...]:
    """A director's manual seed order, checked to name every player exactly once (T8).

    Raises :class:`BracketError` ``duplicate_player``, ``unknown_player`` or ``missing_player``.
    """
    expected = list(player_ids)
    _check_unique(expected, "player_ids")
    _check_unique(order, "order")
    unknown = sorted(set(order) - set(expected))
    if unknown:
        raise BracketError(
            code="unknown_player",
            rule="T8",
            field="order",
            message="The seed order names players not in the stage: "
            f"{', '.join(map(str, unknown))} (T8).",
            players=tuple(unknown),
        )
    missing = sorted(set(expected) - set(order))
    if missing:
        raise BracketError(
            code="missing_player",
            rule="T8",
            field="order",
            message=f"The seed order leaves out players: {', '.join(map(str, missing))} (T8).",
            players=tuple(missing),
        )
    return tuple(order)


def seed_random(player_ids: Iterable[PlayerId], seed: int) -> tuple[PlayerId, ...]:
    """A random seed order replayable from the recorded ``seed`` (T8).

    The ids are sorted first, so the result depends only on the set of players and the seed.
    """
    ids = sorted(player_ids)
    _check_unique(ids, "player_ids")
    random.Random(seed).shuffle(ids)
    return tuple(ids)


def snake_tables(
    seed_order: Sequence[PlayerId], sizes: Sequence[int]
) -> tuple[tuple[PlayerId, ...], ...]:
    """Deal ``seed_order`` over tables of ``sizes`` in snake order (T8).

    Row ``r`` (0-based) fills the tables that still have room, left to right when ``r`` is
    even and right to left when odd; smaller tables simply drop out of the last row. Returns
    each table's players in the order they were dealt (best seed first).

    >>> snake_tables([1, 2, 3, 4, 5, 6, 7, 8], [4, 4])
    ((1, 4, 5, 8), (2, 3, 6, 7))
    """
    if sum(sizes) != len(seed_order):
        raise BracketError(
            code="size_mismatch",
            rule="T1",
            field="sizes",
            message=f"Tables for {sum(sizes)} players cannot seat {len(seed_order)} (T1).",
        )
    tables: list[list[PlayerId]] = [[] for _ in sizes]
    it = iter(seed_order)
    for row in range(max(sizes, default=0)):
        open_tables = [i for i, s in enumerate(sizes) if s > row]
        if row % 2:
            open_tables.reverse()
        for i in open_tables:
            tables[i].append(next(it))
    return tuple(tuple(t) for t in tables)


def seat_seeded(
    seed_order: Sequence[PlayerId],
    config: StageConfig,
    *,
    rng: random.Random,
    history: History | None = None,
) -> Seating:
    """Seat a round from a seed order: tables per T1, byes, snake distribution, seat order (T8).

    Byes go to the lowest seeds without an earlier bye (T1); the rest are snaked over the
    tables (4-tables first, so the 3-tables miss the lowest row); each table's seat order is
    then drawn per ``config.seat_order`` from ``rng``. Used for round 1 of a stage.

    Raises :class:`BracketError` ``field_too_small`` (T1) or ``duplicate_player`` (T8).
    """
    _check_unique(seed_order, "seed_order")
    h = history or History.empty()
    plan = plan_tables(len(seed_order), allow_three=config.allow_three)
    byes = choose_byes(seed_order, plan.byes, h)
    bye_set = set(byes)
    seated = [p for p in seed_order if p not in bye_set]
    groups = snake_tables(seated, plan.sizes)
    tables = tuple(
        Table(number=i + 1, seats=order_seats(g, history=h, rng=rng, policy=config.seat_order))
        for i, g in enumerate(groups)
    )
    return Seating(tables=tables, byes=byes)
