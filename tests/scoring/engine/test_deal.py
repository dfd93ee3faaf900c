"""Deals (R1-R2) and the forced opener (R5)."""

from __future__ import annotations

import random

import pytest

from scoring.engine.deal import R5_ORDER, Deal, check_deal, deal_tiles, forced_opener
from scoring.engine.errors import InvalidRecord, InvalidRuleset
from scoring.engine.rules import Boneyard, Ruleset
from scoring.engine.tiles import (
    ALL_TILES,
    DOUBLE_BLANK,
    DOUBLE_SIX,
    FULL_SET_MASK,
    Tile,
    mask_of,
    tiles_from_mask,
)

T = Tile.parse

# (preset, overrides, players, hand size, stock size, boneyard, 0-0 in use) -- R2.
DEAL_SIZES = [
    ("wsod", {}, 4, 7, 0, Boneyard.NONE, True),
    ("wsod", {}, 3, 9, 0, Boneyard.NONE, False),
    ("wsod", {}, 2, 14, 0, Boneyard.NONE, True),
    ("wsod", {"deal": "seven"}, 3, 7, 7, Boneyard.SLEEPING, True),
    ("wsod", {"deal": "seven", "boneyard": "sleeping"}, 3, 7, 7, Boneyard.SLEEPING, True),
    ("wsod", {"deal": "seven", "boneyard": "draw"}, 3, 7, 7, Boneyard.DRAW, True),
    ("wsod", {"deal": "seven"}, 2, 7, 14, Boneyard.SLEEPING, True),
    ("wsod", {"deal": "seven", "boneyard": "draw"}, 2, 7, 14, Boneyard.DRAW, True),
    ("block", {}, 2, 7, 14, Boneyard.SLEEPING, True),
    ("block", {}, 3, 5, 13, Boneyard.SLEEPING, True),
    ("block", {}, 4, 5, 8, Boneyard.SLEEPING, True),
    ("block", {"boneyard": "draw"}, 4, 5, 8, Boneyard.DRAW, True),
    ("jamaican", {}, 4, 7, 0, Boneyard.NONE, True),
    ("straight_six", {}, 3, 9, 0, Boneyard.NONE, False),
]


@pytest.mark.parametrize(
    ("preset", "overrides", "players", "size", "stock", "boneyard", "has_blank"), DEAL_SIZES
)
def test_deal_sizes_follow_r2(
    preset: str,
    overrides: dict[str, object],
    players: int,
    size: int,
    stock: int,
    boneyard: Boneyard,
    has_blank: bool,
) -> None:
    ruleset = Ruleset.from_preset(preset, overrides)
    for seed in range(20):
        deal = deal_tiles(ruleset, players, random.Random(seed))
        assert [h.bit_count() for h in deal.hands] == [size] * players
        assert deal.stock.bit_count() == stock
        assert deal.boneyard is boneyard
        everything = deal.stock
        for h in deal.hands:
            assert not everything & h, "a tile dealt twice (R1)"
            everything |= h
        # R2: three players in the standard deal play without 0-0.
        expected_set = FULL_SET_MASK if has_blank else FULL_SET_MASK & ~DOUBLE_BLANK.mask
        assert everything == expected_set
        check_deal(ruleset, players, deal)


def test_three_player_standard_deal_never_holds_double_blank() -> None:
    ruleset = Ruleset.from_preset("wsod")
    for seed in range(50):
        deal = deal_tiles(ruleset, 3, random.Random(seed))
        assert deal.holder_of(DOUBLE_BLANK) is None
        assert deal.stock == 0


def test_deal_is_replayable_from_a_seed() -> None:
    ruleset = Ruleset.from_preset("wsod", {"deal": "seven", "boneyard": "draw"})
    first = deal_tiles(ruleset, 2, random.Random(1234))
    again = deal_tiles(ruleset, 2, random.Random(1234))
    other = deal_tiles(ruleset, 2, random.Random(1235))
    assert first == again
    assert first != other


def test_deal_uses_the_injected_generator_only() -> None:
    # Two generators in the same state give the same deal whatever the global random state.
    ruleset = Ruleset.from_preset("wsod")
    rng_a, rng_b = random.Random(9), random.Random(9)
    random.seed(1)
    a = deal_tiles(ruleset, 4, rng_a)
    random.seed(2)
    b = deal_tiles(ruleset, 4, rng_b)
    assert a == b


def test_deal_rejects_impossible_tables() -> None:
    with pytest.raises(InvalidRuleset) as exc:
        deal_tiles(Ruleset.from_preset("wsod"), 5, random.Random(0))
    assert exc.value.rule == "R2"
    with pytest.raises(InvalidRuleset) as exc:
        deal_tiles(Ruleset.from_preset("wsod", {"deal": "seven"}), 4, random.Random(0))
    assert exc.value.code == "impossible_deal"


# R5: (hands, expected seat, expected tile)
FORCED_OPENER = [
    pytest.param([["6-6", "1-2"], ["5-5", "3-4"]], 0, "6-6", id="6-6 holder poses 6-6"),
    pytest.param([["4-4", "6-5"], ["5-5", "6-4"]], 1, "5-5", id="no 6-6: highest double"),
    pytest.param([["0-0", "6-5"], ["1-1", "6-4"]], 1, "1-1", id="no 6-6: 1-1 beats 0-0"),
    pytest.param([["6-3", "1-2"], ["5-4", "0-1"]], 0, "6-3", id="no double: 6-3 before 5-4"),
    pytest.param([["5-4", "1-2"], ["6-2", "0-1"]], 0, "5-4", id="no double: 9 pips beat 8"),
    pytest.param([["6-5", "1-2"], ["6-4", "0-1"]], 0, "6-5", id="no double: 6-5 heaviest"),
    pytest.param([["2-1", "0-3"], ["4-0", "1-0"], ["3-2", "0-2"]], 2, "3-2", id="three seats"),
]


