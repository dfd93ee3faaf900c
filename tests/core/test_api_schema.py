"""The OpenAPI schema documents every operation's errors in the one error shape (core.api.schema).

The fuzzer (tests/api/test_api_fuzz.py, ``status_code_conformance``) checks the other way
round: every status the API answers is one the schema documents.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

ERROR_REF = "#/components/schemas/ErrorOutput"


@pytest.fixture(scope="module")
def paths(django_db_blocker: Any) -> dict[str, Any]:
    with django_db_blocker.unblock():
        r = Client().get("/api/schema/?format=json")
    assert r.status_code == 200
    return dict(json.loads(r.content)["paths"])


def _responses(paths: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    return dict(paths[path][method]["responses"])


def _error_ref(response: dict[str, Any]) -> str:
    return str(response["content"]["application/json"]["schema"]["$ref"])


@pytest.mark.parametrize(
    ("method", "path", "expected"),
    [
        # A director's write under a tournament: every error.
        ("post", "/api/v1/tournaments/{slug}/tables/", {"400", "401", "403", "404", "415", "429"}),
        (
            "delete",
            "/api/v1/tournaments/{slug}/roles/{role_id}/",
            {"400", "401", "403", "404", "409", "429"},  # 409: the last director, finished
        ),
        # A write without a body still has the services' 400s (a round not over yet...).
        (
            "post",
            "/api/v1/tournaments/{slug}/rounds/{round_id}/advance/",
            {"400", "401", "403", "404", "429"},
        ),
        ("post", "/api/v1/players/", {"400", "401", "403", "415", "429"}),
        # An operation declares its own conflicts.
        (
            "post",
            "/api/v1/tournaments/{slug}/rounds/{round_id}/close/",
            {"400", "401", "403", "404", "409", "429"},
        ),
        # A public read: a bad token is refused (401), nothing is forbidden; a NUL byte in the
        # query string is a 400 (core.request_limits) on every operation.
        ("get", "/api/v1/tournaments/{slug}/tables/", {"400", "401", "404", "429"}),
        ("get", "/api/v1/tournaments/", {"400", "401", "429"}),
        # A read with a filter can reject it (a 400 like every operation).
        ("get", "/api/v1/tournaments/{slug}/matches/", {"400", "401", "404", "429"}),
        # Private reads (directors only) answer 403 too.
        ("get", "/api/v1/tournaments/{slug}/roles/", {"400", "401", "403", "404", "429"}),
        ("get", "/api/v1/tournaments/{slug}/referee-tokens/", {"400", "401", "403", "404", "429"}),
        ("get", "/api/v1/tournaments/{slug}/action-log/", {"400", "401", "403", "404", "429"}),
        (
            "get",
            "/api/v1/tournaments/{slug}/stages/{stage_id}/preview/",
            {"400", "401", "403", "404", "429"},
        ),
    ],
)
def test_each_operation_documents_the_errors_it_can_answer(
    paths: dict[str, Any], method: str, path: str, expected: set[str]
) -> None:
    responses = _responses(paths, method, path)
    errors = {code for code in responses if code.startswith("4")}
    assert errors == expected
    for code in errors - {"409"}:  # a 409 carries the state to recover from (its own shape)
        assert _error_ref(responses[code]) == ERROR_REF, (code, responses[code])
        assert responses[code]["description"]


def test_an_operations_own_description_of_a_status_wins(paths: dict[str, Any]) -> None:
    responses = _responses(paths, "post", "/api/v1/matches/{match_id}/hands/")
    assert responses["409"]["description"].startswith("Stale hand number")
    assert responses["422"]["description"].startswith("Idempotency-Key reused")
    assert responses["403"]["description"] == "Not allowed for this match"
    assert responses["429"]["description"].startswith("Too many wrong tokens")


def test_public_live_reads_have_no_authentication_errors(paths: dict[str, Any]) -> None:
    """The spectators' API authenticates nobody: no 401, 403 or 429 to document (a 400 for a
    NUL byte in the path or query, like every operation)."""
    live = [p for p in paths if p.startswith("/api/v1/live/")]
    assert live
    for path in live:
        assert set(_responses(paths, "get", path)) == {"200", "304", "400", "404"}, path
