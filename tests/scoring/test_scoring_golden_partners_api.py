"""RULES.md X9-X11 and the engine's own partnership goldens, replayed through the HTTP API.

The engine's partnership tables (``tests/scoring/engine/golden/partners.md``) are read here as
data with the individual replays' loader and setup (``tests/scoring/golden_api.py``). For each
sequence a director creates the tournament (preset + overrides), four players, entries and a
match through the API, a referee records every hand, and after every hand the API's seat scores
must be the partnerships' scores (every seat shows its partnership's, R42); the match is
finished exactly when the table says ``over`` (issue 17).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rest_framework.test import APIClient

from tests.scoring.golden_api import Sequence, golden_match, load_sequences, post_hand

GOLDEN = Path(__file__).parent / "engine" / "golden" / "partners.md"
SEQUENCES = load_sequences(GOLDEN)


def test_partnership_tables_are_present() -> None:
    assert {s.name.split()[0] for s in SEQUENCES} >= {"X9a", "X9b", "X10", "X11net", "X11opp"}
    assert all(s.players == 4 for s in SEQUENCES)  # R42


@pytest.mark.django_db
@pytest.mark.parametrize("seq", SEQUENCES, ids=[s.name.split()[0] for s in SEQUENCES])
def test_partnership_golden_replayed_through_the_api(seq: Sequence) -> None:
    match_id, referee = golden_match(seq)
    expected: list[int] = []
    for cells in seq.rows:
        got = post_hand(referee, match_id, seq, cells)
        ac, bd = (int(s) for s in cells[5].split("-"))
        expected = [ac, bd, ac, bd]  # every seat shows its partnership's score (R42)
        assert got["hand"]["scores_after"] == expected, cells
        assert got["match"]["scores"] == expected, cells
        assert (got["match"]["status"] == "finished") == (cells[6] == "over"), cells
    detail = APIClient().get(f"/api/matches/{match_id}/").json()
    assert [s["score"] for s in detail["seats"]] == expected
    assert detail["hands_count"] == len(seq.rows)
