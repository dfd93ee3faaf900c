"""The fast fold (scoring.engine.fold) equals the reference reducer, hand by hand (issue 19).

``match_fold`` folds valid records with local variables and builds one state at the end; it
must give exactly the state that ``match_apply`` gives record by record, and for an invalid
record exactly the same error (code, rule, field and message, section 9), under random
individual and partnership rulesets.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scoring.engine.errors import InvalidRecord, InvalidRuleset
from scoring.engine.match import match_apply, match_fold, match_start
from scoring.engine.match_state import MatchState
from scoring.engine.record import EndKind, HandRecord
from scoring.engine.rules import PRESETS, Ruleset
from scoring.engine.tiles import ALL_TILES, DOUBLE_SIX

OVERRIDES: dict[str, st.SearchStrategy[object]] = {
    "scoring": st.sampled_from(["six_love", "straight_six", "pips"]),
    "target": st.none() | st.integers(1, 8) | st.integers(40, 90),
    "reset_rule": st.sampled_from(["all_scored", "any_challenger"]),
    "all_ones": st.sampled_from(["reset", "playoff"]),
    "playoff_value": st.integers(1, 3),
    "tie_value": st.sampled_from(["escalate", "flat2", "none"]),
    "tie_value_cap": st.none() | st.integers(1, 4),
    "tie_opener": st.sampled_from(["leader", "six_six_holder", "previous_opener"]),
    "replay_leader_loss": st.sampled_from(["reset", "award"]),
    "after_reset_opener": st.sampled_from(["six_six_holder", "hand_winner"]),
    "llave": st.sampled_from(["off", "plus_one", "flat_two"]),
    "sporting_allowed": st.booleans(),
    "opening": st.sampled_from(["forced_six_six", "lot_then_rotate"]),
    "deal": st.sampled_from(["standard", "seven", "block"]),
    "boneyard": st.sampled_from([None, "sleeping"]),
    "teams": st.sampled_from(["none", "partners"]),
    "partner_credit": st.sampled_from(["net", "opponents"]),
}


@st.composite
def tables(draw: st.DrawFn) -> tuple[Ruleset, int, int]:
    name = draw(st.sampled_from(sorted(PRESETS)))
    keys = draw(st.lists(st.sampled_from(sorted(OVERRIDES)), unique=True, max_size=7))
    players = draw(st.integers(2, 4))
    try:
        ruleset = Ruleset.from_preset(name, {k: draw(OVERRIDES[k]) for k in keys})
        ruleset.validate_for_players(players)
    except InvalidRuleset:
        assume(False)
        raise
    return ruleset, players, draw(st.integers(0, players - 1))


@st.composite
def record_for(draw: st.DrawFn, state: MatchState, valid: bool) -> HandRecord:
    """Mostly what section 9 accepts; with ``valid`` false, anything of the right types."""
    n = state.n_players
    nh = state.next
    rules = state.ruleset
    if valid:
        poser = nh.poser if nh.poser is not None else draw(st.integers(0, n - 1))
        tile = DOUBLE_SIX if nh.forced else draw(st.sampled_from(ALL_TILES))
        if not rules.set_mask(n) >> tile.index & 1:
            tile = DOUBLE_SIX
        top = rules.max_count(n)
    else:
        poser = draw(st.integers(-1, n))
        tile = draw(st.sampled_from(ALL_TILES))
        top = rules.max_count(n) + 3
    count = st.integers(0, 4) | st.integers(0, top)
    sporting = draw(st.booleans()) if not valid or rules.sporting_allowed else False
    if valid and sporting and not nh.forced:
        sporting = False
    if draw(st.booleans()):
        counts = tuple(draw(count) for _ in range(n if valid else draw(st.integers(n - 1, n))))
        winner = None if valid else draw(st.none() | st.integers(0, n - 1))
        return HandRecord(poser, tile, EndKind.BLOCK, winner, counts, False, sporting)
    winner = draw(st.integers(0, n - 1) if valid else st.integers(-1, n))
    counts_opt = None
    if rules.scoring == "pips" or draw(st.booleans()):
        counts_opt = tuple(0 if i == winner and valid else draw(count) for i in range(n))
    llave = draw(st.booleans()) if not valid or rules.llave != "off" else False
    return HandRecord(poser, tile, EndKind.DOMINO, winner, counts_opt, llave, sporting)


def outcome(call: object) -> object:
    try:
        return call()  # type: ignore[operator]
    except InvalidRecord as exc:
        return ("error", exc.code, exc.rule, exc.field, exc.message)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), tables())
def test_fast_fold_equals_the_reference_reducer(
    data: st.DataObject, table: tuple[Ruleset, int, int]
) -> None:
    ruleset, n, lot = table
    state = match_start(ruleset, n, lot_winner=lot)
    records: list[HandRecord] = []
    for _ in range(data.draw(st.integers(0, 40))):
        valid = data.draw(st.integers(0, 30)) > 0
        record = data.draw(record_for(state, valid))
        records.append(record)
        try:
            state, _ = match_apply(state, record)
        except InvalidRecord:
            break

    # match_apply record by record is the reference: same state, or the same first error.
    def reference() -> MatchState:
        s = match_start(ruleset, n, lot_winner=lot)
        for r in records:
            s, _ = match_apply(s, r)
        return s

    expected = outcome(reference)
    got = outcome(lambda: match_fold(ruleset, n, records, lot_winner=lot))
    assert got == expected
    got_iter = outcome(lambda: match_fold(ruleset, n, iter(records), lot_winner=lot))
    assert got_iter == expected
    if isinstance(expected, MatchState):
        assert isinstance(got, MatchState)
        assert got.next == expected.next
        assert got.stats == expected.stats
        assert got.team_stats == expected.team_stats


def test_shared_player_stats_are_the_reference_values_and_the_cache_is_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fast fold reuses PlayerStats instances for rows it has built before (R35 stats are
    immutable values): every folded match still equals the reference reducer's, and the cache
    of rows never grows past its bound (it starts over when full)."""
    from scoring.engine import fold
    from scoring.engine.simulate import simulate_match

    monkeypatch.setattr(fold, "_STATS_MAX", 5)
    fold._STATS.clear()
    try:
        for preset, n in (("block", 4), ("partnership_block", 4), ("wsod", 3)):
            ruleset = Ruleset.from_preset(preset, {})
            for seed in range(12):
                sim = simulate_match(ruleset, n, seed)
                records = list(sim.records)
                state = match_start(ruleset, n, lot_winner=sim.lot_winner)
                for record in records:
                    state, _ = match_apply(state, record)
                folded = match_fold(ruleset, n, records, lot_winner=sim.lot_winner)
                assert folded == state
                assert folded.stats == state.stats
                assert folded.team_stats == state.team_stats
                assert len(fold._STATS) <= 5
    finally:
        fold._STATS.clear()
