"""Every class of bad input, sent to every API operation that takes it (issue 12, item 5).

The operations and their fields come from our own OpenAPI schema (``/api/schema/``), so a new
endpoint or field is covered without touching this file:

* ``test_every_request_field_is_bounded``: every field of every JSON request body has a bound
  (``maxLength``, ``minimum``/``maximum``, ``maxItems``, ``maxProperties``); only the free-form
  JSON values listed in ``FREE_FORM`` are left to the parser's size and depth limits.
* ``test_bad_input_is_refused_naming_the_field``: for every operation with a JSON body, as a
  director of the tournament addressed, each field gets each class that applies to it: a NUL
  byte and a lone surrogate (strings; a lone surrogate as an object key), one past its length,
  value or item bound, and JSON nested past ``API_JSON_MAX_DEPTH``; then a body past
  ``REQUEST_BODY_MAX_BYTES``. Each answer is a 4xx in the error shape — a 400 naming the field,
  or 413 for the body size (a 409 naming the field is fine: a hand number past the bound
  is a stale one) — and no row of any table changed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.test import Client
from rest_framework.test import APIClient

from tests.api.test_api_fuzz import World, build_world

pytestmark = pytest.mark.django_db

# Free-form JSON: checked by the rules engine; bounded by the body size and nesting depth.
FREE_FORM = {"play_log", "ruleset_overrides.*"}
# Answers that come before the body is read (the addressed object's state): still a 4xx with
# nothing stored, but they name no field. Listed so that a new one is a decision, not a pass.
# Operations refused before their body is read, whatever it holds (still 4xx, nothing stored):
# reopening a tournament that is not finished (409, lifecycle), and granting a role, which only
# staff may do (403, tournament/context.py) -- the world's caller is a director.
BEFORE_BODY: set[tuple[str, str]] = {
    ("post", "/api/v1/tournaments/{slug}/reopen/"),
    ("post", "/api/v1/tournaments/{slug}/roles/"),
}
# Fields sent with every bad one, where the view checks them first: the hands endpoint takes
# the next hand number before the engine validates the rest (the world's match has 2 hands).
BASE: dict[tuple[str, str], dict[str, Any]] = {
    ("post", "/api/v1/matches/{match_id}/hands/"): {"number": 3},
}
# Bodies the rules engine validates field by field in rule order (RULES.md §9): a 400 names the
# first field that does not hold, which for a one-field body may be an earlier missing one.
ENGINE_VALIDATED = {("post", "/api/v1/matches/{match_id}/hands/")}


def _schema() -> dict[str, Any]:
    response = Client(HTTP_HOST="localhost").get("/api/schema/?format=json")
    assert response.status_code == 200
    return dict(json.loads(response.content))


SCHEMA = _schema()
COMPONENTS = SCHEMA["components"]["schemas"]


def resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = COMPONENTS[schema["$ref"].split("/")[-1]]
    return schema


def body_fields(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Top-level properties of a request body schema (``allOf`` merged)."""
    schema = resolve(schema)
    fields: dict[str, dict[str, Any]] = {}
    for part in schema.get("allOf", []):
        fields.update(body_fields(part))
    for name, prop in schema.get("properties", {}).items():
        prop = resolve(prop)
        if not prop.get("readOnly"):
            fields[name] = prop
    return fields


