"""The final table's places (T6): its result first, players level at it ordered by the stage's
standings (T5) and sharing a place only if still level there; a shared first stays shared
(T3); seed and seat order never decide (T3, README "Rule decisions")."""

from __future__ import annotations

import pytest

from brackets.engine import (
    BracketError,
    MatchRecord,
    Placement,
    Standings,
    compute_standings,
    final_table_places,
)

FINAL = 900  # the final's match id

# A knockout stage's record before its final (T5 counts its knockout rounds; play-off tables
# never count, README "Stages" 4). Player ids run against the T5 order, so an order by id (or
# by a seed given in id order) cannot pass for one by the standings.
#   20: a match win, 6 hands, three six-loves given (the tester's Emilio)
#   30: no win, 4 hands
#   31: no win, 4 hands, never met 30: level with 30 after every T5 key
#   40: no win, 4 hands, finished ahead of 41 at their knockout table (head-to-head, T5)
#   41: no win, 4 hands
#   50: no win, no hands (the tester's Winston: his play-off table does not count)
#   60: a match win, 9 hands (the best record of all)
KNOCKOUT = [
    MatchRecord(1, 20, 1, points=6, hands_won=6, six_loves_given=3),
    MatchRecord(1, 40, 2, points=3, hands_won=4),
    MatchRecord(1, 41, 3, points=2, hands_won=4),
    MatchRecord(1, 50, 4),
    MatchRecord(2, 60, 1, points=6, hands_won=9),
    MatchRecord(2, 30, 2, points=3, hands_won=4),
    MatchRecord(3, 31, 2, points=3, hands_won=4),
]


def standings() -> Standings:
    return compute_standings(KNOCKOUT, players=[20, 30, 31, 40, 41, 50, 60])


def line(player: int, placing: int, *, match: int = FINAL, forfeit: bool = False) -> MatchRecord:
    if forfeit:
        return MatchRecord.forfeit_loss(match, player, placing)
    return MatchRecord(match, player, placing, points=6 if placing == 1 else 0)


def places(*pairs: tuple[int, int]) -> tuple[Placement, ...]:
    return tuple(Placement(p, place) for p, place in pairs)


@pytest.mark.parametrize(
    ("final", "players", "expected"),
    [
        pytest.param(
            [line(50, 1), line(60, 2), line(20, 3), line(30, 4)],
            (),
            places((50, 1), (60, 2), (20, 3), (30, 4)),
            id="distinct placings: the final's result alone, whatever the record before it",
        ),
        pytest.param(
            # The tester's final: 0-0-6-0, three players level on 0 with 0 hands share 2nd at
            # the table; the knockout record separates them (T5): 20 (a win), then 30 (4
            # hands), then 50 (nothing counted).
            [line(50, 2), line(30, 2), line(60, 1), line(20, 2)],
            (),
            places((60, 1), (20, 2), (30, 3), (50, 4)),
            id="level at 2nd: T5 over the stage's record orders them",
        ),
        pytest.param(
            # 30 and 31 are level after every T5 key (they never met): they share 3rd.
            [line(60, 1), line(20, 2), line(31, 3), line(30, 3)],
            (),
            places((60, 1), (20, 2), (30, 3), (31, 3)),
            id="level at the table and in the standings: a shared place",
        ),
        pytest.param(
            [line(60, 1), line(41, 2), line(40, 2), line(50, 4)],
            (),
            places((60, 1), (40, 2), (41, 3), (50, 4)),
            id="head-to-head in the stage decides (T5)",
        ),
        pytest.param(
            # Time called with two players level on every T3 key: a shared first stays shared
            # however different their records (no champion without a win, T3).
            [line(50, 1), line(60, 1), line(20, 3), line(30, 4)],
            (),
            places((60, 1), (50, 1), (20, 3), (30, 4)),
            id="a shared first stays shared",
        ),
        pytest.param(
            [line(30, 1), line(31, 1), line(20, 1), line(50, 1)],
            (),
            places((20, 1), (30, 1), (31, 1), (50, 1)),
            id="nobody completed a hand: everyone shares first",
        ),
        pytest.param(
            # 60 forfeited the final (T7, 4th in the forfeited match); the others played on at
            # the continuation, where 50 won and 20 and 30 were level.
            [
                line(60, 4, forfeit=True),
                line(50, 1, match=FINAL + 1),
                line(30, 2, match=FINAL + 1),
                line(20, 2, match=FINAL + 1),
            ],
            (60, 50, 30, 20),
            places((50, 1), (20, 2), (30, 3), (60, 4)),
            id="a forfeit comes after everyone who played on, the continuation places them",
        ),
        pytest.param(
            [line(20, 2), line(30, 1), line(50, 2)],
            (),
            places((30, 1), (20, 2), (50, 3)),
            id="a final table of 3",
        ),
        pytest.param(
            # A finalist with no placed line (their match void) comes after the placed lines
            # and before a forfeit, in standings order.
            [line(50, 1), line(30, 4, forfeit=True)],
            (50, 30, 31, 20),
            places((50, 1), (20, 2), (31, 3), (30, 4)),
            id="finalists without a line, then the forfeit",
        ),
    ],
)
def test_t6_final_table_places(
    final: list[MatchRecord], players: tuple[int, ...], expected: tuple[Placement, ...]
) -> None:
    assert final_table_places(final, standings(), players=players) == expected


def test_t3_seed_order_never_decides_a_place() -> None:
    """Whatever order the final's lines come in (seat order, seed order), the places are the
    same."""
    lines = [line(50, 2), line(30, 2), line(60, 1), line(20, 2)]
    expected = final_table_places(lines, standings())
    for order in ([3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1]):
        assert final_table_places([lines[i] for i in order], standings()) == expected


@pytest.mark.parametrize(
    ("final", "players", "code"),
    [
        ([line(20, 1), line(20, 2, match=FINAL + 1)], (), "duplicate_record"),
        ([line(20, 1), line(99, 2)], (), "unknown_player"),
        ([line(20, 1)], (98,), "unknown_player"),
    ],
)
def test_t6_final_table_places_errors(
    final: list[MatchRecord], players: tuple[int, ...], code: str
) -> None:
    with pytest.raises(BracketError) as err:
        final_table_places(final, standings(), players=players)
    assert err.value.code == code
