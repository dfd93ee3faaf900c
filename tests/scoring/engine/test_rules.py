"""Rulesets: the preset table and options of RULES.md section 1, deal sizes of R2."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from scoring.engine.errors import InvalidRuleset
from scoring.engine.rules import (
    DEFAULT_PRESET,
    PRESETS,
    Boneyard,
    DealKind,
    Ruleset,
    Scoring,
)
from scoring.engine.tiles import DOUBLE_BLANK, FULL_SET_MASK

# The preset table of RULES.md section 1; "-" (not applicable) cells are omitted.
PRESET_TABLE: dict[str, dict[str, object]] = {
    "wsod": {
        "scoring": "six_love",
        "target": 6,
        "reset_rule": "all_scored",
        "all_ones": "reset",
        "playoff_value": 2,
        "tie_value": "escalate",
        "tie_value_cap": None,
        "tie_opener": "leader",
        "replay_leader_loss": "reset",
        "after_reset_opener": "six_six_holder",
        "llave": "off",
        "sporting_allowed": False,
        "opening": "forced_six_six",
        "deal": "standard",
        "boneyard": None,
        "draw_when_playable": False,
        "boneyard_reserve": 0,
    },
    "wsod_playoff": {
        "scoring": "six_love",
        "target": 6,
        "reset_rule": "all_scored",
        "all_ones": "playoff",
        "playoff_value": 2,
        "tie_value": "escalate",
        "tie_value_cap": None,
        "tie_opener": "leader",
        "replay_leader_loss": "reset",
        "after_reset_opener": "six_six_holder",
        "llave": "off",
        "sporting_allowed": False,
        "opening": "forced_six_six",
        "deal": "standard",
        "boneyard": None,
        "draw_when_playable": False,
        "boneyard_reserve": 0,
    },
    "straight_six": {
        "scoring": "straight_six",
        "target": 6,
        "tie_value": "escalate",
        "tie_value_cap": None,
        "tie_opener": "leader",
        "replay_leader_loss": "award",
        "llave": "off",
        "sporting_allowed": False,
        "opening": "forced_six_six",
        "deal": "standard",
        "boneyard": None,
        "draw_when_playable": False,
        "boneyard_reserve": 0,
    },
    "jamaican": {
        "scoring": "six_love",
        "target": 6,
        "reset_rule": "all_scored",
        "all_ones": "reset",
        "playoff_value": 2,
        "tie_value": "none",
        "tie_value_cap": None,
        "tie_opener": "six_six_holder",
        "replay_leader_loss": "award",
        "after_reset_opener": "six_six_holder",
        "llave": "plus_one",
        "sporting_allowed": False,
        "opening": "forced_six_six",
        "deal": "standard",
        "boneyard": None,
        "draw_when_playable": False,
        "boneyard_reserve": 0,
    },
    "block": {
        "scoring": "pips",
        "target": None,  # 100 for two players, 61 for three or four (R41)
        "tie_value": "none",
        "llave": "off",
        "sporting_allowed": False,
        "opening": "lot_then_rotate",
        "deal": "block",
        "boneyard": "sleeping",
        "draw_when_playable": False,
        "boneyard_reserve": 0,
    },
}
# The two rows `teams` and `partner_credit` of section 1: every preset above plays individually.
for _row in PRESET_TABLE.values():
    _row.update({"teams": "none", "partner_credit": "net"})
# Section 1: `wsod_partners` = `wsod` with teams = partners; `partnership_block` = `block` with
# teams = partners, partner_credit = net and target 100 (R45).
PRESET_TABLE["wsod_partners"] = {**PRESET_TABLE["wsod"], "teams": "partners"}
PRESET_TABLE["partnership_block"] = {
    **PRESET_TABLE["block"],
    "teams": "partners",
    "partner_credit": "net",
    "target": 100,
}

ALL_KEYS = [
    "scoring",
    "target",
    "reset_rule",
    "all_ones",
    "playoff_value",
    "tie_value",
    "tie_value_cap",
    "tie_opener",
    "replay_leader_loss",
    "after_reset_opener",
    "llave",
    "sporting_allowed",
    "opening",
    "deal",
    "boneyard",
    "draw_when_playable",
    "boneyard_reserve",
    "teams",
    "partner_credit",
]


def test_presets_are_exactly_the_table() -> None:
    assert set(PRESETS) == set(PRESET_TABLE)
    assert DEFAULT_PRESET == "wsod"


@pytest.mark.parametrize("name", list(PRESET_TABLE))
def test_preset_values(name: str) -> None:
    data = PRESETS[name].to_json()
    assert data["preset"] == name
    assert list(data) == ["preset", *ALL_KEYS]
    for key, value in PRESET_TABLE[name].items():
        assert data[key] == value, f"{name}.{key}"


# The "-" cells of RULES.md section 1's preset table: keys with no effect under that preset's
# scoring. The stored ruleset carries the `wsod` value for each (section 1).
NOT_APPLICABLE: dict[str, tuple[str, ...]] = {
    "straight_six": ("reset_rule", "all_ones", "playoff_value", "after_reset_opener"),
    "block": (
        "reset_rule",
        "all_ones",
        "playoff_value",
        "tie_value_cap",
        "tie_opener",
        "replay_leader_loss",
        "after_reset_opener",
    ),
}


@pytest.mark.parametrize(
    ("name", "key"), [(name, key) for name, keys in NOT_APPLICABLE.items() for key in keys]
)
def test_not_applicable_keys_carry_the_wsod_value(name: str, key: str) -> None:
    """Section 1: a "-" key stores the `wsod` value (block's replay_leader_loss is reset)."""
    assert key not in PRESET_TABLE[name]
    assert PRESETS[name].to_json()[key] == PRESETS["wsod"].to_json()[key], f"{name}.{key}"


@pytest.mark.parametrize("name", list(PRESET_TABLE))
def test_no_effect_is_the_dash_cells_of_section_1(name: str) -> None:
    """Section 1's "-" cells, per preset: the engine's NO_EFFECT for the preset's scoring is
    exactly them (the forms show a dash instead of a value for these keys)."""
    from scoring.engine.rules import NO_EFFECT

    # The two §12 presets are their section 1 column with `teams = partners`.
    column = {"wsod_partners": "wsod", "partnership_block": "block"}.get(name, name)
    scoring = PRESETS[name].scoring
    assert NO_EFFECT[scoring] == frozenset(NOT_APPLICABLE.get(column, ()))


@pytest.mark.parametrize("name", list(NOT_APPLICABLE))
@pytest.mark.parametrize("scoring", ["six_love", "straight_six"])
def test_overriding_scoring_behaves_like_wsod_with_the_same_overrides(
    name: str, scoring: str
) -> None:
    """Section 1: a preset whose `scoring` is overridden is `wsod` with the same overrides."""
    explicit = {k: v for k, v in PRESET_TABLE[name].items() if k != "scoring"}
    if explicit.get("target") is None:
        explicit.pop("target", None)  # block's null target: the default for the scoring
    overrides = {"scoring": scoring}
    if name == "block":
        explicit.pop("target", None)
        overrides["target"] = 6
    mine = Ruleset.from_preset(name, overrides).to_json()
    wsod = Ruleset.from_preset("wsod", {**explicit, **overrides}).to_json()
    assert {k: v for k, v in mine.items() if k != "preset"} == {
        k: v for k, v in wsod.items() if k != "preset"
    }


def test_from_preset_without_overrides_is_the_preset() -> None:
    for name, preset in PRESETS.items():
        assert Ruleset.from_preset(name) is preset
        assert Ruleset.from_preset(name, {}) is preset


@pytest.mark.parametrize(
    ("preset", "players", "target"),
    [
        ("wsod", 4, 6),
        ("straight_six", 2, 6),
        ("block", 2, 100),  # R41
        ("block", 3, 61),
        ("block", 4, 61),
    ],
)
def test_target_for(preset: str, players: int, target: int) -> None:
    assert PRESETS[preset].target_for(players) == target


def test_explicit_target_wins_over_player_count() -> None:
    assert Ruleset.from_preset("block", {"target": 150}).target_for(2) == 150
    assert Ruleset.from_preset("wsod", {"target": None}).target_for(3) == 6


# deal, players -> hand size, all dealt, set without 0-0, heaviest hand (R2, section 9)
DEALS = [
    ("standard", 4, 7, True, False, 69),
    ("standard", 3, 9, True, True, 85),
    ("standard", 2, 14, True, False, 118),
    ("seven", 3, 7, False, False, 69),
    ("seven", 2, 7, False, False, 69),
    ("block", 2, 7, False, False, 69),
    ("block", 3, 5, False, False, 52),
    ("block", 4, 5, False, False, 52),
]


@pytest.mark.parametrize(("deal", "players", "size", "all_dealt", "no_blank", "heaviest"), DEALS)
def test_deal_sizes_r2(
    deal: str, players: int, size: int, all_dealt: bool, no_blank: bool, heaviest: int
) -> None:
    overrides: dict[str, object] = {"deal": deal}
    if deal != "standard":
        overrides["boneyard"] = "sleeping"
    r = Ruleset.from_preset("wsod", overrides)
    r.validate_for_players(players)
    assert r.hand_size(players) == size
    assert r.deals_all_tiles(players) is all_dealt
    expected_mask = FULL_SET_MASK & ~DOUBLE_BLANK.mask if no_blank else FULL_SET_MASK
    assert r.set_mask(players) == expected_mask
    assert r.max_count(players) == heaviest
    assert r.boneyard_for(players) is (Boneyard.NONE if all_dealt else Boneyard.SLEEPING)


def test_max_count_includes_drawable_tiles_r16() -> None:
    # Two players, seven each: 14 in a draw boneyard, all drawable; one hand may hold 21 tiles.
    draw = Ruleset.from_preset("wsod", {"deal": "seven", "boneyard": "draw"})
    # The 14 heaviest tiles weigh 118; the next seven weigh 6, 6, 5, 5, 5, 4, 4.
    assert draw.max_count(2) == 118 + 6 + 6 + 5 + 5 + 5 + 4 + 4  # 21 tiles
    reserve = draw.with_overrides({"boneyard_reserve": 2})
    assert reserve.max_count(2) == 118 + 6 + 6 + 5 + 5 + 5  # 19 tiles
    # Block deal, four players: 8 in the boneyard, so 5 + 8 = 13 tiles.
    block_draw = Ruleset.from_preset("block", {"boneyard": "draw"})
    assert block_draw.max_count(4) == 118 - 6


def test_boneyard_defaults_to_sleeping_when_tiles_are_left() -> None:
    r = Ruleset.from_preset("wsod", {"deal": "seven"})
    assert r.boneyard is None
    assert r.boneyard_for(2) is Boneyard.SLEEPING
    assert Ruleset.from_preset("wsod", {"deal": "seven", "boneyard": "draw"}).boneyard_for(3) is (
        Boneyard.DRAW
    )


@pytest.mark.parametrize("players", [0, 1, 5, -1])
def test_player_count_outside_2_to_4_is_rejected(players: int) -> None:
    with pytest.raises(InvalidRuleset) as err:
        PRESETS["wsod"].validate_for_players(players)
    assert (err.value.code, err.value.rule, err.value.field) == (
        "bad_player_count",
        "R2",
        "n_players",
    )


def test_seven_deal_for_four_players_is_rejected() -> None:
    r = Ruleset.from_preset("wsod", {"deal": "seven"})
    with pytest.raises(InvalidRuleset) as err:
        r.validate_for_players(4)
    assert (err.value.code, err.value.rule, err.value.field) == ("impossible_deal", "R2", "deal")


def test_draw_boneyard_with_nothing_to_draw_is_rejected() -> None:
    # Three players, seven each: 28 - 21 = 7 tiles in the boneyard (R2).
    r = Ruleset.from_preset("wsod", {"deal": "seven", "boneyard": "draw", "boneyard_reserve": 7})
    with pytest.raises(InvalidRuleset) as err:
        r.validate_for_players(3)
    assert (err.value.code, err.value.rule, err.value.field) == (
        "empty_boneyard",
        "R16",
        "boneyard_reserve",
    )
    r.validate_for_players(2)  # 14 left, reserve 7: draws possible


@pytest.mark.parametrize(
    ("overrides", "code", "field", "rule", "in_message"),
    [
        ({"colour": "red"}, "unknown_key", "colour", "§1", "known keys"),
        ({"preset": "block"}, "unknown_key", "preset", "§1", "known keys"),
        ({"scoring": "golf"}, "bad_value", "scoring", "§1", "six_love, straight_six, pips"),
        ({"tie_value": "double"}, "bad_value", "tie_value", "§1", "escalate, flat2, none"),
        ({"tie_opener": None}, "bad_value", "tie_opener", "§1", "leader"),
        ({"target": "6"}, "bad_value", "target", "§1", "an integer or null"),
        ({"target": True}, "bad_value", "target", "§1", "an integer"),
        ({"playoff_value": 2.5}, "bad_value", "playoff_value", "§1", "an integer"),
        ({"sporting_allowed": 1}, "bad_value", "sporting_allowed", "§1", "true, false"),
        ({"boneyard": "pile"}, "bad_value", "boneyard", "§1", "none, sleeping, draw, null"),
        ({"target": 0}, "out_of_range", "target", "§1", ">= 1"),
        ({"playoff_value": 0}, "out_of_range", "playoff_value", "R26", ">= 1"),
        ({"tie_value_cap": 0}, "out_of_range", "tie_value_cap", "R26", ">= 1"),
        ({"boneyard_reserve": -1}, "out_of_range", "boneyard_reserve", "R16", ">= 0"),
        ({"target": 1001}, "out_of_range", "target", "§1", "<= 1000"),
        ({"target": 10**20}, "out_of_range", "target", "§1", "<= 1000"),
        ({"playoff_value": 1001}, "out_of_range", "playoff_value", "R26", "<= 1000"),
        ({"tie_value_cap": 5000}, "out_of_range", "tie_value_cap", "R26", "<= 1000"),
        ({"boneyard_reserve": 29}, "out_of_range", "boneyard_reserve", "R16", "<= 28"),
        ({"scoring": "pips", "llave": "plus_one"}, "nonsense_combination", "llave", "R24", "pips"),
        ({"boneyard": "draw"}, "nonsense_combination", "boneyard", "R2", "deals every tile"),
        ({"boneyard": "sleeping"}, "nonsense_combination", "boneyard", "R2", "standard"),
        ({"deal": "seven", "boneyard": "none"}, "nonsense_combination", "boneyard", "R2", "seven"),
    ],
)
def test_invalid_overrides_name_the_key(
    overrides: dict[str, object], code: str, field: str, rule: str, in_message: str
) -> None:
    with pytest.raises(InvalidRuleset) as err:
        Ruleset.from_preset("wsod", overrides)
    assert (err.value.code, err.value.field, err.value.rule) == (code, field, rule)
    assert in_message in err.value.message


def test_block_preset_rejects_llave() -> None:
    with pytest.raises(InvalidRuleset) as err:
        Ruleset.from_preset("block", {"llave": "flat_two"})
    assert err.value.field == "llave"


def test_unknown_preset() -> None:
    with pytest.raises(InvalidRuleset) as err:
        Ruleset.from_preset("dominican")
    assert (err.value.code, err.value.field) == ("unknown_preset", "preset")
    assert "wsod" in err.value.message


def test_constructor_rejects_plain_strings_for_enums() -> None:
    data: dict[str, Any] = {f: getattr(PRESETS["wsod"], f) for f in ("preset", *ALL_KEYS)}
    data["scoring"] = "six_love"  # a str, not a Scoring
    with pytest.raises(InvalidRuleset) as err:
        Ruleset(**data)
    assert (err.value.code, err.value.field) == ("bad_type", "scoring")


def test_legitimate_combinations_are_accepted() -> None:
    # R32 with play-offs, sporting as a value (the tournament layer decides), pips with a
    # forced first pose, pips with the standard deal.
    Ruleset.from_preset("wsod", {"reset_rule": "any_challenger", "all_ones": "playoff"})
    assert Ruleset.from_preset("wsod", {"sporting_allowed": True}).sporting_allowed
    Ruleset.from_preset("block", {"opening": "forced_six_six"})
    r = Ruleset.from_preset("block", {"deal": "standard", "boneyard": None})
    assert r.deals_all_tiles(4)
    assert r.boneyard_for(4) is Boneyard.NONE


def test_with_overrides_keeps_the_preset_name_and_reports_the_diff() -> None:
    r = PRESETS["jamaican"].with_overrides({"llave": "flat_two", "target": 6})
    assert r.preset == "jamaican"
    assert r.llave == "flat_two"
    assert r.overrides() == {"llave": "flat_two"}
    assert PRESETS["block"].overrides() == {}


def test_json_round_trip_of_presets() -> None:
    for preset in PRESETS.values():
        data = preset.to_json()
        assert Ruleset.from_json(data) == preset
        assert Ruleset.from_json(dict(data)).to_json() == data


def test_from_json_missing_keys_take_the_preset_and_bad_input_is_rejected() -> None:
    r = Ruleset.from_json({"preset": "jamaican", "target": 7})
    assert r == PRESETS["jamaican"].with_overrides({"target": 7})
    assert Ruleset.from_json({}) == PRESETS["wsod"]
    with pytest.raises(InvalidRuleset) as err:
        Ruleset.from_json({"preset": 3})
    assert err.value.field == "preset"
    with pytest.raises(InvalidRuleset):
        Ruleset.from_json(["wsod"])  # type: ignore[arg-type]


def test_enum_members_are_accepted_as_override_values() -> None:
    r = Ruleset.from_preset("wsod", {"scoring": Scoring.STRAIGHT_SIX, "deal": DealKind.STANDARD})
    assert r.scoring is Scoring.STRAIGHT_SIX


# -- Hypothesis: JSON round trip of random valid rulesets is the identity ----------------------

OVERRIDE_VALUES: dict[str, st.SearchStrategy[object]] = {
    "scoring": st.sampled_from(["six_love", "straight_six", "pips"]),
    "target": st.none() | st.integers(1, 200),
    "reset_rule": st.sampled_from(["all_scored", "any_challenger"]),
    "all_ones": st.sampled_from(["reset", "playoff"]),
    "playoff_value": st.integers(1, 6),
    "tie_value": st.sampled_from(["escalate", "flat2", "none"]),
    "tie_value_cap": st.none() | st.integers(1, 8),
    "tie_opener": st.sampled_from(["leader", "six_six_holder", "previous_opener"]),
    "replay_leader_loss": st.sampled_from(["reset", "award"]),
    "after_reset_opener": st.sampled_from(["six_six_holder", "hand_winner"]),
    "llave": st.sampled_from(["off", "plus_one", "flat_two"]),
    "sporting_allowed": st.booleans(),
    "opening": st.sampled_from(["forced_six_six", "lot_then_rotate"]),
    "deal": st.sampled_from(["standard", "seven", "block"]),
    "boneyard": st.sampled_from([None, "none", "sleeping", "draw"]),
    "draw_when_playable": st.booleans(),
    "boneyard_reserve": st.integers(0, 10),
    "teams": st.sampled_from(["none", "partners"]),
    "partner_credit": st.sampled_from(["net", "opponents"]),
}


@st.composite
def rulesets(draw: st.DrawFn) -> Ruleset:
    name = draw(st.sampled_from(sorted(PRESETS)))
    keys = draw(st.lists(st.sampled_from(ALL_KEYS), unique=True, max_size=6))
    overrides = {k: draw(OVERRIDE_VALUES[k]) for k in keys}
    try:
        return Ruleset.from_preset(name, overrides)
    except InvalidRuleset:
        assume(False)
        raise


@given(rulesets())
def test_json_round_trip_is_identity(ruleset: Ruleset) -> None:
    data = ruleset.to_json()
    assert Ruleset.from_json(data) == ruleset
    assert Ruleset.from_json(data).to_json() == data
    assert Ruleset.from_preset(ruleset.preset, ruleset.overrides()) == ruleset
