"""The JavaScript match reducer (static/js/match-reducer.js) against the Python engine.

Two checks, both through ``node`` running ``js/fold_runner.mjs``:

- the golden match files (``golden/matches.md``, the one ``test_match_golden.py`` reads, and
  ``golden/partners.md``, the one ``test_partners_golden.py`` reads): every row's expected pose,
  value, scores, resets, play-offs, six-loves, leaders and noted rules (R5-R10, R25-R35,
  R40-R46) must hold for the JS states as they do for Python's, notes included;
- a differential test: at least 10,000 random valid outcome sequences across every preset
  (2, 3 and 4 players; the partnership presets at their 4 players, R42), built from hands the
  engine's simulator played (:mod:`scoring.engine.simulate`), must fold to the same state,
  hand by hand, in both.
Skipped (with the reason) only when ``node`` is not installed; ``.ci/run`` installs it.
"""

from __future__ import annotations

import importlib.util
import json
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scoring.engine.errors import InvalidRecord
from scoring.engine.match import match_apply, match_start
from scoring.engine.match_state import HandScored, MatchState
from scoring.engine.record import HandRecord
from scoring.engine.rules import PRESETS, Ruleset, Teams
from scoring.engine.simulate import simulate_match
from scoring.engine.snapshot import state_to_json
from scoring.engine.tiles import DOUBLE_SIX

HERE = Path(__file__).parent
RUNNER = HERE / "js" / "fold_runner.mjs"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None, reason="node (Node.js) is not installed: the JS reducer cannot be tested"
)


