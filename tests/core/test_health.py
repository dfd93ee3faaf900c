"""Health probes and the error shape of the API (Foundation issue)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client, override_settings
from django.urls import path
from rest_framework import serializers
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from core.exceptions import ApplicationError, ConflictError


def test_healthz_answers_without_touching_dependencies(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
@pytest.mark.redis
def test_readyz_reports_database_and_redis(client: Client) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json()["checks"] == {"database": "ok", "redis": "ok"}


@pytest.mark.django_db
def test_readyz_names_the_failing_component(client: Client) -> None:
    with override_settings(REDIS_URL="redis://127.0.0.1:1/0"):
        response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["failing"] == ["redis"]
    assert body["checks"]["database"] == "ok"


@pytest.mark.django_db
@pytest.mark.postgres
def test_the_suite_runs_on_postgresql() -> None:
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        assert "PostgreSQL" in cursor.fetchone()[0]


class _Input(serializers.Serializer[dict[str, object]]):
    count = serializers.IntegerField(min_value=0)


@api_view(["POST"])
@permission_classes([AllowAny])
def _validating_view(request: Request) -> Response:
    s = _Input(data=request.data)
    s.is_valid(raise_exception=True)
    return Response(s.validated_data)


@api_view(["POST"])
@permission_classes([AllowAny])
def _app_error_view(request: Request) -> Response:
    raise ApplicationError(
        "Seat 2 (C) must pose (R7)", code="wrong_poser", rule="R7", fields={"poser": ["wrong"]}
    )


@api_view(["POST"])
@permission_classes([AllowAny])
def _conflict_view(request: Request) -> Response:
    raise ConflictError("stale", code="stale_hand_number", extra={"current": {"next": 3}})


urlpatterns = [
    path("v", _validating_view),
    path("a", _app_error_view),
    path("c", _conflict_view),
]


@pytest.mark.urls("tests.core.test_health")
@pytest.mark.django_db
class TestErrorShape:
    def test_serializer_errors_name_the_field(self, client: Client) -> None:
        response = client.post("/v", {"count": -1}, content_type="application/json")
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "invalid"
        assert list(error["fields"]) == ["count"]

    def test_malformed_json_is_a_400(self, client: Client) -> None:
        response = client.post("/v", "{not json", content_type="application/json")
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "parse_error"

    def test_application_error_carries_rule(self, client: Client) -> None:
        response = client.post("/a", {}, content_type="application/json")
        assert response.status_code == 400
        assert response.json() == {
            "error": {
                "code": "wrong_poser",
                "message": "Seat 2 (C) must pose (R7)",
                "fields": {"poser": ["wrong"]},
                "rule": "R7",
            }
        }

    def test_conflict_is_409_with_extra(self, client: Client) -> None:
        response = client.post("/c", {}, content_type="application/json")
        assert response.status_code == 409
        assert response.json()["error"]["current"] == {"next": 3}


@pytest.mark.django_db
def test_openapi_schema_and_docs_are_served(client: Client) -> None:
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    assert b"openapi" in schema.content
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"swagger" in docs.content.lower()


@pytest.mark.django_db
def test_unknown_page_is_the_html_404(client: Client) -> None:
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert b"Page not found" in response.content


@pytest.mark.django_db
def test_openapi_schema_validates_without_warnings(tmp_path: Path) -> None:
    # --fail-on-warn turns enum-name collisions and unresolvable serializers into failures.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yml"))
    assert (tmp_path / "s.yml").read_text().startswith("openapi:")


def test_favicon_is_the_sites_icon(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("icons/domino.svg")
    from django.contrib.staticfiles import finders

    assert finders.find("icons/domino.svg")  # the file the redirect names is shipped


def test_healthz_is_never_cached(client: Client) -> None:
    assert "no-cache" in client.get("/healthz")["Cache-Control"]