@pytest.mark.parametrize(("hands", "seat", "tile"), FORCED_OPENER)
def test_forced_opener_r5(hands: list[list[str]], seat: int, tile: str) -> None:
    deal = Deal.from_tiles([[T(t) for t in h] for h in hands])
    assert forced_opener(deal) == (seat, T(tile))


def test_forced_opener_ignores_sleeping_tiles() -> None:
    # 6-6 sleeps: the highest double *dealt* poses (R5).
    deal = Deal.from_tiles([[T("3-3"), T("6-1")], [T("2-2")]], stock=[T("6-6"), T("5-5")])
    assert forced_opener(deal) == (0, T("3-3"))


def test_r5_order_ranks_every_tile_once() -> None:
    assert len(R5_ORDER) == 28
    assert set(R5_ORDER) == set(ALL_TILES)
    assert R5_ORDER[0] == DOUBLE_SIX
    assert R5_ORDER[6] == DOUBLE_BLANK
    assert R5_ORDER[7:10] == (T("6-5"), T("6-4"), T("6-3"))
    assert R5_ORDER.index(T("6-3")) < R5_ORDER.index(T("5-4"))


def test_forced_opener_in_real_seven_deals_follows_r5_order() -> None:
    ruleset = Ruleset.from_preset("wsod", {"deal": "seven"})
    for seed in range(200):
        deal = deal_tiles(ruleset, 2, random.Random(seed))
        seat, tile = forced_opener(deal)
        dealt = deal.hands[0] | deal.hands[1]
        assert deal.hands[seat] & tile.mask
        better = R5_ORDER[: R5_ORDER.index(tile)]
        assert not any(dealt & t.mask for t in better)


def test_deal_json_round_trip() -> None:
    ruleset = Ruleset.from_preset("block", {"boneyard": "draw"})
    deal = deal_tiles(ruleset, 3, random.Random(5))
    data = deal.to_dict()
    assert data["boneyard"] == "draw"
    assert Deal.from_dict(data) == deal


# Broken deals: (description, deal json, field, message fragment)
BAD_DEALS = [
    pytest.param({"hands": "x"}, "deal.hands", "every seat", id="hands not a list"),
    pytest.param(
        {"hands": [["6-6", "6-6"]], "stock": []}, "deal.hands[0][1]", "twice", id="dup in hand"
    ),
    pytest.param({"hands": [["7-7"]], "stock": []}, "deal.hands[0][0]", "7-7", id="not a tile"),
    pytest.param(
        {"hands": [["6-6"]], "stock": [], "boneyard": "pile"},
        "deal.boneyard",
        "pile",
        id="unknown boneyard",
    ),
]


@pytest.mark.parametrize(("data", "field", "fragment"), BAD_DEALS)
def test_deal_from_dict_rejects_malformed_input(
    data: dict[str, object], field: str, fragment: str
) -> None:
    with pytest.raises(InvalidRecord) as exc:
        Deal.from_dict(data)
    assert exc.value.field == field
    assert fragment in exc.value.message


def _standard_deal() -> Deal:
    tiles = list(ALL_TILES)
    return Deal.from_tiles([tiles[i * 7 : (i + 1) * 7] for i in range(4)])


def test_check_deal_accepts_a_standard_deal() -> None:
    check_deal(Ruleset.from_preset("wsod"), 4, _standard_deal())


@pytest.mark.parametrize(
    ("mutate", "field", "fragment"),
    [
        pytest.param(
            lambda d: Deal(d.hands[:3], d.stock, d.boneyard), "deal.hands", "seats 4", id="seats"
        ),
        pytest.param(
            lambda d: Deal((d.hands[0] & ~T("0-0").mask, *d.hands[1:]), T("0-0").mask, d.boneyard),
            "deal.hands[0]",
            "6 tiles",
            id="short hand",
        ),
        pytest.param(
            lambda d: Deal(
                (d.hands[0], d.hands[1] ^ T("1-1").mask ^ T("0-0").mask, *d.hands[2:]),
                0,
                d.boneyard,
            ),
            "deal.hands[1]",
            "two seats",
            id="tile twice",
        ),
        pytest.param(
            lambda d: Deal(d.hands, 0, Boneyard.DRAW), "deal.boneyard", "none", id="boneyard"
        ),
    ],
)
def test_check_deal_rejects_deals_r2_does_not_allow(mutate, field: str, fragment: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidRecord) as exc:
        check_deal(Ruleset.from_preset("wsod"), 4, mutate(_standard_deal()))
    assert exc.value.field == field
    assert fragment in exc.value.message
    assert exc.value.rule in ("R1", "R2")


def test_check_deal_rejects_double_blank_for_three_players() -> None:
    tiles = list(ALL_TILES)  # includes 0-0, which R2 removes for three players
    deal = Deal.from_tiles([tiles[0:9], tiles[9:18], tiles[18:27]])
    with pytest.raises(InvalidRecord) as exc:
        check_deal(Ruleset.from_preset("wsod"), 3, deal)
    assert "0-0" in exc.value.message


def test_hand_tiles_and_masks_agree() -> None:
    deal = deal_tiles(Ruleset.from_preset("wsod"), 4, random.Random(3))
    for seat in range(4):
        assert mask_of(deal.hand_tiles(seat)) == deal.hands[seat]
        assert tiles_from_mask(deal.hands[seat]) == deal.hand_tiles(seat)
