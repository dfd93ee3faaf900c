"""Golden partnership sequences (RULES.md section 12, X9-X11 and this engine's own).

The data lives in ``golden/partners.md``; see the column legend there. Each row checks the pose
the engine expects (R5-R10, R44), the hand value (R26), the partnership scores after the hand
(R42-R45) and the next pose, then a few R35/R46 statistics are checked per player and per
partnership.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from scoring.engine.match import match_apply, match_fold, match_start
from scoring.engine.match_state import HandScored, MatchState
from scoring.engine.record import EndKind, HandRecord
from scoring.engine.rules import Ruleset
from scoring.engine.tiles import DOUBLE_SIX, Tile

GOLDEN = Path(__file__).parent / "golden" / "partners.md"
FREE_TILE = Tile.of(5, 4)
TEAMS = ("AC", "BD")


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
    lot: int
    rows: tuple[Row, ...]

    def ruleset(self) -> Ruleset:
        return Ruleset.from_preset(self.preset, self.overrides)

    def records(self) -> list[HandRecord]:
        return [build_record(r) for r in self.rows]


def load_sequences() -> list[Sequence]:
    sequences: list[Sequence] = []
    head: dict[str, object] | None = None
    rows: list[Row] = []

    def flush() -> None:
        if head is not None:
            overrides = head.get("overrides", {})
            assert isinstance(overrides, dict)
            sequences.append(
                Sequence(
                    str(head["name"]),
                    str(head["preset"]),
                    overrides,
                    seat(str(head.get("lot", "A"))),
                    tuple(rows),
                )
            )

    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            flush()
            head, rows = {"name": line[3:].strip()}, []
        elif head is None:
            continue
        elif line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells[0].isdigit():
                rows.append(Row(int(cells[0]), *cells[1:8]))
        elif ":" in line:
            key, value = (part.strip() for part in line.split(":", 1))
            head[key] = json.loads(value) if key == "overrides" else value
    flush()
    return sequences


SEQUENCES = load_sequences()


def build_record(row: Row) -> HandRecord:
    poser = seat(row.poser)
    tile = DOUBLE_SIX if row.pose == "forced" else FREE_TILE
    words = row.result.split()
    if words[0] == "block":
        counts = tuple(int(c) for c in words[1].split("-"))
        return HandRecord(poser, tile, EndKind.BLOCK, None, counts)
    assert words[1] == "dominoes", row
    counts_opt = next(
        (tuple(int(c) for c in w.split("-")) for w in words if re.fullmatch(r"\d+(-\d+)+", w)),
        None,
    )
    return HandRecord(poser, tile, EndKind.DOMINO, seat(words[0]), counts_opt, "llave" in words)


def check_before(state: MatchState, row: Row, where: str) -> None:
    nh = state.next
    assert nh.number == row.number, where
    if row.pose == "forced":
        assert (nh.forced, nh.poser, nh.forced_tile) == (True, None, DOUBLE_SIX), f"{where}: {nh}"
    else:
        assert not nh.forced, f"{where}: expected a free pose, engine says {nh}"
        assert nh.poser == seat(row.poser), f"{where}: engine expects poser {nh.poser}"
    words = row.value.split()
    assert nh.value == (0 if words[-1] == "-" else int(words[-1])), f"{where}: {nh.value}"
    assert nh.is_replay == ("replay" in words), where
    assert nh.is_playoff == ("playoff" in words), where


def check_after(state: MatchState, row: Row, scored: HandScored, where: str) -> None:
    ac, bd = (int(s) for s in row.after.split("-"))
    assert state.team_scores == (ac, bd), f"{where}: {state.team_scores}"
    assert state.scores == scored.scores_after == (ac, bd, ac, bd), where  # R42
    if row.next == "over":
        assert (state.over, scored.match_over) == (True, True), where
    else:
        assert (state.over, scored.match_over) == (False, False), where
        if row.next.startswith("forced"):
            assert (state.next.forced, state.next.poser) == (True, None), f"{where}: {state.next}"
        else:
            assert not state.next.forced, f"{where}: {state.next}"
            assert state.next.poser == seat(row.next.split()[0]), f"{where}: {state.next}"
        rule = re.search(r"\((R\d+)\)", row.next)
        if rule:
            assert state.next.rule == rule.group(1), f"{where}: {state.next}"
    checks = [c.strip() for c in row.check.split(",") if c.strip()]
    assert (scored.winner is None) == ("tie" in checks), f"{where}: {scored}"
    assert scored.reset == ("reset" in checks), f"{where}: reset={scored.reset}"
    assert scored.playoff_next == ("playoff" in checks), where
    for check in checks:
        word, _, arg = check.partition(" ")
        if word == "team":
            assert scored.team == TEAMS.index(arg), f"{where}: team {scored.team}"
            assert scored.winner is not None, where
            assert scored.winner % 2 == scored.team, where
        elif word == "leader":
            assert state.leader == TEAMS.index(arg) == state.next.leader, f"{where}: {state}"
        elif check == "no leader":
            assert state.leader is None, where
        elif word == "paid":
            assert scored.paid == int(arg), f"{where}: paid {scored.paid}"
        elif word == "note":
            assert any(arg in n for n in scored.notes), f"{where}: notes {scored.notes}"
        elif word == "over":
            assert state.winning_team == TEAMS.index(arg), where
        elif word == "six-love":
            loser = TEAMS.index(arg)
            assert state.team_stats is not None
            assert state.team_stats[loser].six_love_received == 1, where
            assert state.team_stats[1 - loser].six_love_given == 1, where
            for i, st in enumerate(state.stats):  # both partners credited (R46)
                assert (st.six_love_received, st.six_love_given) == (
                    (1, 0) if i % 2 == loser else (0, 1)
                ), where
        elif check == "no six-love":
            assert all(s.six_love_given == s.six_love_received == 0 for s in state.stats), where
        else:
            assert word in ("tie", "reset", "playoff"), f"{where}: unknown check {check!r}"


@pytest.mark.parametrize("seq", SEQUENCES, ids=[s.name.split()[0] for s in SEQUENCES])
def test_golden_partnership_sequence(seq: Sequence) -> None:
    ruleset = seq.ruleset()
    state = match_start(ruleset, 4, lot_winner=seq.lot)
    assert state.partners
    for row in seq.rows:
        where = f"{seq.name}, hand {row.number}"
        check_before(state, row, where)
        state, scored = match_apply(state, build_record(row))
        check_after(state, row, scored, where)
    assert match_fold(ruleset, 4, seq.records(), lot_winner=seq.lot) == state


def test_golden_partnership_file_covers_the_section() -> None:
    """X9-X11 and sequences under every scoring, the two presets and the R44 choices."""
    names = {s.name.split()[0] for s in SEQUENCES}
    assert {"X9a", "X9b", "X10", "X11net", "X11opp"} <= names
    assert {s.ruleset().scoring for s in SEQUENCES} == {"six_love", "straight_six", "pips"}
    assert {s.preset for s in SEQUENCES} >= {"wsod_partners", "partnership_block"}
    rules = {r.next.split("(")[-1].rstrip(")") for s in SEQUENCES for r in s.rows}
    assert {"R6", "R7", "R8", "R9", "R10", "R41", "R44"} <= rules


def _final(name: str) -> MatchState:
    seq = next(s for s in SEQUENCES if s.name.split()[0] == name)
    return match_fold(seq.ruleset(), 4, seq.records(), lot_winner=seq.lot)


def test_ps1_statistics_per_player_and_partnership() -> None:
    """R35 per player, R46 per partnership: a shared lowest count credits both partners with a
    block win, the partnership once; six-love is credited to both partners."""
    state = _final("PS1")
    a, b, c, d = state.stats
    assert (a.hands_won, a.domino_wins, a.block_wins) == (4, 2, 2)
    assert (c.hands_won, c.domino_wins, c.block_wins) == (4, 1, 3)
    assert b.hands_won == d.hands_won == 0
    assert state.team_stats is not None
    ac, bd = state.team_stats
    assert (ac.hands_won, ac.domino_wins, ac.block_wins, ac.six_love_given) == (6, 3, 3, 1)
    assert (bd.hands_won, bd.six_love_received) == (0, 1)
    assert (state.winner, state.winning_team) == (0, 0)


def test_x10_statistics() -> None:
    """X10: one tie counted for both partnerships and for the two seats that shared it; B won
    the replay and caused the reset (R35, R46)."""
    state = _final("X10")
    a, b, c, d = state.stats
    assert (a.ties, b.ties, c.ties, d.ties) == (1, 1, 0, 0)
    assert (b.replays_won, b.resets_caused) == (1, 1)
    assert state.team_stats is not None
    ac, bd = state.team_stats
    assert (ac.ties, bd.ties) == (1, 1)
    assert (ac.hands_won, bd.hands_won, bd.resets_caused) == (2, 2, 1)
