"""Refusals made before DRF runs answer the API's JSON error shape under /api/ (issue 20).

Found by the fuzzer (status_code_conformance and the error shape): a CSRF failure on the
session login and a django-axes lockout answered HTML pages.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db


def _login(client: Client, password: str, **extra: str) -> tuple[int, dict[str, object], str]:
    r = client.post(
        "/api/auth/login/",
        data=json.dumps({"username": "td", "password": password}),
        content_type="application/json",
        **extra,
    )
    return r.status_code, json.loads(r.content), r.headers.get("Content-Type", "")


def test_a_csrf_failure_answers_the_error_shape() -> None:
    status, body, content_type = _login(Client(enforce_csrf_checks=True), "whatever")
    assert status == 403
    assert content_type.startswith("application/json")
    assert body["error"]["code"] == "csrf_failed"  # type: ignore[index]


def test_a_login_lockout_answers_the_error_shape_with_retry_after(settings: object) -> None:
    get_user_model().objects.create_user("td", password="the right password")
    client = Client(REMOTE_ADDR="203.0.113.77")
    limit = settings.AXES_FAILURE_LIMIT  # type: ignore[attr-defined]
    for _ in range(limit):
        _login(client, "wrong")
    r = client.post(
        "/api/auth/login/",
        data=json.dumps({"username": "td", "password": "wrong"}),
        content_type="application/json",
    )
    assert r.status_code == 429
    assert r.headers["Content-Type"].startswith("application/json")
    assert json.loads(r.content)["error"]["code"] == "throttled"
    assert int(r.headers["Retry-After"]) > 0