def json_operations() -> list[tuple[str, str, dict[str, dict[str, Any]]]]:
    found = []
    for path, operations in SCHEMA["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                found.append((path, method, body_fields(content["application/json"]["schema"])))
    return found


OPERATIONS = json_operations()


def unbounded(where: str, schema: dict[str, Any]) -> Iterator[str]:
    schema = resolve(schema)
    if "enum" in schema or schema.get("readOnly") or where in FREE_FORM:
        return
    for part in schema.get("allOf", []) + schema.get("oneOf", []) + schema.get("anyOf", []):
        yield from unbounded(where, part)
    kind = schema.get("type")
    if kind == "string" and "format" not in schema and "maxLength" not in schema:
        yield f"{where}: string without maxLength"
    if kind in ("integer", "number") and not {"minimum", "maximum"} <= set(schema):
        yield f"{where}: {kind} without minimum and maximum"
    if kind == "array":
        if "maxItems" not in schema:
            yield f"{where}: array without maxItems"
        yield from unbounded(f"{where}[]", schema.get("items", {}))
    if kind == "object" or "properties" in schema:
        for name, prop in schema.get("properties", {}).items():
            yield from unbounded(f"{where}.{name}" if where else name, prop)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            yield from unbounded(f"{where}.*", extra)
        if not schema.get("properties") and "maxProperties" not in schema:
            yield f"{where}: object without maxProperties"
    if not kind and not any(k in schema for k in ("allOf", "oneOf", "anyOf", "properties")):
        yield f"{where}: any JSON value"


def test_every_request_field_is_bounded() -> None:
    assert len(OPERATIONS) > 20  # the schema really was read
    problems = [
        f"{method.upper()} {path} {problem}"
        for path, method, fields in OPERATIONS
        for name, prop in fields.items()
        for problem in unbounded(name, prop)
    ]
    assert not problems, "Unbounded request fields:\n" + "\n".join(problems)


# --- the bad-input classes ---------------------------------------------------------------------


def nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def bad_values(prop: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """``(class, raw JSON value)`` pairs for one field; raw text carries lone surrogates."""
    kind = prop.get("type")
    depth = settings.API_JSON_MAX_DEPTH + 1
    yield "too deep", json.dumps(nested(depth))
    if kind == "string" or "enum" in prop:
        yield "NUL", '"a\\u0000b"'
        yield "lone surrogate", '"a\\ud800b"'
        if "maxLength" in prop:
            yield "too long", json.dumps("x" * (prop["maxLength"] + 1))
    if kind == "integer":
        if "maximum" in prop:
            yield "above maximum", str(prop["maximum"] + 1)
        if "minimum" in prop:
            yield "below minimum", str(prop["minimum"] - 1)
    if kind == "array":
        items = resolve(prop.get("items", {}))
        if "maxItems" in prop:
            item = items.get("minimum", 1) if items.get("type") == "integer" else "x"
            yield "too many items", json.dumps([item] * (prop["maxItems"] + 1))
        if items.get("type") == "string":
            yield "NUL item", '["a\\u0000b"]'
    if kind == "object":
        yield "lone surrogate key", '{"\\udc00": 1}'
        if "maxProperties" in prop:
            yield (
                "too many keys",
                json.dumps({f"k{i}": 1 for i in range(prop["maxProperties"] + 1)}),
            )


def snapshot() -> dict[str, int]:
    """Row count of every table (the project's and Django's)."""
    return {m._meta.label: m._default_manager.count() for m in apps.get_models()}


def url_for(path: str, world: World) -> str:
    for name, values in world.known.items():
        path = path.replace("{" + name + "}", str(values[0]))
    assert "{" not in path, f"no value for a path parameter of {path}"
    return path


@pytest.fixture
def world() -> World:
    return build_world()


def test_bad_input_is_refused_naming_the_field(world: World, settings: Any) -> None:
    settings.CACHES = json.loads(json.dumps(settings.CACHES))
    settings.CACHES["default"]["KEY_PREFIX"] = f"ct-bad-input-{id(world)}"
    api = APIClient()
    api.force_authenticate(world.director)
    failures: list[str] = []
    sent = 0
    for path, method, fields in OPERATIONS:
        url = url_for(path, world)
        call = getattr(api, method)
        before = snapshot()
        for name, prop in fields.items():
            for kind, raw in bad_values(prop):
                sent += 1
                base = {k: v for k, v in BASE.get((method, path), {}).items() if k != name}
                prefix = "".join(f"{json.dumps(k)}: {json.dumps(v)}, " for k, v in base.items())
                body = f'{{{prefix}"{name}": {raw}}}'
                response = call(url, body, content_type="application/json")
                where = f"{method.upper()} {path} {name} ({kind}): {response.status_code}"
                if not 400 <= response.status_code < 500 or response.status_code == 413:
                    failures.append(f"{where} {response.content[:200]!r}")
                    continue
                if response.status_code != 400 and (method, path) in BEFORE_BODY:
                    continue
                named = response.json()["error"]["fields"]
                if (method, path) in ENGINE_VALIDATED and named:
                    continue
                if not any(
                    field == name or field.startswith((f"{name}.", f"{name}[")) for field in named
                ):
                    failures.append(f"{where} names {sorted(named)}, not {name}")
        settings.REQUEST_BODY_MAX_BYTES = 4096
        sent += 1
        response = call(url, json.dumps({"x": "y" * 5000}), content_type="application/json")
        if response.status_code != 413 or response.json()["error"]["code"] != "too_large":
            failures.append(f"{method.upper()} {path} (too large): {response.status_code}")
        settings.REQUEST_BODY_MAX_BYTES = 2_621_440
        if snapshot() != before:
            changed = {k for k, v in snapshot().items() if before.get(k) != v}
            failures.append(f"{method.upper()} {path}: rows changed in {sorted(changed)}")
    assert sent > 100
    assert not failures, f"{len(failures)} of {sent} bad requests:\n" + "\n".join(failures)
