"""Every golden match of the engine tests, replayed through the HTTP API, gives the same scores.

The engine's golden tables (``tests/scoring/engine/golden/matches.md``) are read here as data.
For each sequence a director creates the tournament (preset + overrides), players, entries and
a match through the API, a referee starts it and records every hand with their token, and after
every hand the API's scores must equal the table's ``after`` column; the match is finished
exactly when the table says ``over``. The setup is shared with the partnership replays
(``tests/scoring/golden_api.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rest_framework.test import APIClient

from tests.factories import tournament_creator
from tests.scoring.golden_api import Sequence, golden_match, load_sequences, post_hand

GOLDEN = Path(__file__).parent / "engine" / "golden" / "matches.md"
SEQUENCES = load_sequences(GOLDEN) if GOLDEN.exists() else []
# Sequences of informal play (sporting, R11): the engine plays them, but no tournament may
# (RULES.md §1, "never in tournament play"; tournament.rulesets), so the API refuses them.
INFORMAL = [s for s in SEQUENCES if s.overrides.get("sporting_allowed")]
TOURNAMENT = [s for s in SEQUENCES if s not in INFORMAL]


def _ids(sequences: list[Sequence]) -> list[str]:
    return [s.name.split()[0] for s in sequences]


def test_golden_tables_are_present() -> None:
    assert len(SEQUENCES) >= 40, "the engine's golden tables moved or shrank"
    assert INFORMAL, "the engine's golden tables lost their sporting sequence (R11)"


@pytest.mark.django_db
@pytest.mark.parametrize("seq", INFORMAL, ids=_ids(INFORMAL))
def test_an_informal_play_sequence_is_refused_as_a_tournament(seq: Sequence) -> None:
    api = APIClient()
    api.force_authenticate(tournament_creator())
    r = api.post(
        "/api/tournaments/",
        {
            "name": seq.name,
            "slug": seq.slug,
            "ruleset_preset": seq.preset,
            "ruleset_overrides": seq.overrides,
        },
        format="json",
    )
    assert r.status_code == 400, r.content
    error = r.json()["error"]
    assert (error["code"], error["rule"]) == ("not_in_tournament_play", "R11")
    assert "ruleset_overrides.sporting_allowed" in error["fields"]


@pytest.mark.django_db
@pytest.mark.parametrize("seq", TOURNAMENT, ids=_ids(TOURNAMENT))
def test_golden_match_replayed_through_the_api(seq: Sequence) -> None:
    match_id, referee = golden_match(seq)
    expected: list[int] = []
    for cells in seq.rows:
        got = post_hand(referee, match_id, seq, cells)
        expected = [int(s) for s in cells[5].split("-")]
        assert got["hand"]["scores_after"] == expected, cells
        assert got["match"]["scores"] == expected, cells
        assert (got["match"]["status"] == "finished") == (cells[6] == "over"), cells
    detail = APIClient().get(f"/api/matches/{match_id}/").json()
    assert [s["score"] for s in detail["seats"]] == expected
    assert detail["hands_count"] == len(seq.rows)
