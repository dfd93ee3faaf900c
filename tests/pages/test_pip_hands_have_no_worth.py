"""A pip-scored hand has no value (R40): the engine stores 0, and the pages said it.

Walkthrough of a ``partnership_block`` event (§12, R45, X11): the referee's hand list read
"C · … posed 5-4 · worth 0" on every hand, the live table card "Hand 5: replay, worth 0" and
the live hand list a "Worth" of 0 on every row. A six-love match still shows what a hand is
worth (R26), checked beside.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from scoring.models import Match
from scoring.services import hand_record
from tests.factories import (
    TournamentFactory,
    at_round_table,
    director_of,
    referee_of,
    scheduled_match,
)
from tests.pages.test_pairs_event_words import text_of

pytestmark = pytest.mark.django_db

# X11 (RULES.md §10): C wins the lot, poses rotate C, D, A, B; hand 4 is tied (A and D).
X11 = [
    {"poser": 2, "pose_tile": "5-4", "end": "domino", "winner": 1, "counts": [14, 0, 9, 21]},
    {"poser": 3, "pose_tile": "3-3", "end": "block", "counts": [6, 18, 25, 10]},
    {"poser": 0, "pose_tile": "2-2", "end": "block", "counts": [12, 12, 3, 30]},
    {"poser": 1, "pose_tile": "6-1", "end": "block", "counts": [8, 20, 15, 8]},
]


def _play(preset: str, hands: list[dict[str, Any]]) -> tuple[Match, Any]:
    tournament = TournamentFactory(ruleset_preset=preset, status="running")  # type: ignore[no-untyped-call]
    referee = referee_of(tournament)
    match = at_round_table(scheduled_match(tournament, referee=referee))  # on live tables
    for n, payload in enumerate(hands, 1):
        hand_record(match_id=match.pk, actor=referee, expected_number=n, payload=payload)
    match.refresh_from_db()
    return match, director_of(tournament)


HAND_ROWS = re.compile(r"<tr[^>]*>\s*<td class=\"num\">(\d+)</td>\s*<td class=\"num\">(.*?)</td>")


def test_pip_scored_hands_are_never_worth_0_r40(client: Client) -> None:
    match, director = _play("partnership_block", X11)
    assert match.scores == [27, 2, 27, 2]  # X11, net credit (R45)
    slug = match.tournament.slug
    live = client.get(f"/live/{slug}/matches/{match.pk}/").content.decode()
    text = text_of(live)
    assert "Hand 5 — replay" in text
    assert "worth 0" not in text
    rows = HAND_ROWS.findall(live)
    assert [n for n, _ in rows] == ["1", "2", "3", "4"]
    assert all(worth.startswith("–") for _, worth in rows), rows
    tables = text_of(client.get(f"/live/{slug}/tables/").content.decode())
    assert "Hand 5 — replay" in tables
    assert "worth 0" not in tables
    client.force_login(director)
    panel = text_of(client.get(f"/matches/{match.pk}/panel/").content.decode())
    assert "C · Player" in panel
    assert "posed 5-4" in panel
    assert "worth 0" not in panel


def test_a_six_love_replay_is_still_worth_its_value_r26(client: Client) -> None:
    # wsod_partners: hand 1 tied (A and B share 5, R43), so hand 2 is a replay worth 2.
    match, director = _play(
        "wsod_partners",
        [{"poser": 0, "pose_tile": "6-6", "end": "block", "counts": [5, 5, 11, 20]}],
    )
    slug = match.tournament.slug
    text = text_of(client.get(f"/live/{slug}/matches/{match.pk}/").content.decode())
    assert "Hand 2: replay, worth 2" in text
    live = client.get(f"/live/{slug}/matches/{match.pk}/").content.decode()
    rows = HAND_ROWS.findall(live)
    assert rows == [("1", "1")]
    # The referee's list names a replay's worth (R26) once it is recorded.
    hand_record(
        match_id=match.pk,
        actor=match.referee,
        expected_number=2,
        payload={"poser": 1, "pose_tile": "6-6", "end": "domino", "winner": 1},
    )
    client.force_login(director)
    panel = text_of(client.get(f"/matches/{match.pk}/panel/").content.decode())
    assert "posed 6-6 · worth 2" in panel
