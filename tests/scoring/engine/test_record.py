"""Hand records (RULES.md section 9): parsing, the block result (R20) and every rejection."""

from __future__ import annotations

import pytest

from scoring.engine.errors import InvalidRecord, InvalidRuleset
from scoring.engine.match import match_apply, match_fold, match_start
from scoring.engine.match_state import MatchState
from scoring.engine.record import EndKind, HandRecord, block_result, lowest_seats
from scoring.engine.rules import PRESETS, Ruleset
from scoring.engine.tiles import DOUBLE_SIX, Tile

# -- R20 block result ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "winner"),
    [
        ([22, 29, 15, 20], 2),  # X7: C wins
        ([13, 19, 8, 8], None),  # X7: C and D share the lowest: tie
        ([0, 5], 0),
        ([5, 5], None),
        ([7, 3, 3], None),
        ([3, 3, 1], 2),  # a shared count above the lowest does not matter
        ([10, 10, 10, 10], None),
        ([0, 0, 0, 1], None),
        ([52, 51, 52, 52], 1),
    ],
)
def test_block_result_r20(counts: list[int], winner: int | None) -> None:
    assert block_result(counts) == winner
    low = lowest_seats(counts)
    assert (low[0] if len(low) == 1 else None) == winner


# -- from_dict / to_dict -------------------------------------------------------------------


def test_from_dict_round_trip() -> None:
    data = {
        "poser": 2,
        "pose_tile": "6-6",
        "end": "block",
        "winner": None,
        "counts": [13, 19, 8, 8],
        "llave": False,
        "sporting": False,
    }
    record = HandRecord.from_dict(data)
    assert record == HandRecord.block(2, "6-6", [13, 19, 8, 8])
    assert record.to_dict() == data
    assert HandRecord.from_dict(record.to_dict()) == record


def test_from_dict_accepts_tile_spellings_and_defaults() -> None:
    for spelling in ("5-3", "3-5", "53", [3, 5], [5, 3], Tile.of(3, 5)):
        r = HandRecord.from_dict({"poser": 0, "pose_tile": spelling, "end": "domino", "winner": 1})
        assert r.pose_tile == Tile.of(5, 3)
        assert (r.counts, r.llave, r.sporting) == (None, False, False)
    domino = HandRecord.domino(0, "5-3", 1, counts=[3, 0], llave=True)
    assert HandRecord.from_dict(domino.to_dict()) == domino