def _golden_module(name: str = "test_match_golden") -> Any:
    """A golden file's own loader (its test module), so both tests read one file."""
    spec = importlib.util.spec_from_file_location(f"_golden_{name}", HERE / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def run_js(cases: list[dict[str, Any]], tmp_path: Path, *, notes: bool = False) -> list[Any]:
    """Fold ``cases`` with the JS reducer; one result per case (hand-by-hand [state, scored])."""
    assert NODE is not None
    source, target = tmp_path / "cases.json", tmp_path / "states.jsonl"
    source.write_text(json.dumps(cases), encoding="utf-8")
    args = [NODE, str(RUNNER), str(source), str(target)] + (["notes"] if notes else [])
    subprocess.run(args, check=True, timeout=120, capture_output=True)
    with target.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def scored_json(scored: HandScored, *, notes: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "number": scored.number,
        "value": scored.value,
        "paid": scored.paid,
        "winner": scored.winner,
        "tied": list(scored.tied),
        "reset": scored.reset,
        "playoff_next": scored.playoff_next,
        "scores_after": list(scored.scores_after),
        "match_over": scored.match_over,
    }
    if notes:
        out["notes"] = list(scored.notes)
    return out


# -- the golden match file --------------------------------------------------------------------

GOLDEN = _golden_module()
PARTNERS_GOLDEN = _golden_module("test_partners_golden")


def test_golden_matches(tmp_path: Path) -> None:
    """Every golden row holds for the JS reducer (R5-R10, R25-R35, R40-R41)."""
    seat = GOLDEN.seat
    sequences = GOLDEN.SEQUENCES
    assert len(sequences) >= 25
    cases = []
    for seq in sequences:
        records = [GOLDEN.build_record(row, seq.players) for row in seq.rows]
        cases.append(
            {
                "ruleset": seq.ruleset().to_json(),
                "n": seq.players,
                "lot": seq.lot,
                "records": [r.to_dict() for r in records],
            }
        )
    results = run_js(cases, tmp_path, notes=True)
    for seq, hands in zip(sequences, results, strict=True):
        assert isinstance(hands, list), f"{seq.name}: {hands}"
        before = {"next": _start_next(seq)}
        py_state = match_start(seq.ruleset(), seq.players, lot_winner=seq.lot)
        for row, (state, scored) in zip(seq.rows, hands, strict=True):
            where = f"{seq.name}, hand {row.number} (JS)"
            _check_before(before["next"], row, seat, where)
            _check_after(state, scored, row, seat, where)
            py_state, py_scored = match_apply(py_state, GOLDEN.build_record(row, seq.players))
            assert state == state_to_json(py_state), where
            assert scored == scored_json(py_scored, notes=True), where
            before = state


def _start_next(seq: Any) -> Any:
    return state_to_json(match_start(seq.ruleset(), seq.players, lot_winner=seq.lot))["next"]


def _check_before(nh: dict[str, Any], row: Any, seat: Any, where: str) -> None:
    """The golden columns "poser/pose" and "value" (R5-R10, R26), on the JS next hand."""
    assert nh["number"] == row.number, where
    kind = row.pose.split(" ")[0]
    if kind in ("forced", "sporting"):
        assert nh["forced"], f"{where}: {nh}"
        assert nh["poser"] is None, f"{where}: {nh}"
        assert nh["forced_tile"] == "6-6", where
    else:
        assert not nh["forced"], f"{where}: {nh}"
        assert nh["poser"] == seat(row.poser), f"{where}: {nh}"
    words = row.value.split()
    assert nh["value"] == (0 if words[-1] == "-" else int(words[-1])), f"{where}: {nh}"
    assert nh["is_replay"] == ("replay" in words), where
    assert nh["is_playoff"] == ("playoff" in words), where


def _check_after(
    state: dict[str, Any], scored: dict[str, Any], row: Any, seat: Any, where: str
) -> None:
    """The golden columns "after", "next" and "check" (R25-R35, R40-R41)."""
    expected = [int(s) for s in row.after.split("-")]
    assert state["scores"] == expected, f"{where}: {state['scores']}"
    assert scored["scores_after"] == expected, where
    nxt = row.next
    if nxt == "over":
        assert state["over"], where
        assert scored["match_over"], where
    else:
        assert not state["over"], where
        if nxt.startswith("forced"):
            assert state["next"]["forced"], where
            assert state["next"]["poser"] is None, where
        else:
            assert state["next"]["poser"] == seat(nxt.split()[0]), f"{where}: {state['next']}"
        rule = re.search(r"\((R\d+)\)", nxt)
        if rule:
            assert state["next"]["rule"] == rule.group(1), where
    checks = [c.strip() for c in row.check.split(",") if c.strip()]
    assert scored["reset"] == ("reset" in checks), where
    assert scored["playoff_next"] == ("playoff" in checks), where
    for check in checks:
        word, _, arg = check.partition(" ")
        if word == "over":
            assert state["winner"] == seat(arg), where
        elif word == "six-love":
            losers = {seat(s) for s in arg.split()}
            assert state["stats"][state["winner"]][8] == len(losers), where  # six_love_given
            for i, row_stats in enumerate(state["stats"]):
                assert row_stats[9] == (1 if i in losers else 0), where  # six_love_received
        elif check == "no six-love":
            assert all(r[8] == r[9] == 0 for r in state["stats"]), where
        elif word == "leader":
            assert state["leader"] == seat(arg) == state["next"]["leader"], where
        elif check == "no leader":
            assert state["leader"] is None, where
        elif word == "paid":
            assert scored["paid"] == int(arg), where
        elif word == "note":
            assert any(arg in note for note in scored["notes"]), f"{where}: {scored['notes']}"


# -- differential: random sequences -------------------------------------------------------------

SEQUENCES = 10_000
MAX_HANDS = 30
INDIVIDUAL = [name for name, r in PRESETS.items() if r.teams is Teams.NONE]
PARTNERSHIPS = [name for name, r in PRESETS.items() if r.teams is Teams.PARTNERS]


def _pool(ruleset: Ruleset, n: int, seed: int) -> list[HandRecord]:
    """Outcome records of hands the engine's simulator played under ``ruleset`` (R2-R20)."""
    records: list[HandRecord] = []
    for s in range(3):
        records.extend(simulate_match(ruleset, n, seed * 10 + s, "random", max_hands=40).records)
    return records


def random_sequences(rng: random.Random) -> Iterator[tuple[Ruleset, int, int, list[HandRecord]]]:
    """Valid random outcome sequences: simulated outcomes, re-dealt to whoever must pose.

    Each hand takes a random simulated outcome of the same ruleset and player count and sets
    its poser (and pose tile) to what the match state asks (R5-R10); the engine's own
    validation (section 9) keeps only valid records.
    """
    combos = [(PRESETS[p], n) for p in INDIVIDUAL for n in (2, 3, 4)]
    combos += [(PRESETS[p], 4) for p in PARTNERSHIPS]  # R42: partnerships are four players
    pools = {(r.preset, n): _pool(r, n, i) for i, (r, n) in enumerate(combos)}
    for i in range(SEQUENCES):
        ruleset, n = combos[i % len(combos)]
        pool = pools[(ruleset.preset, n)]
        lot = rng.randrange(n)
        state: MatchState = match_start(ruleset, n, lot_winner=lot)
        records: list[HandRecord] = []
        while not state.over and len(records) < MAX_HANDS:
            base = pool[rng.randrange(len(pool))]
            nh = state.next
            if nh.forced:
                record = HandRecord(
                    rng.randrange(n), DOUBLE_SIX, base.end, base.winner, base.counts, base.llave
                )
            else:
                assert nh.poser is not None
                tile = base.pose_tile
                record = HandRecord(nh.poser, tile, base.end, base.winner, base.counts, base.llave)
            try:
                state, _ = match_apply(state, record)
            except InvalidRecord:
                continue
            records.append(record)
        yield ruleset, n, lot, records


def test_differential_random_sequences(tmp_path: Path) -> None:
    """≥ 10,000 random sequences, every preset (partnerships too), 2/3/4 players: JS == Python."""
    rng = random.Random(20261201)
    sequences = list(random_sequences(rng))
    assert len(sequences) >= 10_000
    cases = [
        {"ruleset": r.to_json(), "n": n, "lot": lot, "records": [x.to_dict() for x in records]}
        for r, n, lot, records in sequences
    ]
    results = run_js(cases, tmp_path)
    hands = resets = ties = overs = partner_hands = partner_ties = 0
    for (ruleset, n, lot, records), js_hands in zip(sequences, results, strict=True):
        assert isinstance(js_hands, list), js_hands
        assert len(js_hands) == len(records)
        state = match_start(ruleset, n, lot_winner=lot)
        for number, (record, (js_state, js_scored)) in enumerate(
            zip(records, js_hands, strict=True), 1
        ):
            state, scored = match_apply(state, record)
            where = f"{ruleset.preset}, {n} players, lot {lot}, hand {number}: {record}"
            assert js_state == state_to_json(state), where
            assert js_scored == scored_json(scored), where
            hands += 1
            resets += scored.reset
            ties += bool(scored.tied)
            overs += scored.match_over
            if ruleset.teams is Teams.PARTNERS:
                partner_hands += 1
                partner_ties += bool(scored.tied)
    # The sequences reach what the reducer must get right: resets, ties and match ends.
    counted = (hands, resets, ties, overs)
    assert hands > 50_000, counted
    assert resets > 500, counted
    assert ties > 500, counted
    assert overs > 2_000, counted
    # ... and the partnership fold (R42-R46) is exercised, ties (R43) included.
    assert partner_hands > 5_000, (partner_hands, partner_ties)
    assert partner_ties > 100, (partner_hands, partner_ties)


def test_partnership_golden_matches(tmp_path: Path) -> None:
    """Every partnership golden sequence (R42-R46, X9-X11) folds in JS exactly as in Python,
    notes included; Python's own checks of each row are test_partners_golden.py's."""
    sequences = PARTNERS_GOLDEN.SEQUENCES
    assert len(sequences) >= 5
    cases = [
        {
            "ruleset": seq.ruleset().to_json(),
            "n": 4,
            "lot": seq.lot,
            "records": [r.to_dict() for r in seq.records()],
        }
        for seq in sequences
    ]
    results = run_js(cases, tmp_path, notes=True)
    for seq, hands in zip(sequences, results, strict=True):
        assert isinstance(hands, list), f"{seq.name}: {hands}"
        state = match_start(seq.ruleset(), 4, lot_winner=seq.lot)
        for record, (js_state, js_scored) in zip(seq.records(), hands, strict=True):
            state, scored = match_apply(state, record)
            where = f"{seq.name}, hand {state.hands} (JS)"
            assert js_state == state_to_json(state), where
            assert js_scored == scored_json(scored, notes=True), where
            assert "team_stats" in js_state, where


def test_partnership_needs_four_players(tmp_path: Path) -> None:
    """A partnership match is four players (R42): the JS reducer refuses three, naming R42."""
    (result,) = run_js(
        [{"ruleset": PRESETS[PARTNERSHIPS[0]].to_json(), "n": 3, "lot": 0, "records": []}],
        tmp_path,
    )
    assert result["rule"] == "R42"
    assert "4 players" in result["error"]
