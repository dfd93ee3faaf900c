"""The bench's frame (bench/floor_app/views.py): the hand endpoint without its service.

``make bench-hands`` splits the hand endpoint's cost into the framework around the service and
the service itself by timing this view next to the real one (issue 19). The split is only
right while the frame answers callers exactly as the real endpoint does, and writes nothing.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from scoring.models import Hand
from tests.factories import TournamentFactory, director_of, match_in_progress
from tournament import services as tournament_services

pytestmark = [pytest.mark.django_db, pytest.mark.urls("bench.floor_app.urls")]

FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}


def _referee_auth() -> tuple[Any, dict[str, str]]:
    t = TournamentFactory()
    director = director_of(t)
    role = tournament_services.referee_create(tournament=t, actor=director, username="frame-ref")
    token = tournament_services.referee_token_issue(tournament=t, actor=director, user=role.user)
    match = match_in_progress(t, referee=role.user)
    return match, {"HTTP_AUTHORIZATION": f"Token {token.key}"}  # type: ignore[attr-defined]


def _post(client: Client, path: str, body: Any, **extra: Any) -> Any:
    return client.post(path, body, content_type="application/json", **extra)


def test_the_frame_refuses_whom_the_endpoint_refuses(client: Client) -> None:
    match, _ = _referee_auth()
    body = {"number": 1, **FIRST}
    real = _post(client, f"/api/matches/{match.pk}/hands/", body)
    frame = _post(client, f"/bench/frame/{match.pk}/", body)
    assert real.status_code == frame.status_code == 401
    bad = {"HTTP_AUTHORIZATION": "Token nope.nope"}
    real = _post(client, f"/api/matches/{match.pk}/hands/", body, **bad)
    frame = _post(client, f"/bench/frame/{match.pk}/", body, **bad)
    assert real.status_code == frame.status_code == 401
    real = _post(client, f"/api/matches/{match.pk}/hands/", [1, 2])
    frame = _post(client, f"/bench/frame/{match.pk}/", [1, 2])
    assert real.status_code == frame.status_code


def test_the_frame_answers_a_referee_and_records_nothing(client: Client) -> None:
    match, auth = _referee_auth()
    body = {"number": 1, **FIRST}
    frame = _post(client, f"/bench/frame/{match.pk}/", body, HTTP_IDEMPOTENCY_KEY="k1", **auth)
    assert frame.status_code == 201, frame.content
    assert frame.json() == {"number": 1, "key": "k1"}
    assert not Hand.objects.filter(match=match).exists()
    # The same caller and body on the real endpoint record the hand: the frame's caller is one
    # the service would accept, so the bench times the same callers on both.
    real = _post(client, f"/api/matches/{match.pk}/hands/", body, HTTP_IDEMPOTENCY_KEY="k1", **auth)
    assert real.status_code == 201, real.content
    assert Hand.objects.filter(match=match).count() == 1
