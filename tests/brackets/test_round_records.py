"""The T4 lines read from a stage's seats (brackets.selectors.stage_data.round_records): built
without the frozen ``__init__`` for speed, but equal to ``MatchRecord(...)`` and checked the
same way: a bad placing or a negative counter is refused (T4), a forfeit is a 0-6 loss (T7)."""

from __future__ import annotations

import pytest

from brackets.engine import BracketError, MatchRecord
from brackets.selectors.stage_data import RoundData, SeatData, TableData, round_records
from scoring.models import Match


def _round(*seats: SeatData, status: str = Match.Status.FINISHED) -> RoundData:
    table = TableData(match_id=7, table_number=1, status=status, end_reason="", seats=seats)
    return RoundData(
        id=1,
        number=1,
        kind="swiss",
        status="published",
        byes=(),
        advancing=None,
        playoff_players=(),
        advanced_at=None,
        tables=(table,),
    )


def _seat(entry: int, placing: int | None, points: int = 0, **kw: int | bool) -> SeatData:
    values = {
        "hands_won": 0,
        "six_love_given": 0,
        "six_love_received": 0,
        "llaves": 0,
        "ties": 0,
        "replays_won": 0,
        "forfeited": False,
        **kw,
    }
    return SeatData(entry, entry - 1, placing, points, **values)  # type: ignore[arg-type]


def test_lines_equal_the_checked_constructor() -> None:
    lines = round_records(
        _round(
            _seat(1, 1, 6, hands_won=4, six_love_given=1, llaves=1),
            _seat(2, 2, 2, hands_won=2, ties=1),
            _seat(3, 3, -1, replays_won=1),  # a negative stored score counts as 0 (T4)
            _seat(4, 4, 0, six_love_received=1, forfeited=True),
        )
    )
    assert lines == [
        MatchRecord(7, 1, 1, points=6, hands_won=4, six_loves_given=1, llaves=1),
        MatchRecord(7, 2, 2, points=2, hands_won=2, ties=1),
        MatchRecord(7, 3, 3, points=0, replays_won=1),
        MatchRecord.forfeit_loss(7, 4, 4),
    ]


def test_unfinished_tables_and_unplaced_seats_have_no_line() -> None:
    assert round_records(_round(_seat(1, 1), status=Match.Status.IN_PROGRESS)) == []
    assert round_records(_round(_seat(1, None), _seat(2, 1))) == [MatchRecord(7, 2, 1)]


@pytest.mark.parametrize(
    ("seat", "code"),
    [
        (_seat(1, 5), "bad_placing"),
        (_seat(1, 2, hands_won=-1), "negative_count"),
        (_seat(1, 2, ties=-3), "negative_count"),
    ],
)
def test_a_bad_stored_line_is_still_refused(seat: SeatData, code: str) -> None:
    with pytest.raises(BracketError) as refused:
        round_records(_round(seat))
    assert refused.value.code == code
    assert refused.value.rule == "T4"
