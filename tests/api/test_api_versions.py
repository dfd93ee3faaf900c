"""API versions in the path (core.api.versioning, docs/api-changelog.md).

``/api/v1/...`` and ``/api/v2/...`` serve every API route; ``/api/...`` is an alias of v1. v2
differs from v1 in one thing only: a match's ``end_reason`` is ``null`` (not ``""``) until the
match ends, in every body (lists, details, recording answers and their replays, 409 states,
the live API). Each answer is checked against its own version's schema.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import requests
import schemathesis
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from rest_framework.test import APIClient

from core.api.versioning import RELEASES, VERSIONED_PATH
from scoring.models import Match
from tests.factories import TournamentFactory, match_in_progress, referee_of
from tournament.context import route_actions

pytestmark = pytest.mark.django_db

PREFIXES = {"": "v1", "v1/": "v1", "v2/": "v2"}


@pytest.fixture(scope="module")
def schemas(django_db_blocker: Any) -> dict[str, Any]:
    out = {}
    with django_db_blocker.unblock():
        for version in RELEASES:
            r = Client().get(f"/api/{version}/schema/?format=json")
            assert r.status_code == 200
            out[version] = schemathesis.openapi.from_dict(json.loads(r.content))
    return out


def conforms(schema: Any, response: Any) -> None:
    """Raise unless ``response`` is what its version's schema documents for its operation."""
    path = response.wsgi_request.path
    template = "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", resolve(path).route)
    if not VERSIONED_PATH.match(template):  # the /api/ alias: v1's operation
        template = "/api/v1/" + template.removeprefix("/api/")
    request = requests.PreparedRequest()
    request.prepare(method=response.wsgi_request.method, url=f"http://localhost{path}")
    st_response = schemathesis.Response(
        status_code=response.status_code,
        headers={name.lower(): [value] for name, value in response.headers.items()},
        content=response.content,
        request=request,
        elapsed=0.0,
        verify=True,
    )
    schema[template][response.wsgi_request.method].validate_response(st_response)


def _api_routes() -> list[tuple[str, str, Any]]:
    """(view name, route, callback) of every route under ``api/``, with the version prefix."""
    out: list[tuple[str, str, Any]] = []

    def walk(patterns: list[Any], prefix: str, namespaces: list[str]) -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                ns = [*namespaces, p.namespace] if p.namespace else namespaces
                walk(p.url_patterns, prefix + str(p.pattern), ns)
            elif isinstance(p, URLPattern) and (prefix + str(p.pattern)).startswith("api/"):
                out.append((":".join([*namespaces, str(p.name)]), prefix + str(p.pattern), p))

    walk(get_resolver().url_patterns, "", [])
    return out


def test_every_api_route_is_served_under_each_version_by_the_same_view_and_table_entry() -> None:
    routes = _api_routes()
    unversioned = {
        route.removeprefix("api/"): (name, p)
        for name, route, p in routes
        if not route.startswith(("api/v1/", "api/v2/")) and not name.startswith("api-")
    }
    assert len(unversioned) > 40
    for version in RELEASES:
        versioned = {
            route.removeprefix(f"api/{version}/"): (name, p)
            for name, route, p in routes
            if name.startswith(f"{version}:")
        }
        assert versioned.keys() == unversioned.keys(), version
        for rest, (name, p) in versioned.items():
            alias_name, alias = unversioned[rest]
            assert name == f"{version}:{alias_name}"
            assert p.callback is alias.callback, rest
            # the permission check reads the route table by view name: the same entry
            assert route_actions(name) == route_actions(alias_name) is not None, name


def test_the_unversioned_api_is_an_alias_of_v1() -> None:
    t = TournamentFactory()
    match = match_in_progress(t)
    for path in (f"matches/{match.pk}/", f"tournaments/{t.slug}/matches/", f"live/{t.slug}/"):
        alias, v1 = Client().get(f"/api/{path}"), Client().get(f"/api/v1/{path}")
        assert alias.status_code == v1.status_code == 200, path
        assert alias.json() == v1.json(), path


def _bodies(path: str) -> dict[str, Any]:
    return {prefix: Client().get(f"/api/{prefix}{path}") for prefix in PREFIXES}


def test_end_reason_is_blank_in_v1_and_null_in_v2_until_the_match_ends(
    schemas: dict[str, Any],
) -> None:
    t = TournamentFactory()
    match = match_in_progress(t)
    for path, get in [
        (f"matches/{match.pk}/", lambda b: b["end_reason"]),
        (f"tournaments/{t.slug}/matches/", lambda b: b["results"][0]["end_reason"]),
        (f"live/{t.slug}/matches/{match.pk}/", lambda b: b["match"]["end_reason"]),
    ]:
        answers = _bodies(path)
        for prefix, version in PREFIXES.items():
            r = answers[prefix]
            assert r.status_code == 200, (prefix, path, r.content[:200])
            assert get(r.json()) == ("" if version == "v1" else None), (prefix, path)
            conforms(schemas[version], r)
        # nothing else differs
        v1, v2 = answers["v1/"].json(), answers["v2/"].json()
        assert json.loads(json.dumps(v1).replace('"end_reason": ""', '"end_reason": null')) == v2


def test_a_finished_match_has_its_end_reason_in_both_versions() -> None:
    t = TournamentFactory()
    match = match_in_progress(t)
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FINISHED, end_reason=Match.EndReason.FORFEIT
    )
    for prefix in PREFIXES:
        assert Client().get(f"/api/{prefix}matches/{match.pk}/").json()["end_reason"] == "forfeit"


def test_recording_answers_replays_and_409_states_are_written_as_their_version(
    schemas: dict[str, Any],
) -> None:
    t = TournamentFactory()
    referee = referee_of(t)
    match = match_in_progress(t, referee=referee)
    api = APIClient()
    api.force_authenticate(referee)
    body = json.dumps({"number": 1, "poser": 2, "pose_tile": "6-6", "end": "domino", "winner": 0})
    key = {"Idempotency-Key": "versions-1"}
    first = api.post(
        f"/api/v2/matches/{match.pk}/hands/", body, content_type="application/json", headers=key
    )
    assert first.status_code == 201, first.content
    assert first.json()["match"]["end_reason"] is None
    conforms(schemas["v2"], first)
    # the stored answer is replayed as the version asked for
    replay_v1 = api.post(
        f"/api/v1/matches/{match.pk}/hands/", body, content_type="application/json", headers=key
    )
    assert replay_v1.status_code == 201
    assert replay_v1["Idempotent-Replayed"] == "true"
    assert replay_v1.json()["match"]["end_reason"] == ""
    assert replay_v1.json()["hand"] == first.json()["hand"]
    conforms(schemas["v1"], replay_v1)
    # the 409's current state too
    for prefix, version in PREFIXES.items():
        stale = api.post(
            f"/api/{prefix}matches/{match.pk}/hands/", body, content_type="application/json"
        )
        assert stale.status_code == 409, stale.content
        assert stale.json()["error"]["match"]["end_reason"] == ("" if version == "v1" else None)
        conforms(schemas[version], stale)


def test_each_version_has_its_schema_and_unknown_versions_are_not_found() -> None:
    for version, release in RELEASES.items():
        r = Client().get(f"/api/{version}/schema/?format=json")
        assert r.json()["info"]["version"] == release
        assert all(p.startswith(f"/api/{version}/") for p in r.json()["paths"])
    assert Client().get("/api/v3/tournaments/").status_code == 404
