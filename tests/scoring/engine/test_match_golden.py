"""Golden match sequences (RULES.md section 10 X1-X7 and one sequence per option value).

The data lives in ``golden/matches.md`` as readable tables; see the column legend there. Each
row checks the pose the engine expects (R5-R10), the hand value (R26), the scores after the
hand (R25-R35, R40-R41) and the next pose.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from scoring.engine.match import match_apply, match_fold, match_start
from scoring.engine.match_state import MatchState
from scoring.engine.record import EndKind, HandRecord
from scoring.engine.rules import Ruleset
from scoring.engine.tiles import DOUBLE_SIX, Tile

GOLDEN = Path(__file__).parent / "golden" / "matches.md"
FREE_TILE = Tile.of(5, 4)


def seat(letter: str) -> int:
    return "ABCD".index(letter.strip())


@dataclass(frozen=True)
class Row:
    number: int
    poser: str
    pose: str
    value: str
    result: str
    after: str
    next: str
    check: str


@dataclass(frozen=True)
class Sequence:
    name: str
    preset: str
    overrides: dict[str, object]
    players: int
    lot: int
    rows: tuple[Row, ...]

    def ruleset(self) -> Ruleset:
        return Ruleset.from_preset(self.preset, self.overrides)


def load_sequences() -> list[Sequence]:
    sequences: list[Sequence] = []
    current: dict[str, object] | None = None
    rows: list[Row] = []

    def flush() -> None:
        if current is not None:
            sequences.append(
                Sequence(
                    name=str(current["name"]),
                    preset=str(current["preset"]),
                    overrides=dict(current.get("overrides", {})),  # type: ignore[call-overload]
                    players=int(current["players"]),  # type: ignore[call-overload]
                    lot=int(current.get("lot", 0)),  # type: ignore[call-overload]
                    rows=tuple(rows),
                )
            )

    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            flush()
            current, rows = {"name": line[3:].strip()}, []
        elif current is None:
            continue
        elif line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not cells[0].isdigit():
                continue  # header or separator
            rows.append(Row(int(cells[0]), *cells[1:8]))
        elif ":" in line:
            key, value = (part.strip() for part in line.split(":", 1))
            if key == "overrides":
                current[key] = json.loads(value)
            elif key == "lot":
                current[key] = seat(value)
            elif key in ("preset", "players"):
                current[key] = value
    flush()
    return sequences


SEQUENCES = load_sequences()


def build_record(row: Row, n: int) -> HandRecord:
    poser = seat(row.poser)
    kind, _, tile_text = row.pose.partition(" ")
    default = DOUBLE_SIX if kind == "forced" else FREE_TILE
    tile = Tile.parse(tile_text) if tile_text else default
    sporting = kind == "sporting"
    result = row.result
    if result.startswith("block "):
        counts = tuple(int(c) for c in result.split()[1].split("-"))
        return HandRecord(poser, tile, EndKind.BLOCK, None, counts, False, sporting)
    if result.startswith("tie "):
        tied = {seat(s) for s in result.split()[1].split("=")}
        counts = tuple(5 if i in tied else 9 for i in range(n))
        return HandRecord(poser, tile, EndKind.BLOCK, None, counts, False, sporting)
    words = result.split()
    assert words[1] == "wins", row
    winner = seat(words[0])
    llave = "llave" in words[2:]
    counts_opt = None
    for w in words[2:]:
        if re.fullmatch(r"\d+(-\d+)+", w):
            counts_opt = tuple(int(c) for c in w.split("-"))
    return HandRecord(poser, tile, EndKind.DOMINO, winner, counts_opt, llave, sporting)


def check_before(state: MatchState, row: Row, where: str) -> None:
    nh = state.next
    assert nh.number == row.number, where
    kind = row.pose.split(" ")[0]
    if kind in ("forced", "sporting"):
        assert nh.forced, f"{where}: expected a forced pose, engine says {nh}"
        assert nh.poser is None, where
        assert nh.forced_tile == DOUBLE_SIX, where
    else:
        assert not nh.forced, f"{where}: expected a free pose, engine says {nh}"
        assert nh.poser == seat(row.poser), f"{where}: engine expects poser {nh.poser}"
    words = row.value.split()
    expected_value = 0 if words[-1] == "-" else int(words[-1])
    assert nh.value == expected_value, f"{where}: value {nh.value}, expected {row.value}"
    assert nh.is_replay == ("replay" in words), f"{where}: is_replay {nh.is_replay}"
    assert nh.is_playoff == ("playoff" in words), f"{where}: is_playoff {nh.is_playoff}"
    assert nh.is_replay == (nh.tie_run > 0), where


def check_after(state: MatchState, row: Row, scored: object, where: str) -> None:
    from scoring.engine.match_state import HandScored

    assert isinstance(scored, HandScored)
    expected_scores = tuple(int(s) for s in row.after.split("-"))
    assert state.scores == expected_scores, f"{where}: scores {state.scores}"
    assert scored.scores_after == expected_scores, where
    assert scored.number == row.number, where

    nxt = row.next
    rule_match = re.search(r"\((R\d+)\)", nxt)
    if nxt == "over":
        assert state.over, where
        assert scored.match_over, where
    else:
        assert not state.over, where
        assert not scored.match_over, where
        if nxt.startswith("forced"):
            assert state.next.forced, f"{where}: {state.next}"
            assert state.next.poser is None, where
        else:
            assert not state.next.forced, f"{where}: {state.next}"
            assert state.next.poser == seat(nxt.split()[0]), f"{where}: {state.next}"
        if rule_match:
            assert state.next.rule == rule_match.group(1), f"{where}: {state.next}"

    checks = [c.strip() for c in row.check.split(",") if c.strip()]
    assert scored.reset == ("reset" in checks), f"{where}: reset={scored.reset}"
    assert scored.playoff_next == ("playoff" in checks), f"{where}: playoff={scored.playoff_next}"
    assert state.playoff == scored.playoff_next, where
    for check in checks:
        word, _, arg = check.partition(" ")
        if word == "over":
            assert state.winner == seat(arg), where
        elif word == "six-love":
            losers = {seat(s) for s in arg.split()}
            w = state.winner
            assert w is not None
            assert state.stats[w].six_love_given == len(losers), where
            for i, st in enumerate(state.stats):
                assert st.six_love_received == (1 if i in losers else 0), where
        elif check == "no six-love":
            assert all(s.six_love_given == s.six_love_received == 0 for s in state.stats), where
        elif word == "leader":
            assert state.leader == seat(arg), f"{where}: leader {state.leader}"
            assert state.next.leader == seat(arg), where
        elif check == "no leader":
            assert state.leader is None, f"{where}: leader {state.leader}"
        elif word == "paid":
            assert scored.paid == int(arg), f"{where}: paid {scored.paid}"
        elif word == "note":
            assert any(arg in note for note in scored.notes), f"{where}: notes {scored.notes}"
        else:
            assert word in ("reset", "playoff"), f"{where}: unknown check {check!r}"


@pytest.mark.parametrize("seq", SEQUENCES, ids=[s.name.split()[0] for s in SEQUENCES])
def test_golden_sequence(seq: Sequence) -> None:
    ruleset = seq.ruleset()
    state = match_start(ruleset, seq.players, lot_winner=seq.lot)
    records = []
    for row in seq.rows:
        where = f"{seq.name}, hand {row.number}"
        check_before(state, row, where)
        record = build_record(row, seq.players)
        state, scored = match_apply(state, record)
        check_after(state, row, scored, where)
        records.append(record)
    # Folding the same records from scratch gives the same state (determinism).
    assert match_fold(ruleset, seq.players, records, lot_winner=seq.lot) == state


def test_golden_file_is_broad() -> None:
    """At least 25 sequences, for 2, 3 and 4 players, covering every option value (section 1)."""
    assert len(SEQUENCES) >= 25
    assert {s.players for s in SEQUENCES} == {2, 3, 4}
    seen: dict[str, set[object]] = {}
    for seq in SEQUENCES:
        for key, value in seq.ruleset().to_json().items():
            seen.setdefault(key, set()).add(value)
    assert seen["scoring"] == {"six_love", "straight_six", "pips"}
    assert seen["reset_rule"] >= {"all_scored", "any_challenger"}
    assert seen["all_ones"] == {"reset", "playoff"}
    assert seen["tie_value"] == {"escalate", "flat2", "none"}
    assert len(seen["tie_value_cap"]) >= 3  # null and two caps
    assert seen["tie_opener"] == {"leader", "six_six_holder", "previous_opener"}
    assert seen["replay_leader_loss"] == {"reset", "award"}
    assert seen["after_reset_opener"] == {"six_six_holder", "hand_winner"}
    assert seen["llave"] == {"off", "plus_one", "flat_two"}
    assert seen["opening"] == {"forced_six_six", "lot_then_rotate"}
    assert seen["deal"] == {"standard", "seven", "block"}
    pips_players = {s.players for s in SEQUENCES if s.ruleset().scoring == "pips"}
    assert pips_players == {2, 3, 4}


def test_x1_statistics() -> None:
    """X1: A gives six-love to B, C and D (R31c, R35)."""
    seq = next(s for s in SEQUENCES if s.name.startswith("X1 "))
    state = match_fold(seq.ruleset(), seq.players, [build_record(r, seq.players) for r in seq.rows])
    a, *others = state.stats
    assert (a.hands_won, a.domino_wins, a.six_love_given) == (6, 6, 3)
    assert all(o.six_love_received == 1 and o.hands_won == 0 for o in others)


def test_x4_statistics() -> None:
    """X4: C won a replay and caused a reset; A and C tied once (R35)."""
    seq = next(s for s in SEQUENCES if s.name.startswith("X4 "))
    state = match_fold(seq.ruleset(), seq.players, [build_record(r, seq.players) for r in seq.rows])
    a, b, c, d = state.stats
    assert (a.hands_won, a.ties, a.replays_won, a.resets_caused) == (3, 1, 0, 0)
    assert (c.hands_won, c.ties, c.replays_won, c.resets_caused) == (1, 1, 1, 1)
    assert (b.hands_won, d.hands_won) == (1, 1)


def test_playoff_and_llave_statistics() -> None:
    """P2: C won the replayed play-off (R35); L1: A won two llaves (R24, R35)."""
    p2 = next(s for s in SEQUENCES if s.name.startswith("P2 "))
    state = match_fold(p2.ruleset(), p2.players, [build_record(r, p2.players) for r in p2.rows])
    assert state.stats[2].playoffs_won == 1
    assert state.stats[2].replays_won == 1
    assert state.stats[3].resets_caused == 1
    l1 = next(s for s in SEQUENCES if s.name.startswith("L1 "))
    state = match_fold(l1.ruleset(), l1.players, [build_record(r, l1.players) for r in l1.rows])
    assert state.stats[0].llaves == 2
    assert state.stats[0].six_love_given == 3


def test_block_statistics() -> None:
    """B2: block wins and domino wins are counted apart; a tie counts for both tied seats."""
    b2 = next(s for s in SEQUENCES if s.name.startswith("B2 "))
    state = match_fold(
        b2.ruleset(), b2.players, [build_record(r, b2.players) for r in b2.rows], lot_winner=b2.lot
    )
    a, b, c, d = state.stats
    assert (a.block_wins, a.domino_wins, a.replays_won) == (1, 0, 1)
    assert (b.domino_wins, b.ties, c.ties, d.ties) == (2, 1, 1, 0)
    assert state.winner == 1
