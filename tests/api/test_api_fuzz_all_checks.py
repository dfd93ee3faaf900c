"""schemathesis with ALL its checks, in the normal test run (issue 12, "schemathesis runs in CI
with all its checks and fails on any 5xx").

tests/api/test_api_fuzz.py fuzzes every operation as three callers with the checks that hold
for this API by design (no 5xx, documented statuses and bodies, the error shape). This module
complements it: the same in-process application, world and id steering, and every other
check schemathesis has (``schemathesis.checks.CHECKS``: content types, response headers,
missing required headers, unsupported methods, ``Allow``, use after free, resource
availability, object-level authorization, ignored authentication, negative data rejected,
positive data accepted: that one with two exceptions, below), as the director of the fuzzed
tournament, 3 examples per operation (about 3.5 minutes on a busy 2-core
machine).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
import schemathesis
from django.conf import settings as django_settings
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from tests.api.test_api_fuzz import (  # noqa: F401  (fixtures and hooks of the fuzzer)
    CSRF_SECRET,
    InProcessApp,
    World,
    app,
    credentials,
    error_shape,
    schema,
    world,
)

load_all_checks()


@schemathesis.check
def positive_data_acceptance_or_a_rule(ctx: Any, response: Any, case: Any) -> bool | None:
    """schemathesis' ``positive_data_acceptance`` (schema-valid data is not refused), except for
    the two refusals of schema-valid data that a schema cannot express:

    * a 400 whose ``error.rule`` names the rule broken (RULES.md, or the lifecycle): the body is
      well formed but breaks a rule of the game or of the match's state ("the match is
      scheduled; start it first", "scores must hold one integer per seat"); the API answers
      those 400 with the rule (docs: ``ERROR_DESCRIPTIONS[400]``), not 409/422;
    * a wrong username or password at ``POST .../auth/login/`` (400 ``bad_credentials``):
      schemathesis knows this only of OAuth2 ``tokenUrl`` operations, and this is a session.

    Any other refusal of schema-valid data (a 400 naming no rule: the schema and the server
    disagree about a field) fails, as with the plain check."""
    if response.status_code == 400:
        try:
            error = response.json().get("error") or {}
        except ValueError:
            error = {}
        if error.get("rule"):
            return None
        if case.operation.path.endswith("/auth/login/") and error.get("code") == (
            "bad_credentials"
        ):
            return None
    return positive_data_acceptance(ctx, response, case)


def _json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema: ``nullable: true`` becomes a ``null`` type (a
    JSON Schema validator ignores ``nullable`` and refused ``"seed": null``)."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _json_schema(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable") is True:
        if "type" in converted:
            kinds = (
                converted["type"] if isinstance(converted["type"], list) else [converted["type"]]
            )
            converted["type"] = [*kinds, "null"]
        if "enum" in converted and None not in converted["enum"]:
            converted["enum"] = [*converted["enum"], None]
        if "type" not in converted:
            converted = {"anyOf": [converted, {"type": "null"}]}
    return converted


def _sent_body_is_valid(case: Any) -> bool:
    raw = case.operation.schema.raw_schema
    operation = raw["paths"][case.operation.path][case.operation.method.lower()]
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    validator = jsonschema.Draft4Validator(
        _json_schema({**schema, "components": raw["components"]})
    )
    return bool(validator.is_valid(case.body))


# What the test rewrites after generation: id steering (body, path), the auth provider (cookie).
REWRITTEN = {ParameterLocation.BODY, ParameterLocation.PATH, ParameterLocation.COOKIE}


@schemathesis.check
def negative_data_rejection_as_sent(ctx: Any, response: Any, case: Any) -> bool | None:
    """schemathesis' ``negative_data_rejection`` (schema-invalid data is refused), judged on the
    request as sent: test_api_fuzz.py's id steering puts one of the world's ids in an id field
    (``entries``, ``referee``...) and in path parameters two times in three, and the
    :class:`DirectorSession` provider replaces the generated session cookie: either can turn
    the invalid value of a negative case into a valid request. A case whose negative parts
    are only those (body, path, cookie) and whose body as sent is valid is not negative any
    more (a path parameter still invalid is answered 404, which the check accepts); every
    other case is checked."""
    meta = case.meta
    if (
        meta is not None
        and meta.generation.mode.is_negative
        and meta.is_negative_at(ParameterLocation.BODY)
        and not any(
            component.mode.is_negative
            for location, component in meta.components.items()
            if location not in REWRITTEN
        )
        and isinstance(case.body, dict)
        and _sent_body_is_valid(case)
    ):
        return None
    return negative_data_rejection(ctx, response, case)


# Every check schemathesis has: positive_data_acceptance with the two exceptions above, and
# negative_data_rejection on the request as sent.
REPLACED = {"positive_data_acceptance", "negative_data_rejection"}
ALL_CHECKS = [
    *(check for check in CHECKS.get_all() if check.__name__ not in REPLACED),
    positive_data_acceptance_or_a_rule,
    negative_data_rejection_as_sent,
    error_shape,
]
# a world is built per operation: about 3 minutes on a busy 2-core machine (more for a longer
# local hunt: API_FUZZ_ALL_EXAMPLES=20)
MAX_EXAMPLES = int(os.environ.get("API_FUZZ_ALL_EXAMPLES", "3"))

_SIGNED_IN: dict[str, str] = {}


class DirectorSession:
    """schemathesis auth provider: the fuzzed tournament's director, signed in by session with
    its CSRF token. Given this way (not as extra headers at call time) the checks know the
    credentials are real: ``ignored_auth`` then sends each request again without them, and
    with made-up ones, and expects 401/403 wherever the schema requires credentials."""

    def get(self, case: Any, ctx: Any) -> dict[str, str] | None:
        return dict(_SIGNED_IN) or None

    def set(self, case: Any, data: dict[str, str], ctx: Any) -> None:
        headers, cookies = dict(case.headers or {}), dict(case.cookies or {})
        headers.pop("Authorization", None)  # a made-up referee token would be refused first
        cookies[django_settings.SESSION_COOKIE_NAME] = data["session"]
        cookies[django_settings.CSRF_COOKIE_NAME] = CSRF_SECRET
        headers["X-CSRFToken"] = CSRF_SECRET
        case.headers, case.cookies = headers, cookies


@pytest.fixture(autouse=True)
def _director_signed_in(world: World) -> Iterator[None]:  # noqa: F811
    _SIGNED_IN["session"] = world.session
    yield
    _SIGNED_IN.clear()


# The caller, named in the test's id: schemathesis names each operation's item only inside a
# pytest parametrization (as test_api_fuzz.py's ``role``); without one every item had the same
# id, and pytest-xdist, which hands items out by id, ran one of the 87.
@pytest.mark.parametrize("caller", ["director"])
@schema.parametrize()
@schema.auth.apply(DirectorSession, refresh_interval=None)
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
    ],
)
def test_api_fuzz_all_checks(
    case: Any,
    caller: str,
    world: World,  # noqa: F811
    app: InProcessApp,  # noqa: F811
) -> None:
    app.tracebacks.clear()
    try:
        case.call_and_validate(checks=ALL_CHECKS)
    except BaseException as exc:
        if app.tracebacks:
            exc.add_note("Server traceback:\n" + app.tracebacks[-1])
        raise
