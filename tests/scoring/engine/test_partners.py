"""Partnerships in the engine (RULES.md section 12): ruleset checks (R42), record checks (§9,
R46), Hypothesis properties of the partnership fold (R43-R46), snapshots, the simulator, play
logs and the command line."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scoring.engine.__main__ import main
from scoring.engine.errors import InvalidRecord, InvalidRuleset
from scoring.engine.match import match_apply, match_fold, match_start
from scoring.engine.match_state import HandScored, MatchState, first_partner_after
from scoring.engine.playlog import replay_play_log
from scoring.engine.record import EndKind, HandRecord, lowest_seats
from scoring.engine.rules import PRESETS, Ruleset, Scoring
from scoring.engine.simulate import simulate_match
from scoring.engine.snapshot import InvalidSnapshot, state_from_json, state_to_json
from scoring.engine.tiles import ALL_TILES, DOUBLE_SIX

WSOD_P = PRESETS["wsod_partners"]
BLOCK_P = PRESETS["partnership_block"]

# -- R42: rulesets ---------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["wsod_partners", "partnership_block"])
@pytest.mark.parametrize("players", [2, 3])
def test_partnerships_need_exactly_four_players(preset: str, players: int) -> None:
    """R42: a partnership match has exactly 4 players; other tables are refused by name."""
    for call in (
        lambda: PRESETS[preset].validate_for_players(players),
        lambda: match_start(PRESETS[preset], players),
    ):
        with pytest.raises(InvalidRuleset) as err:
            call()
        assert (err.value.code, err.value.rule, err.value.field) == (
            "partners_need_four",
            "R42",
            "teams",
        )
    PRESETS[preset].validate_for_players(4)


@pytest.mark.parametrize("preset", ["wsod", "wsod_playoff", "straight_six", "jamaican", "block"])
def test_every_scoring_can_be_played_in_partnerships(preset: str) -> None:
    """Section 1: ``teams = partners`` is a key of every preset; 4 players play it (R42)."""
    r = Ruleset.from_preset(preset, {"teams": "partners"})
    assert match_start(r, 4).partners
    assert r.to_json()["teams"] == "partners"
    assert not match_start(PRESETS[preset], 4).partners


@pytest.mark.parametrize(
    ("preset", "overrides", "target"),
    [
        ("partnership_block", {}, 100),  # section 1
        ("block", {"teams": "partners"}, 100),  # R45: 100 instead of R41's 61
        ("block", {}, 61),  # R41, individual
        ("partnership_block", {"target": 61}, 61),  # R45: an explicit target applies
        ("block", {"teams": "partners", "target": 150}, 150),
        ("wsod_partners", {}, 6),
    ],
)
def test_partnership_targets(preset: str, overrides: dict[str, object], target: int) -> None:
    r = Ruleset.from_preset(preset, overrides)
    assert r.target_for(4) == target
    assert match_start(r, 4).target == target


@pytest.mark.parametrize(
    ("key", "value"), [("teams", "pairs"), ("partner_credit", "gross"), ("teams", True)]
)
def test_bad_partnership_values_name_the_key(key: str, value: object) -> None:
    with pytest.raises(InvalidRuleset) as err:
        Ruleset.from_preset("wsod", {key: value})
    assert (err.value.code, err.value.field) == ("bad_value", key)


# -- section 9 records under partnerships (R46: the record is unchanged) ----------------------


def dom(poser: int, tile: str, winner: int, **kw: object) -> HandRecord:
    return HandRecord.domino(poser, tile, winner, **kw)  # type: ignore[arg-type]


def blk(poser: int, tile: str, counts: list[int]) -> HandRecord:
    return HandRecord.block(poser, tile, counts)


def state_after(ruleset: Ruleset, records: list[HandRecord], lot: int = 0) -> MatchState:
    return match_fold(ruleset, 4, records, lot_winner=lot)


REJECTIONS = [
    # (case, ruleset, records before, bad record, code, rule, field)
    ("block names a winner", WSOD_P, [], replace(blk(0, "6-6", [9, 14, 9, 17]), winner=0),
     "block_names_winner", "R20", "winner"),
    ("block without counts", WSOD_P, [], HandRecord(0, DOUBLE_SIX, EndKind.BLOCK),
     "counts_required", "R20", "counts"),
    ("three counts for four seats", WSOD_P, [], blk(0, "6-6", [1, 2, 3]),
     "wrong_count_length", "§9", "counts"),
    ("count above the heaviest hand", WSOD_P, [], blk(0, "6-6", [1, 2, 3, 70]),
     "count_out_of_range", "R20", "counts[3]"),
    ("domino winner's count not 0", BLOCK_P, [], dom(0, "5-4", 2, counts=[3, 4, 5, 6]),
     "winner_count_not_zero", "R18", "counts[2]"),
    ("pips domino without counts", BLOCK_P, [], dom(0, "5-4", 2),
     "counts_required", "R40", "counts"),
    ("llave claim under llave=off", WSOD_P, [], dom(0, "6-6", 2, llave=True),
     "llave_not_allowed", "R24", "llave"),
    ("forced pose with another tile", WSOD_P, [], dom(0, "5-4", 2),
     "wrong_pose_tile", "R5", "pose_tile"),
    # X10 hand 2: A and C shared the lowest after C posed, so A must pose (R44).
    ("the partner R44 does not name poses", WSOD_P,
     [dom(3, "6-6", 2), blk(2, "5-4", [7, 12, 7, 15])], dom(2, "5-4", 0),
     "wrong_poser", "R44", "poser"),
    # X10 hand 4: AC lead the replay and C (first after A) must pose it (R10, R44).
    ("the leader's wrong partner poses the replay", WSOD_P,
     [dom(3, "6-6", 2), blk(2, "5-4", [7, 12, 7, 15]), blk(0, "5-4", [5, 5, 11, 20])],
     dom(0, "5-4", 1), "wrong_poser", "R44", "poser"),
    ("rotation skipped", BLOCK_P, [], dom(1, "5-4", 1, counts=[3, 0, 5, 6]),
     "wrong_poser", "R6", "poser"),
    ("a hand after the match is over", WSOD_P, [dom(0, "6-6", 0)] + [dom(0, "5-4", 0)] * 5,
     dom(0, "5-4", 0), "match_over", "R33", None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "ruleset", "before", "record", "code", "rule", "field"),
    REJECTIONS,
    ids=[r[0] for r in REJECTIONS],
)
def test_partnership_records_are_checked(
    case: str,
    ruleset: Ruleset,
    before: list[HandRecord],
    record: HandRecord,
    code: str,
    rule: str,
    field: str | None,
) -> None:
    """Section 9 under partnerships: rejected naming the field and the rule; nothing changes."""
    state = state_after(ruleset, before)
    with pytest.raises(InvalidRecord) as err:
        match_apply(state, record)
    assert (err.value.code, err.value.rule, err.value.field) == (code, rule, field), case
    assert state_after(ruleset, before) == state


# -- Hypothesis properties ---------------------------------------------------------------------

OVERRIDES: dict[str, st.SearchStrategy[object]] = {
    "scoring": st.sampled_from(["six_love", "straight_six", "pips"]),
    "target": st.none() | st.integers(1, 12) | st.integers(40, 120),
    "reset_rule": st.sampled_from(["all_scored", "any_challenger"]),
    "all_ones": st.sampled_from(["reset", "playoff"]),
    "tie_value": st.sampled_from(["escalate", "flat2", "none"]),
    "tie_opener": st.sampled_from(["leader", "six_six_holder", "previous_opener"]),
    "replay_leader_loss": st.sampled_from(["reset", "award"]),
    "after_reset_opener": st.sampled_from(["six_six_holder", "hand_winner"]),
    "llave": st.sampled_from(["off", "plus_one", "flat_two"]),
    "opening": st.sampled_from(["forced_six_six", "lot_then_rotate"]),
    "partner_credit": st.sampled_from(["net", "opponents"]),
}


@st.composite
def partner_rulesets(draw: st.DrawFn, **fixed: str) -> tuple[Ruleset, int]:
    """A valid partnership ruleset (any preset, random overrides, then ``fixed``) and a lot."""
    name = draw(st.sampled_from(sorted(PRESETS)))
    keys = draw(st.lists(st.sampled_from(sorted(OVERRIDES)), unique=True, max_size=6))
    overrides = {k: draw(OVERRIDES[k]) for k in keys} | fixed | {"teams": "partners"}
    try:
        ruleset = Ruleset.from_preset(name, overrides)
        ruleset.validate_for_players(4)
    except InvalidRuleset:
        assume(False)
        raise
    return ruleset, draw(st.integers(0, 3))


@st.composite
def records_for(draw: st.DrawFn, state: MatchState) -> HandRecord:
    """A record that section 9 accepts in ``state``; small counts make shared lowests common."""
    nh = state.next
    poser = nh.poser if nh.poser is not None else draw(st.integers(0, 3))
    tile = DOUBLE_SIX if nh.forced else draw(st.sampled_from(ALL_TILES))
    top = state.ruleset.max_count(4)
    count = st.integers(0, 5) | st.integers(0, top)
    if draw(st.booleans()):
        return HandRecord(poser, tile, EndKind.BLOCK, None, tuple(draw(count) for _ in range(4)))
    winner = draw(st.integers(0, 3))
    counts = None
    if state.ruleset.scoring is Scoring.PIPS:
        counts = tuple(0 if i == winner else draw(count) for i in range(4))
    llave = state.ruleset.llave != "off" and draw(st.booleans())
    return HandRecord(poser, tile, EndKind.DOMINO, winner, counts, llave)


def play(
    data: st.DataObject, ruleset: Ruleset, lot: int, max_hands: int = 30
) -> list[tuple[MatchState, HandRecord, MatchState, HandScored]]:
    state = match_start(ruleset, 4, lot_winner=lot)
    steps: list[tuple[MatchState, HandRecord, MatchState, HandScored]] = []
    while not state.over and len(steps) < max_hands:
        record = data.draw(records_for(state))
        after, scored = match_apply(state, record)
        steps.append((state, record, after, scored))
        state = after
    return steps


PROPERTIES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def partners_share_lowest(counts: tuple[int, ...]) -> bool:
    lows = lowest_seats(counts)
    return len(lows) == 2 and lows[1] - lows[0] == 2


@PROPERTIES
@given(st.data(), partner_rulesets())
def test_naming_either_partner_of_a_shared_lowest_changes_nothing(
    data: st.DataObject, table: tuple[Ruleset, int]
) -> None:
    """R43/R44: when both partners share the lowest count, which of them holds which count
    (the record's naming of the partners) never changes the partnership result, the scores or
    the next pose; only the per-player count order differs."""
    ruleset, lot = table
    for before, record, _, _ in play(data, ruleset, lot):
        if record.end is not EndKind.BLOCK:
            continue
        assert record.counts is not None
        team = data.draw(st.integers(0, 1))
        low = data.draw(st.integers(0, 5))
        counts = list(record.counts)
        counts[team] = counts[team + 2] = low
        for i in (1 - team, 3 - team):
            counts[i] = max(counts[i], low + 1)
        x = data.draw(st.integers(low + 1, low + 9))
        swapped = list(counts)
        swapped[team], swapped[team + 2] = counts[team + 2], counts[team]
        counts_b = list(counts)
        counts_b[1 - team] = x  # an opponent's higher count varies too: still irrelevant
        assert partners_share_lowest(tuple(counts))
        results = []
        for c in (counts, swapped):
            s, h = match_apply(before, HandRecord.block(record.poser, record.pose_tile, c))
            results.append((s.scores, s.next, s.leader, s.team_stats, h.team, h.winner, h.reset))
        assert results[0] == results[1]
        _, h_b = match_apply(before, HandRecord.block(record.poser, record.pose_tile, counts_b))
        assert h_b.team == team
        assert h_b.winner == first_partner_after(record.poser, team)  # R44


@PROPERTIES
@given(st.data(), partner_rulesets(scoring="six_love"))
def test_either_partner_dominoing_scores_the_same(
    data: st.DataObject, table: tuple[Ruleset, int]
) -> None:
    """R43: under win-count scoring a domino is won by the partnership, whichever partner
    plays the last tile: scores, reset and play-off are the same."""
    ruleset, lot = table
    for before, record, _, _ in play(data, ruleset, lot):
        if record.end is not EndKind.DOMINO or record.winner is None:
            continue
        partner = (record.winner + 2) % 4
        a = match_apply(before, record)
        b = match_apply(before, replace(record, winner=partner))
        assert a[0].scores == b[0].scores
        assert (a[1].team, a[1].paid, a[1].reset, a[1].playoff_next) == (
            b[1].team,
            b[1].paid,
            b[1].reset,
            b[1].playoff_next,
        )
        assert a[0].team_stats == b[0].team_stats


@PROPERTIES
@given(st.data(), partner_rulesets())
def test_partnership_invariants(data: st.DataObject, table: tuple[Ruleset, int]) -> None:
    """R42-R46: partners always show one score; a tie iff both partnerships share the lowest
    count; only the winning partnership's score grows; R35 per partnership counts each event
    once."""
    ruleset, lot = table
    steps = play(data, ruleset, lot)
    decided = ties = 0
    for before, record, after, scored in steps:
        ac, bd, ac2, bd2 = after.scores
        assert (ac, bd) == (ac2, bd2)  # R42
        if record.end is EndKind.BLOCK:
            assert record.counts is not None
            lows = lowest_seats(record.counts)
            assert (scored.winner is None) == (len({s % 2 for s in lows}) == 2)  # R43
        if scored.winner is None:
            ties += 1
            assert after.scores == before.scores
            assert after.next.is_replay
        else:
            decided += 1
            assert scored.team == scored.winner % 2
            if scored.reset:
                assert after.scores == (0, 0, 0, 0)
            else:
                gained = after.scores[scored.team] - before.scores[scored.team]
                assert gained == scored.paid >= 0
                assert after.scores[1 - scored.team] == before.scores[1 - scored.team]
        if after.over:
            assert after.winning_team == scored.team
            assert after.scores[scored.winner or 0] >= ruleset.target_for(4)
        if not after.over and not after.next.forced:
            assert after.next.poser is not None
    final = steps[-1][2] if steps else match_start(ruleset, 4, lot_winner=lot)
    assert final.team_stats is not None
    ac_stats, bd_stats = final.team_stats
    assert ac_stats.hands_won + bd_stats.hands_won == decided
    assert ac_stats.ties == bd_stats.ties == ties
    assert ac_stats.six_love_given == bd_stats.six_love_received
    assert bd_stats.six_love_given == ac_stats.six_love_received
    assert sum(s.six_love_given for s in final.stats) == 2 * (
        ac_stats.six_love_given + bd_stats.six_love_given
    )  # R46: both partners credited
    for team, row in enumerate(final.team_stats):
        players = [final.stats[team], final.stats[team + 2]]
        assert (
            max(p.hands_won for p in players) <= row.hands_won <= sum(p.hands_won for p in players)
        )


@PROPERTIES
@given(st.data(), partner_rulesets(scoring="six_love", reset_rule="all_scored"))
def test_all_scored_keeps_a_partnership_on_love(
    data: st.DataObject, table: tuple[Ruleset, int]
) -> None:
    """R44: with two partnerships all_scored resets as soon as both have scored."""
    for _, _, after, _ in play(data, *table):
        assert 0 in after.team_scores if after.team_scores else False


@PROPERTIES
@given(st.data(), partner_rulesets())
def test_partnership_snapshots_round_trip(data: st.DataObject, table: tuple[Ruleset, int]) -> None:
    """A partnership state survives its JSON snapshot, and folding on from it agrees."""
    ruleset, lot = table
    for before, record, after, scored in play(data, ruleset, lot, max_hands=15):
        snap = json.loads(json.dumps(state_to_json(before)))
        restored = state_from_json(ruleset, snap)
        assert restored == before
        assert match_apply(restored, record) == (after, scored)


def test_snapshots_keep_individual_bytes_and_refuse_mixed_shapes() -> None:
    individual = state_to_json(match_start(PRESETS["wsod"], 4))
    assert "team_stats" not in individual  # individual snapshots are unchanged
    pairs = state_to_json(match_start(WSOD_P, 4))
    assert pairs["team_stats"] == [[0] * 10, [0] * 10]
    with pytest.raises(InvalidSnapshot):
        state_from_json(WSOD_P, individual)
    with pytest.raises(InvalidSnapshot):
        state_from_json(PRESETS["wsod"], pairs)


# -- simulator, play logs, command line --------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [
        ("wsod_partners", {}),
        ("partnership_block", {}),
        ("partnership_block", {"partner_credit": "opponents", "opening": "forced_six_six"}),
        ("straight_six", {"teams": "partners"}),
        ("jamaican", {"teams": "partners"}),
        ("wsod_playoff", {"teams": "partners", "tie_opener": "previous_opener"}),
    ],
)
def test_simulated_partnership_matches_fold_and_replay(
    preset: str, overrides: dict[str, object]
) -> None:
    ruleset = Ruleset.from_preset(preset, overrides)
    for seed in range(3):
        sim = simulate_match(ruleset, 4, seed, max_hands=150)
        assert sim.final.partners
        assert sim.final.over or sim.final.hands == 150
        assert match_fold(ruleset, 4, sim.records, lot_winner=sim.lot_winner) == sim.final
        for nh, log, record in zip(sim.next_hands, sim.logs, sim.records, strict=True):
            assert replay_play_log(ruleset, 4, nh, log) == record  # play logs (section 9)
        if sim.final.over:
            assert sim.final.winning_team == sim.scored[-1].team


def test_cli_prints_partnership_scores(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--preset", "partnership_block", "--seed", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[:6] == ["#", "poser", "value", "result", "AC-BD", "notes"]
    sim = simulate_match(BLOCK_P, 4, 3)
    ac, bd = sim.final.team_scores or (0, 0)
    assert f"{ac}-{bd}" in out[-2]
    assert " for AC" in "\n".join(out) or " for BD" in "\n".join(out)
    team = "AC (A and C)" if sim.final.winning_team == 0 else "BD (B and D)"
    assert out[-1] == f"Match over: {team} win after {sim.final.hands} hands."


def test_cli_refuses_partnerships_at_three_players(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--preset", "wsod_partners", "--players", "3"]) == 2
    assert "(R42)" in capsys.readouterr().err
