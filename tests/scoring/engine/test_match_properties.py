"""Hypothesis properties of the match reducer (R20, R25-R35, R40-R41, section 9)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scoring.engine.errors import InvalidRecord, InvalidRuleset
from scoring.engine.match import match_apply, match_fold, match_start
from scoring.engine.match_state import HandScored, MatchState
from scoring.engine.record import EndKind, HandRecord, block_result
from scoring.engine.rules import PRESETS, Llave, Ruleset, Scoring
from scoring.engine.tiles import ALL_TILES, DOUBLE_SIX

OVERRIDES: dict[str, st.SearchStrategy[object]] = {
    "scoring": st.sampled_from(["six_love", "straight_six", "pips"]),
    "target": st.none() | st.integers(1, 12) | st.integers(40, 120),
    "reset_rule": st.sampled_from(["all_scored", "any_challenger"]),
    "all_ones": st.sampled_from(["reset", "playoff"]),
    "playoff_value": st.integers(1, 4),
    "tie_value": st.sampled_from(["escalate", "flat2", "none"]),
    "tie_value_cap": st.none() | st.integers(1, 5),
    "tie_opener": st.sampled_from(["leader", "six_six_holder", "previous_opener"]),
    "replay_leader_loss": st.sampled_from(["reset", "award"]),
    "after_reset_opener": st.sampled_from(["six_six_holder", "hand_winner"]),
    "llave": st.sampled_from(["off", "plus_one", "flat_two"]),
    "sporting_allowed": st.booleans(),
    "opening": st.sampled_from(["forced_six_six", "lot_then_rotate"]),
    "deal": st.sampled_from(["standard", "seven", "block"]),
    "boneyard": st.sampled_from([None, "sleeping", "draw"]),
}


@dataclass(frozen=True)
class Table:
    ruleset: Ruleset
    players: int
    lot: int


@st.composite
def tables(draw: st.DrawFn, **fixed: str) -> Table:
    """A random valid table: a preset, random overrides, then the ``fixed`` keys.

    Individual play unless ``teams="partners"`` is fixed (partnerships: tests/.../test_partners).
    """
    partners = fixed.get("teams") == "partners"
    name = draw(
        st.sampled_from(sorted(n for n, r in PRESETS.items() if partners or r.teams == "none"))
    )
    keys = draw(st.lists(st.sampled_from(sorted(OVERRIDES)), unique=True, max_size=6))
    overrides = {k: draw(OVERRIDES[k]) for k in keys} | fixed
    if overrides.get("scoring", PRESETS[name].scoring) != "pips" and "llave" not in keys:
        overrides.setdefault("llave", draw(OVERRIDES["llave"]))
    players = 4 if partners else draw(st.integers(2, 4))
    try:
        ruleset = Ruleset.from_preset(name, overrides)
        ruleset.validate_for_players(players)
    except InvalidRuleset:
        assume(False)
        raise
    return Table(ruleset, players, draw(st.integers(0, players - 1)))


@st.composite
def records_for(draw: st.DrawFn, state: MatchState) -> HandRecord:
    """A record that section 9 accepts in ``state``."""
    n = state.n_players
    rules = state.ruleset
    nh = state.next
    poser = nh.poser if nh.poser is not None else draw(st.integers(0, n - 1))
    sporting = False
    if nh.forced:
        sporting = rules.sporting_allowed and draw(st.booleans())
        tile = DOUBLE_SIX
    if not nh.forced or sporting:
        in_set = rules.set_mask(n)
        tile = draw(st.sampled_from([t for t in ALL_TILES if in_set >> t.index & 1]))
    top = rules.max_count(n)
    # Small counts make shared lowest counts (ties, R20) common.
    count = st.integers(0, 6) | st.integers(0, top)
    if draw(st.integers(0, 4)) == 0:
        counts = tuple(draw(count) for _ in range(n))
        return HandRecord(poser, tile, EndKind.BLOCK, None, counts, False, sporting)
    winner = draw(st.integers(0, n - 1))
    counts_opt = None
    if rules.scoring is Scoring.PIPS or draw(st.booleans()):
        counts_opt = tuple(0 if i == winner else draw(count) for i in range(n))
    llave = rules.llave is not Llave.OFF and draw(st.booleans())
    return HandRecord(poser, tile, EndKind.DOMINO, winner, counts_opt, llave, sporting)


def play(
    data: st.DataObject, table: Table, max_hands: int = 60
) -> list[tuple[MatchState, HandRecord, MatchState, HandScored]]:
    """Play random valid hands; returns (before, record, after, scored) per hand."""
    state = match_start(table.ruleset, table.players, lot_winner=table.lot)
    steps = []
    for _ in range(max_hands):
        if state.over:
            break
        record = data.draw(records_for(state))
        new_state, scored = match_apply(state, record)
        steps.append((state, record, new_state, scored))
        state = new_state
    return steps


PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROPERTY_SETTINGS
@given(st.data(), tables(scoring="six_love", reset_rule="all_scored"))
def test_all_scored_keeps_someone_on_love_between_hands(data: st.DataObject, table: Table) -> None:
    """R34: under all_scored, between hands at least one player is on love."""
    for _, _, after, _ in play(data, table):
        assert any(after.on_love), after.scores


@PROPERTY_SETTINGS
@given(st.data(), tables(scoring="six_love", reset_rule="all_scored"))
def test_last_player_on_love_never_wins_with_their_win(data: st.DataObject, table: Table) -> None:
    """R34: the last player on love never wins the match with their (first) win: it resets."""
    for before, _, after, scored in play(data, table):
        loves = [i for i, s in enumerate(before.scores) if s == 0]
        if len(loves) == 1 and scored.winner == loves[0]:
            assert not after.over
            assert scored.reset
            assert after.scores == (0,) * table.players


@PROPERTY_SETTINGS
@given(st.data(), tables(scoring="six_love", reset_rule="any_challenger"))
def test_any_challenger_leaves_at_most_one_player_with_points(
    data: st.DataObject, table: Table
) -> None:
    """R32: a challenger's win resets, so at most one player ever has points."""
    for _, _, after, _ in play(data, table):
        assert sum(1 for s in after.scores if s > 0) <= 1


