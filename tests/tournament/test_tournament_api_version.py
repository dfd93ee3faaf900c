"""Every write of the tournament API answers the tournament's version AFTER the write.

Bug: ``PATCH /api/v1/tournaments/<slug>/`` (and the status and reopen endpoints) answered the
version read before the service's ``tournament_version_bump``: one behind. A client that kept
the answered version to compare with the live documents' ETag (``"t<id>v<version>"``) or with
its next read saw a change that was its own. Now the answer's version is the one a GET, the
live API's ETag and the next write start from. (The API has no If-Match precondition: the
version is for cache validation.)
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.factories import TournamentFactory, director_of
from tournament.models import Tournament

pytestmark = pytest.mark.django_db


def _api(tournament: Tournament) -> APIClient:
    api = APIClient()
    api.force_authenticate(director_of(tournament))
    return api


def _url(tournament: Tournament, tail: str = "") -> str:
    return f"/api/v1/tournaments/{tournament.slug}/{tail}"


def _stored_version(tournament: Tournament) -> int:
    return int(Tournament.objects.values_list("version", flat=True).get(pk=tournament.pk))


def _read_version(api: APIClient, tournament: Tournament) -> int:
    r = api.get(_url(tournament))
    assert r.status_code == 200
    return int(r.json()["version"])


def _live_etag(tournament: Tournament) -> str:
    r = APIClient().get(f"/api/live/{tournament.slug}/")
    assert r.status_code == 200
    return str(r["ETag"])


def test_a_patch_answers_the_version_a_get_and_the_live_etag_read_next() -> None:
    tournament = TournamentFactory(name="Spring Open", status=Tournament.Status.REGISTRATION)
    api = _api(tournament)
    before = _read_version(api, tournament)
    r = api.patch(_url(tournament), {"name": "Spring Open 2027"}, format="json")
    assert r.status_code == 200
    answered = r.json()["version"]
    assert answered == before + 1 == _stored_version(tournament)
    assert _read_version(api, tournament) == answered
    assert _live_etag(tournament) == f'"t{tournament.pk}v{answered}"'
    # A second edit starts from the answered version and answers the next one.
    again = api.patch(_url(tournament), {"venue": "Club Hall"}, format="json")
    assert again.status_code == 200
    assert again.json()["version"] == answered + 1 == _read_version(api, tournament)


def test_the_status_and_reopen_endpoints_answer_the_version_after_the_change() -> None:
    tournament = TournamentFactory(status=Tournament.Status.REGISTRATION)
    api = _api(tournament)
    answers: list[Any] = []
    for tail, body in (
        ("status/", {"status": Tournament.Status.RUNNING}),
        ("status/", {"status": Tournament.Status.FINISHED}),
        ("reopen/", {"reason": "A score was wrong"}),
    ):
        r = api.post(_url(tournament, tail), body, format="json")
        assert r.status_code == 200, r.content
        answers.append(r.json())
        assert r.json()["version"] == _stored_version(tournament) == _read_version(api, tournament)
    assert [a["status"] for a in answers] == ["running", "finished", "running"]
    assert answers[0]["version"] < answers[1]["version"] < answers[2]["version"]
