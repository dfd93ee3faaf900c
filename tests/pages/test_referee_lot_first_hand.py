"""Hand 1 under ``opening = lot_then_rotate`` on the referee's phone (R6).

Walkthrough of a ``partnership_block`` event (§12, R45; the preset sets ``lot_then_rotate``
as ``block`` does, R41): before hand 1 the phone said "The holder of 6-6 poses the 6-6 (R5)",
"Forced pose: tap the player who held the None." and marked the pose tile "(forced, R5)" with
6-6 chosen, while R6 has the seat that won the draw for the lead pose hand 1 freely, and the
server takes whoever posed hand 1 as the lot winner. A forced-opening match is unchanged.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client

from scoring.models import Match
from scoring.services import hand_record
from tests.factories import TournamentFactory, director_of, referee_of, scheduled_match

pytestmark = pytest.mark.django_db


def _panel(client: Client, match: Match) -> str:
    response = client.get(f"/matches/{match.pk}/panel/")
    assert response.status_code == 200
    return response.content.decode()


def _text(html: str) -> str:
    """The next-hand section's words and the form after it (the section's opening tag carries
    the phone's sentences in its attributes)."""
    html = html[html.index("<h2>", html.index('id="next-hand"')) :]
    text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    return text.replace("( ", "(").replace(" )", ")")


@pytest.mark.parametrize("preset", ["partnership_block", "block"])
def test_hand_1_under_lot_then_rotate_is_a_free_pose_by_the_lot_winner_r6(
    client: Client, preset: str
) -> None:
    tournament = TournamentFactory(ruleset_preset=preset, status="running")  # type: ignore[no-untyped-call]
    referee = referee_of(tournament)
    match = scheduled_match(tournament, referee=referee)
    client.force_login(director_of(tournament))
    html = _panel(client, match)
    text = _text(html)
    assert "The winner of the draw for the lead poses any tile (R6)" in text
    assert "holder of 6-6" not in text
    assert "None" not in text
    assert 'id="forced-note"' not in html
    assert re.search(r'id="forced-mark"[^>]*hidden', html)  # not "(forced, R5)"
    assert 'data-must-pose=""' in html  # any seat may pose: the one that does won the lot
    select = re.search(r'<select id="pose-tile"[^>]*>(.*?)</select>', html, re.S)
    assert select is not None
    assert '<option value="" selected>' in select.group(1)  # "— choose the tile posed —"
    # The server agrees: seat 2 poses 5-4 and is the lot winner (R6).
    hand_record(
        match_id=match.pk,
        actor=referee,
        expected_number=1,
        payload={
            "poser": 2,
            "pose_tile": "5-4",
            "end": "domino",
            "winner": 2,
            "counts": [10, 12, 0, 9],  # pip scoring: every count on a domino too (R40, §9)
        },
    )
    match.refresh_from_db()
    assert match.lot_winner == 2
    # Hand 2 goes to the next seat in play order (R6): named, not forced.
    text2 = _text(_panel(client, match))
    assert "poses any tile (the lead rotates) (R6)" in text2


def test_hand_1_of_a_forced_opening_still_names_the_6_6_holder_r5(client: Client) -> None:
    tournament = TournamentFactory(ruleset_preset="wsod_partners", status="running")  # type: ignore[no-untyped-call]
    match = scheduled_match(tournament, referee=referee_of(tournament))
    client.force_login(director_of(tournament))
    html = _panel(client, match)
    text = _text(html)
    assert "The holder of 6-6 poses the 6-6 (R5)" in text
    assert "Forced pose: tap the player who held the 6-6." in text
    assert "draw for the lead" not in text
