"""Request ids, metrics, log redaction, task headers and the consistency check (issue 14)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.test import APIClient

from core import observability as obs
from scoring.engine import Ruleset
from scoring.engine.simulate import simulate_match
from scoring.models import Match
from tests.factories import TournamentFactory, match_in_progress, referee_of

ROOT = Path(__file__).resolve().parents[2]


def _sample(name: str, labels: dict[str, str] | None = None) -> float:
    from prometheus_client import REGISTRY

    return float(REGISTRY.get_sample_value(name, labels or {}) or 0.0)


@pytest.mark.django_db
def test_a_valid_request_id_is_kept_and_answered(client: Client) -> None:
    response = client.get("/healthz", HTTP_X_REQUEST_ID="abcdef0123456789")
    assert response["X-Request-ID"] == "abcdef0123456789"


@pytest.mark.django_db
@pytest.mark.parametrize("given", ["", "short", "bad id with spaces", "x" * 65, "<script>"])
def test_an_unusable_request_id_is_replaced(client: Client, given: str) -> None:
    response = client.get("/healthz", HTTP_X_REQUEST_ID=given)
    assert response["X-Request-ID"] != given
    assert len(response["X-Request-ID"]) == 32


@pytest.mark.django_db
def test_metrics_answer_404_without_a_configured_token(client: Client, settings: Any) -> None:
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("header", ["", "Bearer wrong", "Basic c2VjcmV0", "bearer s3cret-token"])
def test_metrics_answer_404_to_a_wrong_token(client: Client, settings: Any, header: str) -> None:
    settings.METRICS_TOKEN = "s3cret-token"
    assert client.get("/metrics", HTTP_AUTHORIZATION=header).status_code == 404


@pytest.mark.django_db
def test_metrics_with_the_token_count_requests_by_route(client: Client, settings: Any) -> None:
    settings.METRICS_TOKEN = "s3cret-token"
    client.get("/healthz")
    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-token")
    assert response.status_code == 200
    text = response.content.decode()
    assert 'cutthroat_http_request_duration_seconds_count{method="GET",route="healthz"' in text
    assert "cutthroat_celery_queue_depth" in text


@pytest.mark.django_db
def test_hands_recorded_and_rejected_are_counted_by_rule() -> None:
    tournament = TournamentFactory(status="running")
    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee)
    api = APIClient()
    api.force_authenticate(referee)
    sim = simulate_match(Ruleset.from_json(match.ruleset), 4, 3)
    body = {"number": 1, **sim.records[0].to_dict()}
    body.pop("sporting", None)
    recorded, rejected = _sample("cutthroat_hands_recorded_total"), _rejected()
    url = f"/api/matches/{match.pk}/hands/"
    assert api.post(url, body, format="json").status_code == 201
    again = api.post(url, body, format="json")  # the same number again, no idempotency key
    assert again.status_code == 409
    error = again.json()["error"]
    assert _sample("cutthroat_hands_recorded_total") == recorded + 1
    key = (error["code"], error.get("rule") or "none")
    assert _rejected().get(key, 0.0) == rejected.get(key, 0.0) + 1


def _rejected() -> dict[tuple[str, str], float]:
    from prometheus_client import REGISTRY

    return {
        (s.labels["code"], s.labels["rule"]): s.value
        for family in REGISTRY.collect()
        if family.name == "cutthroat_hands_rejected"
        for s in family.samples
        if s.name == "cutthroat_hands_rejected_total"
    }


def test_log_records_carry_the_request_id_and_no_referee_key() -> None:
    token = obs.request_id_var.set("rid-0123456789")
    try:
        record = logging.LogRecord(
            "django.request", logging.WARNING, __file__, 1, "Not Found: %s", ("/ref/K3Y/",), None
        )
        record.request = SimpleNamespace(method="GET", path="/ref/K3Y/")
        assert obs.RequestIdFilter().filter(record)
    finally:
        obs.request_id_var.reset(token)
    assert record.request_id == "rid-0123456789"  # type: ignore[attr-defined]
    assert "K3Y" not in record.getMessage()
    assert record.request == "GET /ref/[redacted]/"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("path", "logged"),
    [
        ("/ref/abc123/", "/ref/[redacted]/"),
        ("/ref/abc123/?next=/x", "/ref/[redacted]/"),
        ("/api/live/open/?k=secret", "/api/live/open/"),
        ("/matches/3/", "/matches/3/"),
        # a co-director invitation's key typed into a path instead of after its "#"
        ("/invite/abc123.def", "/invite/[redacted]"),
        ("/invite/", "/invite/"),
    ],
)
def test_access_log_paths_hold_no_secret(path: str, logged: str) -> None:
    assert obs.loggable_path(path) == logged


def test_gunicorn_access_line_is_json_without_query_or_authorization() -> None:
    import datetime

    from gunicorn.config import Config

    from config.gunicorn import SafeAccessLogger

    cfg = Config()
    cfg.set("accesslog", "-")
    logger = SafeAccessLogger(cfg)
    lines: list[str] = []
    logger.access_log = SimpleNamespace(info=lines.append)
    req = SimpleNamespace(
        headers=[
            ("AUTHORIZATION", "Bearer topsecret"),
            ("X-REQUEST-ID", "rid-1"),
            ("REFERER", "https://x/ref/K3Y/"),
        ]
    )
    environ = {"REMOTE_ADDR": "10.0.0.1", "REQUEST_METHOD": "GET", "PATH_INFO": "/ref/K3Y/"}
    resp = SimpleNamespace(status_code=302, status="302 Found", sent=0)
    logger.access(resp, req, environ, datetime.timedelta(milliseconds=12))
    line = json.loads(lines[0])
    assert line["path"] == "/ref/[redacted]/"
    assert line["request_id"] == "rid-1"
    assert "topsecret" not in lines[0]
    assert "K3Y" not in lines[0]


def test_a_task_published_during_a_request_carries_its_id_to_the_worker() -> None:
    headers: dict[str, Any] = {}
    token = obs.request_id_var.set("rid-from-request")
    try:
        obs.on_before_task_publish(headers=headers)
    finally:
        obs.request_id_var.reset(token)
    assert headers["request_id"] == "rid-from-request"
    task = SimpleNamespace(
        name="scoring.match_finished_notify",
        request=SimpleNamespace(request_id=headers["request_id"], published_at=None),
    )
    before = _sample(
        "cutthroat_celery_tasks_total",
        {"task": "scoring.match_finished_notify", "outcome": "success"},
    )
    obs.on_task_prerun(task_id="t1", task=task)
    assert obs.request_id_var.get() == "rid-from-request"
    obs.on_task_postrun(task_id="t1", task=task, state="SUCCESS")
    assert obs.request_id_var.get() == "-"
    after = _sample(
        "cutthroat_celery_tasks_total",
        {"task": "scoring.match_finished_notify", "outcome": "success"},
    )
    assert after == before + 1


def _settings_in_child(env: dict[str, str], expr: str) -> Any:
    clean = {k: v for k, v in os.environ.items() if "REDIS" not in k and "CELERY" not in k}
    code = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        f"print(json.dumps({expr}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings.local", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


EXPR = (
    "[s.CACHES['default'].get('LOCATION'), s.CELERY_BROKER_URL,"
    " s.CHANNEL_LAYERS['default']['CONFIG']['hosts'][0]['address'], s.CELERY_TASK_ALWAYS_EAGER]"
)


def test_each_redis_role_falls_back_to_redis_url() -> None:
    got = _settings_in_child({"REDIS_URL": "redis://r:6379/0"}, EXPR)
    assert got == ["redis://r:6379/0"] * 3 + [False]


def test_each_redis_role_can_have_its_own_url() -> None:
    got = _settings_in_child(
        {
            "REDIS_URL": "redis://r:6379/0",
            "CACHE_REDIS_URL": "redis://cache:6379/0",
            "CELERY_BROKER_URL": "redis://broker:6379/0",
            "CHANNEL_REDIS_URL": "redis://channels:6379/0",
        },
        EXPR,
    )
    assert got == [
        "redis://cache:6379/0",
        "redis://broker:6379/0",
        "redis://channels:6379/0",
        False,
    ]


@pytest.mark.django_db
def test_check_consistency_passes_on_recorded_hands_and_names_a_corrupted_match() -> None:
    tournament = TournamentFactory(status="running")
    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee)
    api = APIClient()
    api.force_authenticate(referee)
    sim = simulate_match(Ruleset.from_json(match.ruleset), 4, 5)
    for number, record in enumerate(sim.records[:4], start=1):
        body = {"number": number, **record.to_dict()}
        body.pop("sporting", None)
        assert api.post(f"/api/matches/{match.pk}/hands/", body, format="json").status_code == 201
    call_command("check_consistency")
    match.refresh_from_db()
    Match.objects.filter(pk=match.pk).update(scores=[s + 1 for s in match.scores])
    with pytest.raises(CommandError, match="1 inconsistencies"):
        call_command("check_consistency")
