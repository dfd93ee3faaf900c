"""Every golden match of the engine tests, replayed through the HTTP API, gives the same scores.

The engine's golden tables (``tests/scoring/engine/golden/matches.md``) are read here as data.
For each sequence a director creates the tournament (preset + overrides), players, entries and
a match through the API, a referee starts it and records every hand with their token, and after
every hand the API's scores must equal the table's ``after`` column; the match is finished
exactly when the table says ``over``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.factories import UserFactory

GOLDEN = Path(__file__).parent / "engine" / "golden" / "matches.md"
SEATS = "ABCD"


@dataclass
class Sequence:
    name: str
    preset: str = "wsod"
    overrides: dict[str, Any] = field(default_factory=dict)
    players: int = 4
    lot: int = 0
    rows: list[list[str]] = field(default_factory=list)


def load_sequences() -> list[Sequence]:
    sequences: list[Sequence] = []
    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            sequences.append(Sequence(name=line[3:].strip()))
        elif not sequences:
            continue
        elif line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells[0].isdigit():
                sequences[-1].rows.append(cells)
        elif ":" in line:
            key, value = (p.strip() for p in line.split(":", 1))
            seq = sequences[-1]
            if key == "preset":
                seq.preset = value
            elif key == "overrides":
                seq.overrides = json.loads(value)
            elif key == "players":
                seq.players = int(value)
            elif key == "lot":
                seq.lot = SEATS.index(value)
    return sequences


SEQUENCES = load_sequences() if GOLDEN.exists() else []


def hand_body(cells: list[str], n: int) -> dict[str, Any]:
    """One table row → the JSON a referee's client POSTs (RULES.md section 9)."""
    number, poser, pose, _value, result = cells[:5]
    kind, _, tile = pose.partition(" ")
    body: dict[str, Any] = {
        "number": int(number),
        "poser": SEATS.index(poser),
        "pose_tile": tile or ("6-6" if kind == "forced" else "5-4"),
    }
    if kind == "sporting":
        body["sporting"] = True
    if result.startswith("block "):
        body |= {"end": "block", "counts": [int(c) for c in result.split()[1].split("-")]}
    elif result.startswith("tie "):
        tied = {SEATS.index(s) for s in result.split()[1].split("=")}
        body |= {"end": "block", "counts": [5 if i in tied else 9 for i in range(n)]}
    else:
        words = result.split()
        assert words[1] == "wins", cells
        body |= {"end": "domino", "winner": SEATS.index(words[0])}
        for w in words[2:]:
            if w == "llave":
                body["llave"] = True
            elif re.fullmatch(r"\d+(-\d+)+", w):
                body["counts"] = [int(c) for c in w.split("-")]
    return body


def test_golden_tables_are_present() -> None:
    assert len(SEQUENCES) >= 40, "the engine's golden tables moved or shrank"


@pytest.mark.django_db
@pytest.mark.parametrize("seq", SEQUENCES, ids=[s.name.split()[0] for s in SEQUENCES])
def test_golden_match_replayed_through_the_api(seq: Sequence) -> None:
    director = UserFactory(is_staff=True)
    api = APIClient()
    api.force_authenticate(director)
    slug = re.sub(r"[^a-z0-9]+", "-", seq.name.lower())[:60].strip("-")
    r = api.post(
        "/api/tournaments/",
        {
            "name": seq.name,
            "slug": slug,
            "ruleset_preset": seq.preset,
            "ruleset_overrides": seq.overrides,
        },
        format="json",
    )
    assert r.status_code == 201, r.content
    entries = []
    for i in range(seq.players):
        p = api.post("/api/players/", {"name": f"{SEATS[i]} {slug}"}, format="json")
        assert p.status_code == 201, p.content
        e = api.post(f"/api/tournaments/{slug}/entries/", {"player": p.json()["id"]}, format="json")
        assert e.status_code == 201, e.content
        entries.append(e.json()["id"])
    ref = api.post(f"/api/tournaments/{slug}/referees/", {"username": f"ref-{slug}"}, format="json")
    assert ref.status_code == 201, ref.content
    # Referee credentials act only while the tournament is running (lifecycle gate).
    for status in ("registration", "running"):
        moved = api.post(f"/api/tournaments/{slug}/status/", {"status": status}, format="json")
        assert moved.status_code == 200, moved.content
    token = api.post(
        f"/api/tournaments/{slug}/referee-tokens/", {"user": ref.json()["user"]}, format="json"
    )
    assert token.status_code == 201, token.content
    m = api.post(
        f"/api/tournaments/{slug}/matches/",
        {"entries": entries, "referee": ref.json()["user"], "lot_winner": seq.lot},
        format="json",
    )
    assert m.status_code == 201, m.content
    match_id = m.json()["id"]

    referee = APIClient()
    referee.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['key']}")
    started = referee.post(f"/api/matches/{match_id}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    for cells in seq.rows:
        body = hand_body(cells, seq.players)
        r = referee.post(
            f"/api/matches/{match_id}/hands/",
            data=json.dumps(body),
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=f"{slug}-{cells[0]}",
        )
        assert r.status_code == 201, (cells, r.content)
        expected = [int(s) for s in cells[5].split("-")]
        got = r.json()
        assert got["hand"]["scores_after"] == expected, cells
        assert got["match"]["scores"] == expected, cells
        assert (got["match"]["status"] == "finished") == (cells[6] == "over"), cells
    detail = APIClient().get(f"/api/matches/{match_id}/").json()
    assert [s["score"] for s in detail["seats"]] == expected
    assert detail["hands_count"] == len(seq.rows)
