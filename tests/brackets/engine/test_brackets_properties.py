"""Hypothesis properties of the brackets engine (T1, T5, T6, T8)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brackets.engine import (
    BracketError,
    Entrant,
    History,
    KnockoutPlan,
    MatchRecord,
    Record,
    Seating,
    StageConfig,
    Standings,
    SwissOptions,
    advance_cut,
    advance_per_table,
    compute_standings,
    plan_knockout,
    plan_tables,
    reseat_swiss,
    seat_greedy,
    seat_seeded,
    seating_cost,
    seed_random,
)

PROPS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def fields(
    draw: st.DrawFn, max_players: int = 48
) -> tuple[list[Entrant], dict[int, Record], History, StageConfig, int]:
    """A stage mid-way: entrants with clubs, records, 0-4 earlier rounds, a config, a seed."""
    allow_three = draw(st.booleans())
    n = draw(st.integers(3 if allow_three else 4, max_players))
    clubs = draw(st.integers(1, 6))
    players = [
        Entrant(p, rating=draw(st.integers(1000, 1010)), club=f"c{p % clubs}")
        for p in range(1, n + 1)
    ]
    records = {
        p: Record(draw(st.integers(0, 3)), draw(st.integers(0, 12))) for p in range(1, n + 1)
    }
    config = StageConfig(allow_three=allow_three)
    earlier: list[Seating] = []
    for r in range(draw(st.integers(0, 4))):
        order = seed_random(range(1, n + 1), draw(st.integers(0, 10**6)))
        earlier.append(seat_seeded(order, config, rng=random.Random(r)))
    return players, records, History.from_seatings(earlier), config, draw(st.integers(0, 10**6))


def assert_partition(seating: Seating, ids: list[int], config: StageConfig) -> None:
    everyone = seating.players()
    assert Counter(everyone) == Counter(ids)  # every active player exactly once
    plan = plan_tables(len(ids), allow_three=config.allow_three)
    assert tuple(len(t.seats) for t in seating.tables) == plan.sizes  # T1
    assert len(seating.byes) == plan.byes
    assert [t.number for t in seating.tables] == list(range(1, plan.tables + 1))


@PROPS
@given(fields())
def test_t1_t8_swiss_seating_is_a_partition(
    field: tuple[list[Entrant], dict[int, Record], History, StageConfig, int],
) -> None:
    players, records, history, config, seed = field
    ids = [e.player_id for e in players]
    for seat in (reseat_swiss, seat_greedy):
        seating = seat(
            players, records=records, history=history, config=config, rng=random.Random(seed)
        )
        assert_partition(seating, ids, config)


@PROPS
@given(st.integers(3, 400), st.booleans(), st.integers(0, 10**6))
def test_t1_t8_seeded_seating_is_a_partition_and_spreads_top_seeds(
    n: int, allow_three: bool, seed: int
) -> None:
    config = StageConfig(allow_three=allow_three)
    order = seed_random(range(n), seed)
    if n < 4 and not allow_three:
        with pytest.raises(BracketError, match="T1"):
            seat_seeded(order, config, rng=random.Random(seed))
        return
    seating = seat_seeded(order, config, rng=random.Random(seed))
    assert_partition(seating, list(order), config)
    table_of = {p: t.number for t in seating.tables for p in t.seats}
    t = len(seating.tables)
    top = order[:t]  # the top t seeds: never a bye in round 1, all at different tables (T8)
    assert len({table_of[p] for p in top}) == t


@PROPS
@given(fields(max_players=64))
def test_t8_optimiser_never_repeats_more_than_greedy(
    field: tuple[list[Entrant], dict[int, Record], History, StageConfig, int],
) -> None:
    players, records, history, config, seed = field
    kwargs = {"records": records, "history": history, "config": config}
    optimised = reseat_swiss(players, rng=random.Random(seed), **kwargs)  # type: ignore[arg-type]
    greedy = seat_greedy(players, rng=random.Random(seed), **kwargs)  # type: ignore[arg-type]
    opt = seating_cost(optimised.tables, history=history, entrants=players, records=records)
    base = seating_cost(greedy.tables, history=history, entrants=players, records=records)
    assert opt.repeats <= base.repeats
    assert opt.total(SwissOptions()) <= base.total(SwissOptions())
    assert optimised.byes == greedy.byes


@PROPS
@given(fields(), st.integers(0, 3))
def test_t8_deterministic_for_a_fixed_seed(
    field: tuple[list[Entrant], dict[int, Record], History, StageConfig, int], shift: int
) -> None:
    players, records, history, config, seed = field
    rotated = players[shift:] + players[:shift]  # input order must not matter
    a = reseat_swiss(
        players, records=records, history=history, config=config, rng=random.Random(seed)
    )
    b = reseat_swiss(
        rotated, records=records, history=history, config=config, rng=random.Random(seed)
    )
    assert a == b
    order = seed_random([e.player_id for e in players], seed)
    assert seat_seeded(order, config, rng=random.Random(seed)) == seat_seeded(
        order, config, rng=random.Random(seed)
    )


@st.composite
def stage_results(draw: st.DrawFn) -> tuple[list[MatchRecord], list[int], Standings]:
    """A few rounds of random results over a small field, with many level players."""
    n = draw(st.integers(4, 24))
    ids = list(range(1, n + 1))
    records: list[MatchRecord] = []
    last_round: list[MatchRecord] = []
    match_id = 0
    rounds = draw(st.integers(1, 3))
    for r in range(rounds):
        order = seed_random(ids, draw(st.integers(0, 10**6)))
        plan = plan_tables(n, allow_three=True)
        start = 0
        last_round = []
        for size in plan.sizes:
            match_id += 1
            table = order[start : start + size]
            start += size
            for placing, p in enumerate(table, start=1):
                line = MatchRecord(
                    match_id,
                    p,
                    placing,
                    hands_won=draw(st.integers(0, 2)) + (3 if placing == 1 else 0),
                    six_loves_given=draw(st.integers(0, 1)) if placing == 1 else 0,
                )
                records.append(line)
                if r == rounds - 1:
                    last_round.append(line)
    return last_round, ids, compute_standings(records, players=ids)


def check_line(
    standings: Standings,
    advanced: tuple[int, ...],
    playoff_players: tuple[int, ...],
    qualified: frozenset[int] = frozenset(),
) -> None:
    """Players advanced by standings beat the line; the play-off lists exactly the players
    level on it (T5 exhausted), leaving out table qualifiers who are through anyway."""
    rank = {r.player_id: r.rank for r in standings}
    if not playoff_players:
        return
    line = {rank[p] for p in playoff_players}
    assert len(line) == 1
    (line_rank,) = line
    assert all(rank[p] < line_rank for p in advanced)
    level = {r.player_id for r in standings if r.rank == line_rank}
    assert set(playoff_players) == level - qualified
    for p in playoff_players:
        assert set(playoff_players) - {p} <= set(standings.row(p).tied_with)


@PROPS
@given(stage_results(), st.integers(1, 30))
def test_t6_cut_advances_exactly_n(
    stage: tuple[list[MatchRecord], list[int], Standings], top: int
) -> None:
    _, ids, standings = stage
    result = advance_cut(standings, top)
    promised = min(top, len(ids))
    playoff = result.playoff
    spots = playoff.spots if playoff else 0
    assert len(result.advanced) + spots == promised
    contested = playoff.players if playoff else ()
    if playoff:
        assert 0 < playoff.spots < len(playoff.players)
    check_line(standings, result.advanced, contested)
    everyone = [*result.advanced, *contested, *(pl.player_id for pl in result.eliminated)]
    assert Counter(everyone) == Counter(ids)
    # Everyone eliminated places after everyone who went on (or plays off).
    assert all(pl.place > len(result.advanced) + len(contested) for pl in result.eliminated)


@PROPS
@given(stage_results(), st.sampled_from([1, 2]), st.integers(0, 12))
def test_t6_per_table_advances_exactly_the_target(
    stage: tuple[list[MatchRecord], list[int], Standings], k: int, extra: int
) -> None:
    last_round, ids, standings = stage
    qualifiers = {r.player_id for r in last_round if r.placing <= k}
    target = len(qualifiers) + extra
    result = advance_per_table(last_round, standings, per_table=k, target=target)
    playoff = result.playoff
    spots = playoff.spots if playoff else 0
    assert len(result.advanced) + spots == min(target, len(ids))
    assert qualifiers <= set(result.advanced)  # table qualifiers never play off
    filled = tuple(p for p in result.advanced if p not in qualifiers)
    check_line(standings, filled, playoff.players if playoff else (), frozenset(qualifiers))
    contested = playoff.players if playoff else ()
    everyone = [*result.advanced, *contested, *(pl.player_id for pl in result.eliminated)]
    assert Counter(everyone) == Counter(ids)


@PROPS
@given(stage_results())
def test_t5_standings_are_sorted_and_ties_share_keys(
    stage: tuple[list[MatchRecord], list[int], Standings],
) -> None:
    _, ids, standings = stage
    keys = [(r.match_wins, r.hands_won, r.six_loves_given) for r in standings]
    assert keys == sorted(keys, reverse=True)
    for i, row in enumerate(standings.rows):
        assert row.rank == 1 + sum(1 for r in standings.rows if r.rank < row.rank)
        if row.tied_with:
            for p in row.tied_with:
                other = standings.row(p)
                assert other.rank == row.rank
                assert keys[i] == (other.match_wins, other.hands_won, other.six_loves_given)
    assert sorted(standings.order()) == ids


def plan_or_error(
    field: int, k: int, final_size: int, allow_three: bool
) -> KnockoutPlan | BracketError:
    try:
        return plan_knockout(field, per_table=k, final_size=final_size, allow_three=allow_three)
    except BracketError as exc:
        return exc


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 3000), st.sampled_from([1, 2]), st.sampled_from([3, 4]), st.booleans())
def test_t6_knockout_plan_is_consistent_or_a_clear_error(
    field: int, k: int, final_size: int, allow_three: bool
) -> None:
    plan = plan_or_error(field, k, final_size, allow_three)
    if isinstance(plan, BracketError):
        assert plan.rule == "T6"
        assert plan.code in {"field_too_small", "no_knockout_plan", "bad_final_size"}
        return
    n = field
    for r in plan.rounds:
        assert plan_tables(n, allow_three=allow_three).byes == 0
        assert r.advancing < n
        n = r.advancing
    assert n == final_size


@st.composite
def shared_line_round(draw: st.DrawFn) -> tuple[list[MatchRecord], list[int], Standings]:
    """One round of tables where some players share a placing (T3: 1, 2, 2, 4 ...)."""
    n = draw(st.integers(4, 20))
    ids = list(range(1, n + 1))
    order = seed_random(ids, draw(st.integers(0, 10**6)))
    records: list[MatchRecord] = []
    start = 0
    for match_id, size in enumerate(plan_tables(n, allow_three=True).sizes, start=1):
        table = order[start : start + size]
        start += size
        placings = list(range(1, size + 1))
        # A run of players from position i shares placing i + 1 (the places it covers skip).
        i = draw(st.integers(0, size - 1))
        j = draw(st.integers(i, size - 1))
        placings[i : j + 1] = [i + 1] * (j - i + 1)
        for p, placing in zip(table, placings, strict=True):
            won = draw(st.integers(0, 2))
            records.append(MatchRecord(match_id, p, placing, hands_won=won))
    return records, ids, compute_standings(records, players=ids)


@PROPS
@given(shared_line_round(), st.sampled_from([1, 2]), st.integers(0, 8))
def test_t6_below_a_tables_line_never_beats_a_player_on_a_line(
    stage: tuple[list[MatchRecord], list[int], Standings], k: int, extra: int
) -> None:
    """A player placed below their table's top k (not sharing its line) never advances or
    plays off while a player who shared a table's line is eliminated (T3, T6)."""
    records, ids, standings = stage
    by_table: dict[int, list[MatchRecord]] = {}
    for r in records:
        by_table.setdefault(r.match_id, []).append(r)
    qualified = {
        r.player_id
        for recs in by_table.values()
        for r in recs
        if sum(1 for o in recs if o.placing <= r.placing) <= k
    }
    on_line = {r.player_id for r in records if r.placing <= k} - qualified
    below = {r.player_id for r in records if r.placing > k}
    result = advance_per_table(records, standings, per_table=k, target=len(qualified) + extra)
    going = set(result.advanced) | set(result.playoff.players if result.playoff else ())
    out = {pl.player_id for pl in result.eliminated}
    assert qualified <= set(result.advanced)
    if on_line & out:
        assert not (below & going)
    everyone = [*result.advanced, *going - set(result.advanced), *out]
    assert Counter(everyone) == Counter(ids)