@pytest.mark.parametrize(
    ("data", "code", "field"),
    [
        ({"pose_tile": "6-6", "end": "domino", "winner": 0}, "missing_field", "poser"),
        ({"poser": 0, "end": "domino", "winner": 0}, "missing_field", "pose_tile"),
        ({"poser": 0, "pose_tile": "6-6", "winner": 0}, "missing_field", "end"),
        ({"poser": "A", "pose_tile": "6-6", "end": "domino", "winner": 0}, "malformed", "poser"),
        ({"poser": True, "pose_tile": "6-6", "end": "domino", "winner": 0}, "malformed", "poser"),
        (
            {"poser": 0, "pose_tile": "7-7", "end": "domino", "winner": 0},
            "invalid_tile",
            "pose_tile",
        ),
        ({"poser": 0, "pose_tile": "x", "end": "domino", "winner": 0}, "invalid_tile", "pose_tile"),
        ({"poser": 0, "pose_tile": 66, "end": "domino", "winner": 0}, "invalid_tile", "pose_tile"),
        ({"poser": 0, "pose_tile": "6-6", "end": "won", "winner": 0}, "malformed", "end"),
        ({"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 1.0}, "malformed", "winner"),
        ({"poser": 0, "pose_tile": "6-6", "end": "block", "counts": "1,2"}, "malformed", "counts"),
        ({"poser": 0, "pose_tile": "6-6", "end": "block", "counts": 12}, "malformed", "counts"),
        (
            {"poser": 0, "pose_tile": "6-6", "end": "block", "counts": [1, 2, "3", 4]},
            "malformed",
            "counts[2]",
        ),
        (
            {"poser": 0, "pose_tile": "6-6", "end": "block", "counts": [1, 2, None]},
            "malformed",
            "counts[2]",
        ),
        (
            {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0, "llave": "yes"},
            "malformed",
            "llave",
        ),
        (
            {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0, "sporting": 1},
            "malformed",
            "sporting",
        ),
        (
            {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0, "score": 3},
            "unknown_field",
            "score",
        ),
    ],
)
def test_from_dict_names_the_malformed_field(
    data: dict[str, object], code: str, field: str
) -> None:
    with pytest.raises(InvalidRecord) as err:
        HandRecord.from_dict(data)
    assert (err.value.code, err.value.field) == (code, field)
    assert err.value.rule in ("§9", "R1")


def test_from_dict_rejects_a_non_mapping() -> None:
    with pytest.raises(InvalidRecord) as err:
        HandRecord.from_dict([0, "6-6"])  # type: ignore[arg-type]
    assert err.value.field == "record"


# -- section 9 rejections through match_apply -----------------------------------------------

WSOD = PRESETS["wsod"]


def after(ruleset: Ruleset, n: int, records: list[HandRecord], lot: int = 0) -> MatchState:
    return match_fold(ruleset, n, records, lot_winner=lot)


def dom(poser: int, tile: str, winner: int, **kw: object) -> HandRecord:
    return HandRecord.domino(poser, tile, winner, **kw)  # type: ignore[arg-type]


def reject(state: MatchState, record: HandRecord) -> InvalidRecord:
    with pytest.raises(InvalidRecord) as err:
        match_apply(state, record)
    # Nothing is stored: the same state still accepts its expected hand.
    return err.value


def test_wrong_poser_after_a_win_r7() -> None:
    state = after(WSOD, 4, [dom(3, "6-6", 1)])  # B won hand 1
    err = reject(state, dom(2, "5-4", 1))
    assert (err.code, err.rule, err.field) == ("wrong_poser", "R7", "poser")
    assert err.message == "Seat 1 (B) must pose this hand: B won the last hand (R7)."


def test_wrong_poser_of_a_replay_r10() -> None:
    state = after(WSOD, 4, [dom(0, "6-6", 0), HandRecord.block(0, "5-4", [3, 3, 9, 9])])
    err = reject(state, dom(1, "5-4", 1))
    assert (err.code, err.rule, err.field) == ("wrong_poser", "R10", "poser")
    assert "Seat 0 (A)" in err.message
    assert "leader" in err.message


def test_wrong_poser_after_reset_hand_winner_r8() -> None:
    r = WSOD.with_overrides({"after_reset_opener": "hand_winner"})
    state = after(r, 2, [dom(0, "6-6", 0), dom(0, "5-4", 1)])  # 1-1: reset, B poses
    err = reject(state, dom(0, "5-4", 0))
    assert (err.code, err.rule, err.field) == ("wrong_poser", "R8", "poser")


def test_wrong_poser_under_rotation_r6() -> None:
    state = match_start(PRESETS["block"], 3, lot_winner=1)
    err = reject(state, HandRecord.block(0, "5-4", [1, 2, 3]))
    assert (err.code, err.rule, err.field) == ("wrong_poser", "R6", "poser")
    assert "Seat 1 (B)" in err.message


@pytest.mark.parametrize("tile", ["5-5", "6-5", "0-0"])
def test_wrong_pose_tile_when_forced_r5(tile: str) -> None:
    state = match_start(WSOD, 4)
    err = reject(state, dom(2, tile, 0))
    assert (err.code, err.rule, err.field) == ("wrong_pose_tile", "R5", "pose_tile")
    assert "6-6" in err.message


def test_wrong_pose_tile_after_reset_and_in_playoff() -> None:
    state = after(WSOD, 2, [dom(0, "6-6", 0), dom(0, "5-4", 1)])  # reset, forced (R8)
    assert reject(state, dom(1, "4-4", 1)).rule == "R5"
    playoff = after(PRESETS["wsod_playoff"], 2, [dom(0, "6-6", 0), dom(0, "5-4", 1)])
    assert playoff.next.is_playoff
    assert playoff.next.rule == "R9"
    assert reject(playoff, dom(1, "4-4", 1)).code == "wrong_pose_tile"


def test_forced_fallbacks_only_when_the_deal_can_leave_6_6_out() -> None:
    seven = WSOD.with_overrides({"deal": "seven"})
    state = match_start(seven, 2)
    for ok in ("6-6", "5-5", "0-0", "6-5", "5-2"):
        match_apply(state, dom(0, ok, 0))
    err = reject(state, dom(0, "4-3", 0))  # 4-3 can never be the heaviest of 14 tiles
    assert (err.code, err.rule, err.field) == ("wrong_pose_tile", "R5", "pose_tile")
    # Three players, seven each: 7 tiles sleep, so only 6-5 among non-doubles qualifies.
    state3 = match_start(seven, 3)
    match_apply(state3, dom(0, "6-5", 0))
    assert reject(state3, dom(0, "6-4", 0)).code == "wrong_pose_tile"


def test_double_blank_is_not_in_play_for_three_players_r2() -> None:
    state = after(WSOD, 3, [dom(0, "6-6", 0)])
    err = reject(state, dom(0, "0-0", 0))
    assert (err.code, err.rule, err.field) == ("tile_not_in_set", "R2", "pose_tile")


@pytest.mark.parametrize("field", ["poser", "winner"])
@pytest.mark.parametrize("bad", [-1, 4, 7])
def test_unknown_seat(field: str, bad: int) -> None:
    state = match_start(WSOD, 4)
    record = dom(bad, "6-6", 0) if field == "poser" else dom(0, "6-6", bad)
    err = reject(state, record)
    assert (err.code, err.rule, err.field) == ("unknown_seat", "§9", field)


def test_unknown_seat_for_a_smaller_table() -> None:
    state = match_start(WSOD, 2)
    assert reject(state, dom(2, "6-6", 0)).field == "poser"
    assert reject(state, dom(0, "6-6", 3)).field == "winner"


def test_count_out_of_range() -> None:
    state = match_start(WSOD, 4)  # heaviest 7-tile hand: 69
    err = reject(state, HandRecord.block(0, "6-6", [10, 70, 12, 14]))
    assert (err.code, err.rule, err.field) == ("count_out_of_range", "R20", "counts[1]")
    assert "69" in err.message
    match_apply(state, HandRecord.block(0, "6-6", [10, 69, 12, 14]))
    three = match_start(WSOD, 3)  # nine tiles without 0-0: 85
    assert reject(three, HandRecord.block(0, "6-6", [86, 1, 2])).field == "counts[0]"
    match_apply(three, HandRecord.block(0, "6-6", [85, 1, 2]))


def test_negative_count() -> None:
    state = match_start(WSOD, 4)
    err = reject(state, HandRecord.block(0, "6-6", [10, 3, -1, 14]))
    assert (err.code, err.rule, err.field) == ("negative_count", "R20", "counts[2]")


@pytest.mark.parametrize("counts", [[1, 2, 3], [1, 2, 3, 4, 5], []])
def test_wrong_number_of_counts(counts: list[int]) -> None:
    state = match_start(WSOD, 4)
    err = reject(state, HandRecord.block(0, "6-6", counts))
    assert (err.code, err.rule, err.field) == ("wrong_count_length", "§9", "counts")
    err = reject(state, dom(0, "6-6", 1, counts=counts))
    assert err.code == "wrong_count_length"


def test_block_names_no_winner_r20() -> None:
    state = match_start(WSOD, 4)
    record = HandRecord(0, DOUBLE_SIX, EndKind.BLOCK, 2, (10, 12, 8, 9))
    err = reject(state, record)
    assert (err.code, err.rule, err.field) == ("block_names_winner", "R20", "winner")


def test_block_needs_counts_r20() -> None:
    state = match_start(WSOD, 4)
    err = reject(state, HandRecord(0, DOUBLE_SIX, EndKind.BLOCK))
    assert (err.code, err.rule, err.field) == ("counts_required", "R20", "counts")


def test_domino_needs_a_winner_r18() -> None:
    state = match_start(WSOD, 4)
    err = reject(state, HandRecord(0, DOUBLE_SIX, EndKind.DOMINO))
    assert (err.code, err.rule, err.field) == ("winner_required", "R18", "winner")


def test_domino_winner_count_must_be_zero_r18() -> None:
    state = match_start(WSOD, 4)
    err = reject(state, dom(0, "6-6", 1, counts=[5, 3, 0, 9]))
    assert (err.code, err.rule, err.field) == ("winner_count_not_zero", "R18", "counts[1]")
    match_apply(state, dom(0, "6-6", 1, counts=[5, 0, 3, 9]))


def test_pips_domino_needs_every_count_r40() -> None:
    state = match_start(PRESETS["block"], 2)
    err = reject(state, dom(0, "5-4", 1))
    assert (err.code, err.rule, err.field) == ("counts_required", "R40", "counts")
    state4 = match_start(PRESETS["block"], 4)
    err = reject(state4, dom(0, "5-4", 1, counts=[53, 0, 1, 1]))  # 5 tiles: at most 52
    assert (err.code, err.field) == ("count_out_of_range", "counts[0]")


def test_llave_claim_under_llave_off_r24() -> None:
    state = match_start(WSOD, 4)
    err = reject(state, dom(0, "6-6", 1, llave=True))
    assert (err.code, err.rule, err.field) == ("llave_not_allowed", "R24", "llave")


def test_llave_on_a_block_r23() -> None:
    state = match_start(PRESETS["jamaican"], 4)
    record = HandRecord(0, DOUBLE_SIX, EndKind.BLOCK, None, (1, 2, 3, 4), llave=True)
    err = reject(state, record)
    assert (err.code, err.rule, err.field) == ("llave_on_block", "R23", "llave")
    match_apply(state, dom(0, "6-6", 1, llave=True))  # a llave on a domino is fine here


def test_sporting_r11() -> None:
    state = match_start(WSOD, 4)
    err = reject(state, dom(0, "3-2", 1, sporting=True))
    assert (err.code, err.rule, err.field) == ("sporting_not_allowed", "R11", "sporting")
    informal = WSOD.with_overrides({"sporting_allowed": True})
    state = match_start(informal, 4)
    state, _ = match_apply(state, dom(0, "3-2", 1, sporting=True))  # forced holder, any tile
    err = reject(state, dom(1, "3-2", 1, sporting=True))  # B's free pose: nothing to waive
    assert (err.code, err.rule, err.field) == ("sporting_on_free_pose", "R11", "sporting")


def test_hand_after_match_over_r33() -> None:
    state = after(WSOD, 2, [dom(0, "6-6", 0)] + [dom(0, "5-4", 0)] * 5)
    assert state.over
    assert state.winner == 0
    err = reject(state, dom(0, "5-4", 0))
    assert (err.code, err.rule, err.field) == ("match_over", "R33", None)
    assert "A won" in err.message
    with pytest.raises(InvalidRecord):
        match_fold(WSOD, 2, [dom(0, "6-6", 0)] + [dom(0, "5-4", 0)] * 6)


def test_rejection_stores_nothing() -> None:
    state = after(WSOD, 4, [dom(3, "6-6", 1)])
    snapshot = (state.scores, state.hands, state.next, state.stats)
    for bad in (dom(2, "5-4", 1), dom(1, "5-4", 1, llave=True), HandRecord.block(1, "5-4", [1])):
        with pytest.raises(InvalidRecord):
            match_apply(state, bad)
    assert (state.scores, state.hands, state.next, state.stats) == snapshot
    new_state, _ = match_apply(state, dom(1, "5-4", 1))
    assert new_state.scores == (0, 2, 0, 0)


def test_errors_are_value_errors_with_a_dict_form() -> None:
    state = match_start(WSOD, 4)
    with pytest.raises(ValueError, match=r"6-6") as err:
        match_apply(state, dom(0, "5-5", 0))
    assert isinstance(err.value, InvalidRecord)
    assert err.value.as_dict() == {
        "code": "wrong_pose_tile",
        "rule": "R5",
        "field": "pose_tile",
        "message": err.value.message,
    }


def test_match_start_rejects_impossible_tables() -> None:
    with pytest.raises(InvalidRuleset) as err:
        match_start(WSOD, 5)
    assert err.value.rule == "R2"
    with pytest.raises(InvalidRuleset) as err:
        match_start(WSOD.with_overrides({"deal": "seven"}), 4)
    assert err.value.field == "deal"
    with pytest.raises(InvalidRuleset) as err:
        match_start(PRESETS["block"], 3, lot_winner=3)
    assert (err.value.field, err.value.rule) == ("lot_winner", "R6")
