"""Swiss-style reseating (T8, T1): record groups, repeat and club avoidance, byes, determinism."""

from __future__ import annotations

import random

import pytest

from brackets.engine import (
    BracketError,
    Entrant,
    History,
    Record,
    Seating,
    StageConfig,
    SwissOptions,
    Table,
    reseat_swiss,
    seat_greedy,
    seating_cost,
)

CONFIG = StageConfig()


def entrants(n: int, clubs: str | None = None) -> list[Entrant]:
    return [Entrant(p, club=clubs[p - 1] if clubs else None) for p in range(1, n + 1)]


def groups(seating: Seating) -> list[set[int]]:
    return [set(t.seats) for t in seating.tables]


def test_t8_equal_records_two_earlier_tables_reach_the_minimum_repeats() -> None:
    # Round 1 was {1,2,3,4} and {5,6,7,8}. Any 4-table now holds at least 2 players of one
    # earlier table; the best possible is 2+2 at both tables: 4 repeat pairs in all.
    history = History.from_seatings(
        [Seating(tables=(Table(1, (1, 2, 3, 4)), Table(2, (5, 6, 7, 8))))]
    )
    for seed in range(10):
        seating = reseat_swiss(
            entrants(8), records={}, history=history, config=CONFIG, rng=random.Random(seed)
        )
        assert seating_cost(seating.tables, history=history).repeats == 4


def test_t8_same_club_tables_are_avoided() -> None:
    players = entrants(8, clubs="AABBCCDD")
    for seed in range(10):
        seating = reseat_swiss(
            players, records={}, history=History(), config=CONFIG, rng=random.Random(seed)
        )
        assert seating_cost(seating.tables, history=History(), entrants=players).same_club == 0


def test_t8_players_are_grouped_by_record_top_table_first() -> None:
    records = {p: Record(2 if p <= 4 else 0, hands_won=10 - p) for p in range(1, 9)}
    seating = reseat_swiss(
        entrants(8), records=records, history=History(), config=CONFIG, rng=random.Random(1)
    )
    assert groups(seating) == [{1, 2, 3, 4}, {5, 6, 7, 8}]
    assert [t.number for t in seating.tables] == [1, 2]


def test_t8_repeat_avoidance_outweighs_a_one_win_float() -> None:
    # 1..8 have one win, the rest none. {1,2,3,4} and {9,10,11,12} have met twice already:
    # seating the one-win group by itself would repeat 2 pairs x 2 meetings per table. With
    # the default weights a repeat (100 per meeting) costs more than floating players one win
    # (10 per pair), so the optimiser floats instead, and beats the greedy start.
    earlier = Seating(tables=(Table(1, (1, 2, 3, 4)), Table(2, (9, 10, 11, 12))))
    history = History.from_seatings([earlier, earlier])
    records = {p: Record(1 if p <= 8 else 0) for p in range(1, 17)}
    options = SwissOptions()
    kwargs = {"records": records, "history": history, "config": CONFIG}
    seating = reseat_swiss(entrants(16), rng=random.Random(3), **kwargs)  # type: ignore[arg-type]
    greedy = seat_greedy(entrants(16), rng=random.Random(3), **kwargs)  # type: ignore[arg-type]
    cost = seating_cost(seating.tables, history=history, records=records)
    greedy_cost = seating_cost(greedy.tables, history=history, records=records)
    assert cost.repeats == 0 < greedy_cost.repeats
    assert cost.total(options) < greedy_cost.total(options)
    assert cost.wins_gap > 0  # the price paid: some tables mix one-win and no-win players


def test_t1_t8_swiss_byes_go_to_the_lowest_records_without_a_bye() -> None:
    records = {p: Record(match_wins=10 - p) for p in range(1, 11)}
    config = StageConfig(allow_three=False)
    earlier = Seating(tables=(Table(1, (1, 2, 3, 4)), Table(2, (5, 6, 7, 8))), byes=(10, 9))
    seating = reseat_swiss(
        entrants(10),
        records=records,
        history=History.from_seatings([earlier]),
        config=config,
        rng=random.Random(0),
    )
    assert seating.byes == (7, 8)  # 9 and 10 already had a bye
    assert sorted(len(t.seats) for t in seating.tables) == [4, 4]


def test_t8_reseating_replays_from_the_seed() -> None:
    players = entrants(30, clubs="ABC" * 10)
    records = {p: Record(p % 3, p % 7) for p in range(1, 31)}
    history = History.from_seatings(
        [reseat_swiss(players, records={}, history=History(), config=CONFIG, rng=random.Random(8))]
    )
    runs = {
        reseat_swiss(
            players, records=records, history=history, config=CONFIG, rng=random.Random(42)
        )
        for _ in range(3)
    }
    assert len(runs) == 1


def test_t8_zero_moves_is_the_greedy_seating() -> None:
    players = entrants(24)
    history = History.from_seatings(
        [
            seat_greedy(players, records={}, history=History(), config=CONFIG, rng=random.Random(s))
            for s in range(3)
        ]
    )
    kwargs = {"records": {}, "history": history, "config": CONFIG}
    greedy = seat_greedy(players, rng=random.Random(5), **kwargs)  # type: ignore[arg-type]
    frozen = reseat_swiss(
        players,
        rng=random.Random(5),
        options=SwissOptions(max_moves=0),
        **kwargs,  # type: ignore[arg-type]
    )
    assert groups(frozen) == groups(greedy)


def test_t8_errors() -> None:
    with pytest.raises(BracketError) as info:
        reseat_swiss(
            [Entrant(1), Entrant(1), Entrant(2), Entrant(3)],
            records={},
            history=History(),
            config=CONFIG,
            rng=random.Random(0),
        )
    assert (info.value.code, info.value.rule) == ("duplicate_player", "T8")
    with pytest.raises(BracketError) as info:
        reseat_swiss(
            entrants(2), records={}, history=History(), config=CONFIG, rng=random.Random(0)
        )
    assert (info.value.code, info.value.rule) == ("field_too_small", "T1")
    with pytest.raises(BracketError) as info:
        SwissOptions(repeat=-1)
    assert info.value.code == "bad_option"
    for bad in ({"greedy_window": 0}, {"max_moves": -1}, {"table_window": -1}):
        with pytest.raises(BracketError, match="T8") as info:
            SwissOptions(**bad)
        assert info.value.field == next(iter(bad))


def test_t8_history_counts() -> None:
    s = Seating(tables=(Table(1, (1, 2, 3, 4)), Table(2, (5, 6, 7))), byes=(8,))
    h = History.from_seatings([s, s])
    assert h.rounds == 2
    assert h.meetings(1, 4) == h.meetings(4, 1) == 2
    assert h.meetings(1, 5) == 0
    assert h.follows(4, 1) == 2  # cyclic: seat 0 plays after the last seat
    assert h.follows(1, 4) == 0
    assert h.byes(8) == 2
    assert dict(h.opponents(5)) == {6: 2, 7: 2}
    assert s.table_of(6) == Table(2, (5, 6, 7))
    assert s.table_of(8) is None
