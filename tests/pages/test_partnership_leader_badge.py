"""The scoreboard's "leader" badge at a partnership table (R28 with R42): the tie run is led by
a partnership, so both partners carry it. The engine stores the leader as a partnership (0 = AC,
1 = BD); the page compared it with seat numbers and marked seat A (or B) alone."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from scoring.services import hand_record
from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of

pytestmark = pytest.mark.django_db


def _leaders(html: str) -> list[str]:
    """The seat letters whose scoreboard line carries the leader badge."""
    board = html.split('class="scoreboard')[1].split("</ol>")[0]
    lines = re.findall(r'(<li[^>]*data-seat-name="(\d)".*?</li>)', board, re.S)
    return ["ABCD"[int(seat)] for line, seat in lines if "badge leader" in line]


@pytest.mark.parametrize(("winner", "leaders"), [(0, ["A", "C"]), (1, ["B", "D"])])
def test_both_partners_of_the_leading_partnership_carry_the_badge(
    client: Client, winner: int, leaders: list[str]
) -> None:
    tournament = TournamentFactory(ruleset_preset="wsod_partners")
    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee, lot_winner=0)
    # Hand 1: the forced 6-6 pose (R5), won by ``winner``'s partnership (R42).
    hand_record(
        match_id=match.pk,
        actor=referee,
        expected_number=1,
        payload={"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": winner},
    )
    # Hand 2: the winner poses (R7); a block tied across the partnerships (R43): a replay
    # whose tie run the scoring partnership leads (R28).
    hand_record(
        match_id=match.pk,
        actor=referee,
        expected_number=2,
        payload={"poser": winner, "pose_tile": "5-5", "end": "block", "counts": [5, 5, 7, 9]},
    )
    client.force_login(director_of(tournament))
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert _leaders(html) == leaders
