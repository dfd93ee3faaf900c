"""RULES.md X9-X11 and the engine's own partnership goldens, replayed through the HTTP API.

The engine's partnership tables (``tests/scoring/engine/golden/partners.md``) are read here as
data. For each sequence a director creates the tournament (preset + overrides), four players,
entries and a match through the API, a referee records every hand, and after every hand the
API's seat scores must be the partnerships' scores (every seat shows its partnership's, R42);
the match is finished exactly when the table says ``over`` (issue 17).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.factories import UserFactory

GOLDEN = Path(__file__).parent / "engine" / "golden" / "partners.md"
SEATS = "ABCD"


def load() -> list[tuple[str, str, dict[str, Any], int, list[list[str]]]]:
    out: list[tuple[str, str, dict[str, Any], int, list[list[str]]]] = []
    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            out.append((line[3:].strip(), "wsod", {}, 0, []))
        elif not out:
            continue
        elif line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells[0].isdigit():
                out[-1][4].append(cells)
        elif ":" in line:
            key, value = (p.strip() for p in line.split(":", 1))
            name, preset, overrides, lot, rows = out[-1]
            if key == "preset":
                preset = value
            elif key == "overrides":
                overrides = json.loads(value)
            elif key == "lot":
                lot = SEATS.index(value)
            out[-1] = (name, preset, overrides, lot, rows)
    return out


SEQUENCES = load()


def hand_body(cells: list[str]) -> dict[str, Any]:
    number, poser, pose, _value, result = cells[:5]
    body: dict[str, Any] = {
        "number": int(number),
        "poser": SEATS.index(poser),
        "pose_tile": "6-6" if pose == "forced" else "5-4",
    }
    words = result.split()
    if words[0] == "block":
        return body | {"end": "block", "counts": [int(c) for c in words[1].split("-")]}
    body |= {"end": "domino", "winner": SEATS.index(words[0])}
    for w in words[2:]:
        if w == "llave":
            body["llave"] = True
        elif re.fullmatch(r"\d+(-\d+)+", w):
            body["counts"] = [int(c) for c in w.split("-")]
    return body


def test_partnership_tables_are_present() -> None:
    assert {s[0].split()[0] for s in SEQUENCES} >= {"X9a", "X9b", "X10", "X11net", "X11opp"}


@pytest.mark.django_db
@pytest.mark.parametrize("seq", SEQUENCES, ids=[s[0].split()[0] for s in SEQUENCES])
def test_partnership_golden_replayed_through_the_api(
    seq: tuple[str, str, dict[str, Any], int, list[list[str]]],
) -> None:
    name, preset, overrides, lot, rows = seq
    director = UserFactory(is_staff=True)
    api = APIClient()
    api.force_authenticate(director)
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower())[:60].strip("-")
    r = api.post(
        "/api/tournaments/",
        {"name": name, "slug": slug, "ruleset_preset": preset, "ruleset_overrides": overrides},
        format="json",
    )
    assert r.status_code == 201, r.content
    entries = []
    for i in range(4):
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
        {"entries": entries, "referee": ref.json()["user"], "lot_winner": lot},
        format="json",
    )
    assert m.status_code == 201, m.content
    match_id = m.json()["id"]
    referee = APIClient()
    referee.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['key']}")
    assert referee.post(f"/api/matches/{match_id}/start/", {}, format="json").status_code == 200
    expected: list[int] = []
    for cells in rows:
        r = referee.post(
            f"/api/matches/{match_id}/hands/",
            data=json.dumps(hand_body(cells)),
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=f"{slug}-{cells[0]}",
        )
        assert r.status_code == 201, (cells, r.content)
        ac, bd = (int(s) for s in cells[5].split("-"))
        expected = [ac, bd, ac, bd]  # every seat shows its partnership's score (R42)
        got = r.json()
        assert got["hand"]["scores_after"] == expected, cells
        assert got["match"]["scores"] == expected, cells
        assert (got["match"]["status"] == "finished") == (cells[6] == "over"), cells
    detail = APIClient().get(f"/api/matches/{match_id}/").json()
    assert [s["score"] for s in detail["seats"]] == expected
    assert detail["hands_count"] == len(rows)