@given(st.lists(st.integers(0, 60), min_size=2, max_size=4))
def test_any_shared_lowest_count_is_a_tie(counts: list[int]) -> None:
    """R20: a unique lowest count wins; a shared lowest count is a tie, whatever the others."""
    low = min(counts)
    if counts.count(low) > 1:
        assert block_result(counts) is None
    else:
        assert block_result(counts) == counts.index(low)


@PROPERTY_SETTINGS
@given(st.data(), tables())
def test_general_invariants(data: st.DataObject, table: Table) -> None:
    """Scores never go negative, ties change nothing, values and stats stay consistent."""
    steps = play(data, table)
    decided = ties = 0
    for before, record, after, scored in steps:
        assert all(s >= 0 for s in after.scores)
        assert scored.value == before.next.value
        assert after.hands == before.hands + 1 == scored.number
        assert after.last_poser == record.poser
        if scored.winner is None:
            ties += 1
            assert after.scores == before.scores  # R27, R40
            assert scored.tied
            assert after.tie_run == before.tie_run + 1
            assert after.next.is_replay
        else:
            decided += 1
            assert after.tie_run == 0
            if scored.reset:
                assert after.scores == (0,) * table.players
                assert scored.paid == 0
            else:
                gained = after.scores[scored.winner] - before.scores[scored.winner]
                assert gained == scored.paid
                others = [i for i in range(table.players) if i != scored.winner]
                assert all(after.scores[i] == before.scores[i] for i in others)
        if after.over:
            assert after.winner == scored.winner
            assert after.scores[after.winner] >= table.ruleset.target_for(table.players)
    stats = steps[-1][2].stats if steps else ()
    assert sum(s.hands_won for s in stats) == decided
    assert sum(s.domino_wins + s.block_wins for s in stats) == decided
    assert sum(s.six_love_given for s in stats) == sum(s.six_love_received for s in stats)
    if steps and table.ruleset.scoring is Scoring.PIPS:
        assert all(s.resets_caused == s.six_love_given == 0 for s in stats)


@PROPERTY_SETTINGS
@given(st.data(), tables())
def test_folding_is_deterministic(data: st.DataObject, table: Table) -> None:
    """match_fold equals applying the hands one by one, and folding twice gives equal states."""
    steps = play(data, table)
    records = [record for _, record, _, _ in steps]
    final = (
        steps[-1][2] if steps else match_start(table.ruleset, table.players, lot_winner=table.lot)
    )
    once = match_fold(table.ruleset, table.players, records, lot_winner=table.lot)
    twice = match_fold(table.ruleset, table.players, list(records), lot_winner=table.lot)
    assert once == twice == final
    # Records survive their JSON form unchanged.
    assert [HandRecord.from_dict(r.to_dict()) for r in records] == records


@PROPERTY_SETTINGS
@given(st.data(), tables(scoring="straight_six"))
def test_once_over_no_hand_is_accepted(data: st.DataObject, table: Table) -> None:
    """R33: after the match ends every further record is rejected, naming R33."""
    steps = play(data, table, max_hands=200)
    assume(steps)
    assume(steps[-1][2].over)
    final = steps[-1][2]
    for record in (steps[-1][1], steps[0][1]):
        with pytest.raises(InvalidRecord) as err:
            match_apply(final, record)
        assert (err.value.code, err.value.rule) == ("match_over", "R33")


@PROPERTY_SETTINGS
@given(st.data(), tables())
def test_state_snapshots_round_trip_and_fold_on(data: st.DataObject, table: Table) -> None:
    """Every state survives its JSON snapshot unchanged (through real JSON text), and applying
    the next record to the restored state gives what applying it to the original gives: a
    service may keep the snapshot instead of folding every stored hand again."""
    import json

    from scoring.engine.snapshot import state_from_json, state_to_json

    steps = play(data, table)
    start = match_start(table.ruleset, table.players, lot_winner=table.lot)
    states = [start, *(after for _, _, after, _ in steps)]
    for state in states:
        restored = state_from_json(table.ruleset, json.loads(json.dumps(state_to_json(state))))
        assert restored == state
        assert restored.ctx is not None
    for before, record, after, scored in steps:
        restored = state_from_json(table.ruleset, json.loads(json.dumps(state_to_json(before))))
        assert match_apply(restored, record) == (after, scored)


@pytest.mark.parametrize(
    "damage",
    [
        {"format": 2},
        {"format": None},
        {"scores": [0]},
        {"stats": [[0] * 10]},
        {"next": {}},
        {"hands": "many"},
        {"next_missing": True},
    ],
)
def test_a_foreign_or_broken_snapshot_is_refused(damage: dict[str, object]) -> None:
    from scoring.engine.snapshot import InvalidSnapshot, state_from_json, state_to_json

    ruleset = Ruleset.from_preset("wsod")
    data = state_to_json(match_start(ruleset, 4))
    if damage.pop("next_missing", False):
        del data["next"]
    data.update(damage)
    with pytest.raises(InvalidSnapshot):
        state_from_json(ruleset, data)
