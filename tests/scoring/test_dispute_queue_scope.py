"""The director's dispute queue acts only on matches of the tournament in its URL.

Bug: ``POST /director/tournaments/second-cup/disputes/`` with the id of a match of another
tournament answered "This match has no open dispute." (and, for a director of both, would have
resolved that other tournament's dispute from this page: permission was checked against the
match's own tournament). Now: "No such match in this tournament.", nothing written.
"""

from __future__ import annotations

import pytest
from django.test import Client

from scoring import confirmation
from scoring.models import Match, ResultDispute
from scoring.services import hand_record
from tests.factories import RoleFactory, TournamentFactory, director_of, match_in_progress
from tournament.models import TournamentRole

pytestmark = pytest.mark.django_db

FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}


def _disputed(director: object) -> Match:
    """A match of a new tournament (``director`` directs it too) with an open dispute."""
    t = TournamentFactory(confirmation="every_hand")
    RoleFactory(tournament=t, user=director, role=TournamentRole.Role.DIRECTOR)
    match = match_in_progress(t)
    hand_record(match_id=match.pk, actor=director, expected_number=1, payload=FIRST)
    confirmation.hand_dispute(
        match_id=match.pk,
        actor=director,
        number=1,
        seat=2,
        claimed={**FIRST, "winner": 1},
        note="B won it",
    )
    return match


def test_a_match_of_another_tournament_is_not_found_in_this_queue(client: Client) -> None:
    second = TournamentFactory(slug="second-cup")
    director = director_of(second)
    other = _disputed(director)  # the director directs both tournaments
    client.force_login(director)
    r = client.post(
        "/director/tournaments/second-cup/disputes/",
        {"match_id": other.pk, "decision": "uphold", "reason": "wrong page"},
    )
    assert r.status_code == 400
    html = r.content.decode()
    assert "No such match in this tournament." in html
    assert "no open dispute" not in html
    assert ResultDispute.objects.get(match=other).status == ResultDispute.Status.OPEN


def test_a_match_without_dispute_of_another_tournament_is_not_found_either(
    client: Client,
) -> None:
    second = TournamentFactory(slug="second-cup")
    director = director_of(second)
    elsewhere = match_in_progress(TournamentFactory())  # no right there, no dispute
    client.force_login(director)
    r = client.post(
        "/director/tournaments/second-cup/disputes/",
        {"match_id": elsewhere.pk, "decision": "uphold", "reason": "x"},
    )
    assert r.status_code == 400
    assert "No such match in this tournament." in r.content.decode()
