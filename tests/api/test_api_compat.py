"""The served schemas stay compatible with the released ones (docs/api-changelog.md).

``docs/api/openapi-v1.json`` and ``docs/api/openapi-v2.json`` are the schemas of the released
API versions (1.x at ``/api/v1/`` and its alias ``/api/``, 2.x at ``/api/v2/``). A pull request
that removes or changes what a client of a released version relies on fails here; additions
pass. After a compatible change, refresh the snapshots (and note the change in
docs/api-changelog.md):

    .venv/bin/python manage.py spectacular --format openapi-json --file docs/api/openapi-v1.json
    .venv/bin/python manage.py spectacular --api-version v2 --format openapi-json \
        --file docs/api/openapi-v2.json
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from core.api.compat import incompatible_changes
from core.api.versioning import RELEASES

pytestmark = pytest.mark.django_db

DOCS = Path(__file__).resolve().parents[2] / "docs" / "api"
SNAPSHOT = DOCS / "openapi-v1.json"
SCHEMA_URLS = {"v1": "/api/v1/schema/", "v2": "/api/v2/schema/"}


def _served(django_db_blocker: Any, url: str) -> dict[str, Any]:
    with django_db_blocker.unblock():
        r = Client().get(url + "?format=json")
    assert r.status_code == 200
    return dict(json.loads(r.content))


@pytest.fixture(scope="module")
def released() -> dict[str, Any]:
    return dict(json.loads(SNAPSHOT.read_text()))


@pytest.fixture(scope="module")
def served(django_db_blocker: Any) -> dict[str, Any]:
    return _served(django_db_blocker, "/api/schema/")


@pytest.mark.parametrize("version", sorted(RELEASES))
def test_the_served_schema_keeps_every_released_operation_and_field(
    version: str, django_db_blocker: Any
) -> None:
    snapshot = dict(json.loads((DOCS / f"openapi-{version}.json").read_text()))
    served = _served(django_db_blocker, SCHEMA_URLS[version])
    assert incompatible_changes(snapshot, served) == []
    assert served["info"]["version"] == RELEASES[version]
    assert served["info"]["version"].split(".")[0] == snapshot["info"]["version"].split(".")[0]


def test_the_unversioned_schema_is_v1s(served: dict[str, Any], django_db_blocker: Any) -> None:
    """``/api/schema/`` describes the unversioned alias's version: v1 (its paths are
    ``/api/v1/...``; ``/api/...`` answers the same)."""
    assert served == _served(django_db_blocker, "/api/v1/schema/")
    assert served["paths"]
    assert all(p.startswith("/api/v1/") for p in served["paths"])


def test_v2_is_a_new_major_version_because_v1_to_v2_breaks_clients() -> None:
    """The change policy: a response field newly nullable, or an enum value removed, is
    incompatible, so ``end_reason`` as ``null`` (not ``""``) before a match ends is v2, not a
    change of v1. Every break from v1 to v2 is that one, and nothing else."""
    v1 = json.loads((DOCS / "openapi-v1.json").read_text())
    v2 = json.loads((DOCS / "openapi-v2.json").read_text())
    breaks = incompatible_changes(v1, v2)
    assert breaks
    assert all(b.split(": ")[0].endswith("end_reason") for b in breaks), breaks
    assert any(b.endswith("may now be null") for b in breaks)
    assert any(b.endswith("response enum values removed ['']") for b in breaks)
    assert incompatible_changes(v2, v2) == []


# -- the checker itself: each kind of break is caught, additions are not ------------------------


def _schemas(spec: dict[str, Any]) -> dict[str, Any]:
    return dict(spec["components"]["schemas"])


def test_removing_an_operation_is_incompatible(released: dict[str, Any]) -> None:
    new = copy.deepcopy(released)
    del new["paths"]["/api/v1/matches/{match_id}/hands/"]["post"]
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
    new["paths"]["/api/v1/new-thing/"] = {"get": {"responses": {"200": {"description": ""}}}}
    _schemas(new)["TournamentOutput"]["properties"]["colour"] = {"type": "string"}
    _schemas(new)["TournamentCreateInputRequest"]["properties"]["colour"] = {"type": "string"}
    _schemas(new)["RulesetPresetEnum"]["enum"].append("new_preset")
    assert incompatible_changes(released, new) == []
