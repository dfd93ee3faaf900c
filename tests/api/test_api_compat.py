"""The served schema stays compatible with the released one (docs/api-changelog.md).

``docs/api/openapi-v1.json`` is the schema of the released API (1.x). A pull request that
removes or changes what a client relies on fails here; additions pass. After a compatible
change, refresh the snapshot (and note the change in docs/api-changelog.md):

    .venv/bin/python manage.py spectacular --format openapi-json --file docs/api/openapi-v1.json
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from core.api.compat import incompatible_changes

pytestmark = pytest.mark.django_db

SNAPSHOT = Path(__file__).resolve().parents[2] / "docs" / "api" / "openapi-v1.json"


@pytest.fixture(scope="module")
def released() -> dict[str, Any]:
    return dict(json.loads(SNAPSHOT.read_text()))


@pytest.fixture(scope="module")
def served(django_db_blocker: Any) -> dict[str, Any]:
    with django_db_blocker.unblock():
        r = Client().get("/api/schema/?format=json")
    assert r.status_code == 200
    return dict(json.loads(r.content))


def test_the_served_schema_keeps_every_released_operation_and_field(
    released: dict[str, Any], served: dict[str, Any]
) -> None:
    assert incompatible_changes(released, served) == []


def test_the_released_version_is_the_served_major_version(
    released: dict[str, Any], served: dict[str, Any]
) -> None:
    assert served["info"]["version"].split(".")[0] == released["info"]["version"].split(".")[0]


# -- the checker itself: each kind of break is caught, additions are not ------------------------


def _schemas(spec: dict[str, Any]) -> dict[str, Any]:
    return dict(spec["components"]["schemas"])


def test_removing_an_operation_is_incompatible(released: dict[str, Any]) -> None:
    new = copy.deepcopy(released)
    del new["paths"]["/api/matches/{match_id}/hands/"]["post"]
    assert incompatible_changes(released, new) == [
        "POST /api/matches/{match_id}/hands/: operation removed"
    ]


def test_removing_a_response_field_is_incompatible(released: dict[str, Any]) -> None:
    new = copy.deepcopy(released)
    del _schemas(new)["TournamentOutput"]["properties"]["version"]
    breaks = incompatible_changes(released, new)
    assert "GET /api/tournaments/{slug}/ 200.version: removed" in breaks


def test_removing_an_enum_value_is_incompatible(released: dict[str, Any]) -> None:
    new = copy.deepcopy(released)
    _schemas(new)["RulesetPresetEnum"]["enum"].remove("jamaican")
    breaks = incompatible_changes(released, new)
    assert any("enum values removed ['jamaican']" in b for b in breaks), breaks


def test_a_newly_required_request_field_is_incompatible(released: dict[str, Any]) -> None:
    new = copy.deepcopy(released)
    _schemas(new)["TournamentCreateInputRequest"]["required"].append("venue")
    breaks = incompatible_changes(released, new)
    assert "POST /api/tournaments/ body.venue: newly required" in breaks


def test_additions_are_compatible(released: dict[str, Any]) -> None:
    new = copy.deepcopy(released)
    new["paths"]["/api/new-thing/"] = {"get": {"responses": {"200": {"description": ""}}}}
    _schemas(new)["TournamentOutput"]["properties"]["colour"] = {"type": "string"}
    _schemas(new)["TournamentCreateInputRequest"]["properties"]["colour"] = {"type": "string"}
    _schemas(new)["RulesetPresetEnum"]["enum"].append("new_preset")
    assert incompatible_changes(released, new) == []
