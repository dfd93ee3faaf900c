"""Real concurrency against PostgreSQL: N threads POST the same hand to a live server.

Each thread sends a real HTTP request (referee token auth) through its own server thread and
database connection, released together by a barrier. The match row lock plus the unique
constraints must let exactly one hand through (PITFALLS.md).
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from typing import Any

import httpx
import pytest
from django.db import DatabaseError, connections, transaction

from scoring.models import Hand, Match
from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of
from tournament.services import referee_token_issue

# Real PostgreSQL/Redis behaviour: skipped in the embedded run (TEST_DATABASE=sqlite).
pytestmark = [pytest.mark.postgres]

N_THREADS = 12
HAND_1 = {"number": 1, "poser": 2, "pose_tile": "6-6", "end": "domino", "winner": 0}


def _setup() -> tuple[Match, str]:
    tournament = TournamentFactory()
    referee = referee_of(tournament)
    token = referee_token_issue(tournament=tournament, actor=director_of(tournament), user=referee)
    return match_in_progress(tournament, referee=referee), token.key


def _fire(url: str, key: str, bodies: list[tuple[dict[str, Any], str | None]]) -> list[Any]:
    barrier = threading.Barrier(len(bodies))
    results: list[Any] = [None] * len(bodies)

    def worker(i: int, body: dict[str, Any], idem: str | None) -> None:
        headers = {"Authorization": f"Token {key}"}
        if idem:
            headers["Idempotency-Key"] = idem
        with httpx.Client(timeout=30) as client:
            barrier.wait()
            r = client.post(url, json=body, headers=headers)
        results[i] = (r.status_code, r.json())

    threads = [
        threading.Thread(target=worker, args=(i, body, idem))
        for i, (body, idem) in enumerate(bodies)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


@pytest.mark.django_db(transaction=True)
def test_same_key_from_many_threads_records_exactly_once(live_server: Any) -> None:
    match, key = _setup()
    url = f"{live_server.url}/api/matches/{match.pk}/hands/"
    results = _fire(url, key, [(HAND_1, "same-key")] * N_THREADS)
    statuses = Counter(status for status, _ in results)
    assert statuses == {201: N_THREADS}, results
    bodies = {json.dumps(body, sort_keys=True) for _, body in results}
    assert len(bodies) == 1  # every retry got the original response
    assert Hand.objects.filter(match=match).count() == 1
    assert Hand.objects.filter(idempotency_key="same-key").count() == 1
    match.refresh_from_db()
    assert match.hands_count == 1
    assert match.scores == [1, 0, 0, 0]


@pytest.mark.django_db(transaction=True)
def test_different_keys_same_number_one_wins_the_rest_get_409(live_server: Any) -> None:
    match, key = _setup()
    url = f"{live_server.url}/api/matches/{match.pk}/hands/"
    results = _fire(url, key, [(HAND_1, f"key-{i}") for i in range(N_THREADS)])
    statuses = Counter(status for status, _ in results)
    assert statuses == {201: 1, 409: N_THREADS - 1}, results
    conflicts = [body for status, body in results if status == 409]
    assert all(b["error"]["match"]["hands_count"] == 1 for b in conflicts)
    assert Hand.objects.filter(match=match).count() == 1


@pytest.mark.django_db(transaction=True)
def test_no_key_same_number_exactly_one_stored(live_server: Any) -> None:
    match, key = _setup()
    url = f"{live_server.url}/api/matches/{match.pk}/hands/"
    results = _fire(url, key, [(HAND_1, None)] * N_THREADS)
    statuses = Counter(status for status, _ in results)
    assert statuses == {201: 1, 409: N_THREADS - 1}, results
    assert Hand.objects.filter(match=match, void=False).count() == 1


@pytest.mark.django_db(transaction=True)
def test_same_key_different_body_is_422(live_server: Any) -> None:
    match, key = _setup()
    url = f"{live_server.url}/api/matches/{match.pk}/hands/"
    other = {**HAND_1, "winner": 1}
    results = _fire(url, key, [(HAND_1, "k"), (other, "k")] * 3)
    statuses = Counter(status for status, _ in results)
    # Whichever body won the race, the other body with the same key is refused.
    assert statuses == {201: 3, 422: 3}, results
    assert Hand.objects.filter(match=match).count() == 1


@pytest.mark.django_db(transaction=True)
def test_match_lock_is_held_so_nowait_from_another_connection_fails() -> None:
    match, _ = _setup()
    errors: list[BaseException] = []

    def other_connection() -> None:
        try:
            with transaction.atomic():
                Match.objects.select_for_update(nowait=True).get(pk=match.pk)
        except DatabaseError as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    with transaction.atomic():
        Match.objects.select_for_update(no_key=True).get(pk=match.pk)
        t = threading.Thread(target=other_connection)
        t.start()
        t.join(30)
    assert len(errors) == 1
    assert "could not obtain lock" in str(errors[0])
    # Once released, the other connection gets it.
    t = threading.Thread(target=other_connection)
    t.start()
    t.join(30)
    assert len(errors) == 1
