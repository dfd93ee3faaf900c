"""What issue 20 asks of the served schema, checked on the schema itself.

The contract test (tests/contract) proves a generated client works; these pin the parts of
the schema it relies on, each with the reason a client needs it.
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

import pytest
from django.test import Client

from scoring.engine import rules
from scoring.engine.errors import InvalidRuleset
from tournament.api.rulesets import INT_MINIMUMS

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(django_db_blocker: Any) -> dict[str, Any]:
    with django_db_blocker.unblock():
        r = Client().get("/api/schema/?format=json")
    assert r.status_code == 200
    return dict(json.loads(r.content))


def _operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, op)
        for path, ops in schema["paths"].items()
        for method, op in ops.items()
        if method in ("get", "post", "patch", "put", "delete")
    ]


def _component(schema: dict[str, Any], ref_or_schema: dict[str, Any]) -> dict[str, Any]:
    ref = ref_or_schema.get("$ref") or ref_or_schema.get("allOf", [{}])[0].get("$ref", "")
    return dict(schema["components"]["schemas"][ref.rsplit("/", 1)[-1]])


def test_every_request_body_is_json_only(schema: dict[str, Any]) -> None:
    """Several content types with one schema made generated clients send a body three ways."""
    for method, path, op in _operations(schema):
        if "requestBody" in op:
            assert list(op["requestBody"]["content"]) == ["application/json"], (method, path)


def test_bodies_with_a_required_field_are_required(schema: dict[str, Any]) -> None:
    for method, path, op in _operations(schema):
        body = op.get("requestBody")
        if body is None:
            continue
        component = _component(schema, body["content"]["application/json"]["schema"])
        assert bool(body.get("required")) == bool(component.get("required")), (method, path)


def test_no_description_is_a_developer_note(schema: dict[str, Any]) -> None:
    for method, path, op in _operations(schema):
        text = op.get("description", "")
        assert "WWW-Authenticate`` makes" not in text, (method, path)
        assert ":meth:" not in text, (method, path)
        assert ":class:" not in text, (method, path)
    create = schema["paths"]["/api/v1/tournaments/"]["post"]
    assert "ruleset_overrides" in create["description"]


def test_every_401_names_the_scheme_to_retry_with(schema: dict[str, Any]) -> None:
    answers = [
        op["responses"]["401"] for _, _, op in _operations(schema) if "401" in op["responses"]
    ]
    assert answers
    for answer in answers:
        assert "WWW-Authenticate" in answer["headers"]


def test_a_stale_hand_409_documents_the_current_match_state(schema: dict[str, Any]) -> None:
    for path in (
        "/api/v1/matches/{match_id}/hands/",
        "/api/v1/matches/{match_id}/hands/void-last/",
    ):
        answer = schema["paths"][path]["post"]["responses"]["409"]
        outer = _component(schema, answer["content"]["application/json"]["schema"])
        body = _component(schema, outer["properties"]["error"])
        assert _component(schema, body["properties"]["match"])["properties"]["hands_count"]
    hands = schema["paths"]["/api/v1/matches/{match_id}/hands/"]["post"]["responses"]
    assert "Idempotent-Replayed" in hands["201"]["headers"]


def test_live_answers_document_their_etag_and_404_body(schema: dict[str, Any]) -> None:
    live = [(p, op) for m, p, op in _operations(schema) if p.startswith("/api/v1/live/")]
    assert len(live) >= 6
    for path, op in live:
        assert "ETag" in op["responses"]["200"]["headers"], path
        not_found = op["responses"]["404"]["content"]["application/json"]["schema"]
        assert not_found["$ref"].endswith("/ErrorOutput"), path


def test_the_ruleset_schema_is_the_engines(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    ruleset = components["Ruleset"]["properties"]
    assert set(ruleset) == {f.name for f in fields(rules.Ruleset)}
    for key, enum_cls in rules._ENUM_KEYS.items():
        prop = ruleset[key]
        refs = [s["$ref"] for s in prop.get("allOf", []) + prop.get("oneOf", []) if "$ref" in s]
        values = {v for ref in refs for v in components[ref.rsplit("/", 1)[-1]]["enum"]}
        assert values - {None} == {m.value for m in enum_cls}, key
        assert "R" in prop["description"] or "§1" in prop["description"], key
    assert components["RulesetPresetEnum"]["enum"] == list(rules.PRESETS)
    overrides = components["RulesetOverridesRequest"]
    assert not overrides.get("required")
    assert set(overrides["properties"]) == {f.name for f in fields(rules.Ruleset)} - {"preset"}


@pytest.mark.parametrize(("key", "minimum"), sorted(INT_MINIMUMS.items()))
def test_each_documented_lower_bound_is_the_engines(key: str, minimum: int) -> None:
    """The bounds are the only ruleset facts written outside the engine: check them there."""
    with pytest.raises(InvalidRuleset) as below:
        rules.Ruleset.from_preset("wsod", {key: minimum - 1})
    assert below.value.field == key
    refused: InvalidRuleset | None = None
    try:
        rules.Ruleset.from_preset("wsod", {key: minimum})
    except InvalidRuleset as exc:  # a combination rule may refuse it, not the bound
        refused = exc
    assert refused is None or refused.field != key or refused.code != "bad_value", refused


def test_tiles_in_play_logs_and_poses_have_a_pattern(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    assert components["HandRecordInputRequest"]["properties"]["pose_tile"]["pattern"]
    assert components["PlayLogMoveRequest"]["properties"]["tile"]["pattern"]
    assert components["HandRecordInputRequest"]["properties"]["winner"]["maximum"] == 3
