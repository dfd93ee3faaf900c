"""A stale hand number on a match that is over says it is over, and how it ended.

Bug: ``POST /api/matches/<id>/hands/`` with an old number after the match ended answered 409
"... the next is hand 9", as if another hand could be recorded. Now the 409 (still
``stale_hand_number``, with ``error.match``) says the match is over: its last hand and
score, or the forfeit, the director's decision or time that ended it (R33).
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from core.exceptions import ConflictError
from scoring.services import hand_record, match_result_override
from tests.factories import TournamentFactory, director_of, match_in_progress

pytestmark = pytest.mark.django_db

FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}
NEXT = {"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 0}
LAST_BLOCK = {"poser": 0, "pose_tile": "5-4", "end": "block", "counts": [3, 10, 12, 9]}


def test_a_stale_number_on_a_match_ended_by_its_last_hand_says_it_is_over() -> None:
    t = TournamentFactory()
    director: Any = director_of(t)
    match = match_in_progress(t)
    for number in range(1, 6):
        hand_record(
            match_id=match.pk,
            actor=director,
            expected_number=number,
            payload=FIRST if number == 1 else NEXT,
        )
    hand_record(match_id=match.pk, actor=director, expected_number=6, payload=LAST_BLOCK)
    with pytest.raises(ConflictError) as exc:
        hand_record(match_id=match.pk, actor=director, expected_number=3, payload=NEXT)
    message = exc.value.message
    assert "the match is over. Hand 6 ended it" in message
    assert "the next is hand" not in message
    assert exc.value.code == "stale_hand_number"
    assert exc.value.rule == "R33"


def test_the_api_says_how_an_overridden_match_ended() -> None:
    t = TournamentFactory()
    director: Any = director_of(t)
    match = match_in_progress(t)
    hand_record(match_id=match.pk, actor=director, expected_number=1, payload=FIRST)
    match_result_override(match_id=match.pk, actor=director, scores=[6, 2, 0, 0], reason="sheet")
    api = APIClient()
    api.force_authenticate(director)
    r = api.post(f"/api/matches/{match.pk}/hands/", {"number": 1, **NEXT}, format="json")
    assert r.status_code == 409
    error = r.json()["error"]
    assert error["code"] == "stale_hand_number"
    assert "the match is over. It ended by director override, 6-2-0-0." in error["message"]
    assert "next is hand" not in error["message"]
    assert error["match"]["status"] == "finished"
