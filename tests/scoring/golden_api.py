"""What the golden API replays share (issue 17): reading an engine golden table as data, a hand
row as the JSON a referee POSTs, and the match a director sets up through the API for it.

Used by ``test_scoring_golden_api.py`` (individual tables, ``golden/matches.md``) and
``test_scoring_golden_partners_api.py`` (partnerships, ``golden/partners.md``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rest_framework.test import APIClient

from tests.factories import tournament_creator

SEATS = "ABCD"


@dataclass
class Sequence:
    name: str
    preset: str = "wsod"
    overrides: dict[str, Any] = field(default_factory=dict)
    players: int = 4
    lot: int = 0
    rows: list[list[str]] = field(default_factory=list)

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower())[:60].strip("-")


def load_sequences(path: Path) -> list[Sequence]:
    """Every ``## name`` section of a golden table file: its keys and its hand rows."""
    sequences: list[Sequence] = []
    for line in path.read_text(encoding="utf-8").splitlines():
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
        assert words[1] in ("wins", "dominoes"), cells  # individual and partnership tables
        body |= {"end": "domino", "winner": SEATS.index(words[0])}
        for w in words[2:]:
            if w == "llave":
                body["llave"] = True
            elif re.fullmatch(r"\d+(-\d+)+", w):
                body["counts"] = [int(c) for c in w.split("-")]
    return body


def golden_match(seq: Sequence) -> tuple[int, APIClient]:
    """A director creates the tournament (preset + overrides), players, entries, a referee and
    the match through the API, and runs the tournament (credentials act only then); the
    referee's client (its credential) starts the match. Returns the match id and that client.
    """
    director = tournament_creator()
    api = APIClient()
    api.force_authenticate(director)
    slug = seq.slug
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
    match_id = int(m.json()["id"])
    referee = APIClient()
    referee.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['key']}")
    started = referee.post(f"/api/matches/{match_id}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    return match_id, referee


def post_hand(referee: APIClient, match_id: int, seq: Sequence, cells: list[str]) -> Any:
    """Record one table row (idempotency key per sequence and hand); 201 expected."""
    r = referee.post(
        f"/api/matches/{match_id}/hands/",
        data=json.dumps(hand_body(cells, seq.players)),
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=f"{seq.slug}-{cells[0]}",
    )
    assert r.status_code == 201, (cells, r.content)
    return r.json()
