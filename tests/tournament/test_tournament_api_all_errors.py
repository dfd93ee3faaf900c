"""The tournament edit API names every refused field in one 400, as the settings form does.

Bug: ``PATCH /api/v1/tournaments/<slug>/`` stopped at the first refusal: a body with a name of
zero-width spaces and an end before the start named the name only; fix it, send again, see
the dates. The input serializer, the service's field checks (status forward only, the name
rule of core.visible_text, the dates) and the engine (every refused ruleset key, §1) each
stopped at their first. Now one answer holds them all, in the API's error envelope
(``{"error": {"code", "message", "fields"}}``, core.api.exception_handler): one refusal keeps
its own code, several answer ``invalid``.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.factories import TournamentFactory, director_of
from tournament.models import Tournament

pytestmark = pytest.mark.django_db

DATES = "The tournament cannot end before it starts."
INVISIBLE = "Name: Required."


def _patch(tournament: Tournament, body: dict[str, Any]) -> Any:
    api = APIClient()
    api.force_authenticate(director_of(tournament))
    return api.patch(f"/api/v1/tournaments/{tournament.slug}/", body, format="json")


@pytest.fixture
def tournament() -> Tournament:
    return TournamentFactory(
        name="Before",
        status=Tournament.Status.REGISTRATION,
        starts_on="2027-03-01",
        ends_on="2027-03-02",
    )


def test_two_bad_fields_are_named_in_one_answer(tournament: Tournament) -> None:
    """The name (the service's rule) and the dates (after the change): both at once."""
    r = _patch(tournament, {"name": "\u200b", "ends_on": "2027-02-01"})
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "invalid"
    assert error["fields"] == {"name": [INVISIBLE], "ends_on": ["Before starts_on."]}
    assert INVISIBLE in error["message"]
    assert DATES in error["message"]
    tournament.refresh_from_db()
    assert (tournament.name, str(tournament.ends_on)) == ("Before", "2027-03-02")


def test_three_bad_fields_from_the_input_the_service_and_the_engine(
    tournament: Tournament,
) -> None:
    """A date that is no date (the input's refusal), a backward status (the service's) and
    two ruleset keys the engine refuses one at a time (§1): four fields, one answer."""
    r = _patch(
        tournament,
        {
            "starts_on": "someday",
            "status": "draft",
            "ruleset_overrides": {"target": -3, "deal": "standard", "boneyard": "draw"},
        },
    )
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "invalid"
    assert set(error["fields"]) == {
        "starts_on",
        "status",
        "ruleset_overrides.target",
        "ruleset_overrides.boneyard",
    }
    assert error["fields"]["status"] == ["Only forward from registration."]
    assert error["message"].startswith("starts_on: Date has wrong format.")
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTRATION
    assert tournament.ruleset_overrides == {}


def test_three_bad_fields_of_the_input_alone(tournament: Tournament) -> None:
    r = _patch(tournament, {"name": "", "starts_on": "x", "status": "paused"})
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "invalid"
    assert set(error["fields"]) == {"name", "starts_on", "status"}
    assert error["message"].startswith("name: This field may not be blank.")


def test_one_bad_field_keeps_its_own_code_and_rule(tournament: Tournament) -> None:
    r = _patch(tournament, {"ends_on": "2027-02-01"})
    assert r.status_code == 400
    assert r.json()["error"] == {
        "code": "bad_dates",
        "message": DATES,
        "fields": {"ends_on": ["Before starts_on."]},
    }
    r = _patch(tournament, {"ruleset_overrides": {"target": -3}})
    error = r.json()["error"]
    assert (r.status_code, error["code"], list(error["fields"])) == (
        400,
        "out_of_range",
        ["ruleset_overrides.target"],
    )
    assert error["rule"]
    r = _patch(tournament, {"starts_on": "x"})
    assert r.json()["error"]["code"] == "invalid"
    assert r.json()["error"]["message"].startswith("starts_on: Date has wrong format.")


def test_a_good_edit_is_saved_as_before(tournament: Tournament) -> None:
    r = _patch(
        tournament,
        {"name": "  After  ", "ends_on": "2027-03-04", "ruleset_overrides": {"target": 150}},
    )
    assert r.status_code == 200, r.content
    body = r.json()
    assert (body["name"], body["ends_on"], body["ruleset"]["target"]) == (
        "After",
        "2027-03-04",
        150,
    )
    before = tournament.version
    tournament.refresh_from_db()
    assert (tournament.name, tournament.version) == ("After", before + 1)
