"""The webhooks API (``/api/tournaments/<slug>/webhooks/``): a director's script adds a
receiver (its secret in that answer only), lists receivers and their delivery log, sends a
test event (once per Idempotency-Key) and disables a receiver; the same checks and action log
as the director's page. Nobody else reaches it, whatever they hold (chains of calls included);
another tournament's receiver is a 404 under this tournament's URL."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from notify.models import WebhookDelivery, WebhookEndpoint
from tests.factories import UserFactory
from tests.notify.conftest import add_endpoint, seeded_stage
from tests.notify.receivers import WebhookReceiver
from tournament import services as tournament_services
from tournament.models import ActionLog

pytestmark = pytest.mark.django_db


def _base(slug: str) -> str:
    return f"/api/v1/tournaments/{slug}/webhooks/"


def _director(director: Any) -> Client:
    client = Client()
    client.force_login(director)
    return client


def test_a_director_adds_a_receiver_and_sees_its_secret_once(receiver: WebhookReceiver) -> None:
    tournament, director, _ = seeded_stage(4)
    client = _director(director)
    created = client.post(
        _base(tournament.slug),
        {"url": receiver.url("/api"), "events": ["match_finished"], "description": "board"},
        content_type="application/json",
    )
    assert created.status_code == 201, created.content
    assert created["Cache-Control"] == "no-store"
    body = created.json()
    endpoint = WebhookEndpoint.objects.get(pk=body["id"])
    assert body["secret"] == endpoint.secret
    assert (body["url"], body["events"], body["description"], body["active"]) == (
        receiver.url("/api"),
        ["match_finished"],
        "board",
        True,
    )
    assert ActionLog.objects.filter(verb="webhook.create", tournament=tournament).count() == 1
    listed = client.get(_base(tournament.slug)).json()
    assert [e["id"] for e in listed["results"]] == [endpoint.pk]
    assert listed["results"][0]["secret"] is None  # never again
    one = client.get(f"{_base(tournament.slug)}{endpoint.pk}/").json()
    assert one["secret"] is None
    assert endpoint.secret not in client.get(_base(tournament.slug)).content.decode()


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({"url": "gopher://x", "events": ["round_published"]}, "url", "http and https"),
        ({"url": "", "events": ["round_published"]}, "url", "receiver's URL"),
        ({"url": "https://hooks.example.org/", "events": []}, "events", "round_published"),
        ({"url": "https://hooks.example.org/", "events": ["ping"]}, "events", "Choose one"),
        ({"url": "https://a.example.org/", "events": "round_published"}, "events", ""),
    ],
)
def test_a_refused_receiver_names_the_field_and_adds_nothing(
    data: dict[str, Any], field: str, words: str
) -> None:
    tournament, director, _ = seeded_stage(4)
    response = _director(director).post(
        _base(tournament.slug), data, content_type="application/json"
    )
    assert response.status_code == 400, response.content
    assert field in str(response.json()["error"]["fields"])
    assert words in str(response.json())
    assert not WebhookEndpoint.objects.exists()


def test_ping_sends_once_per_key_and_lists_in_the_delivery_log(
    receiver: WebhookReceiver, django_capture_on_commit_callbacks: Any
) -> None:
    tournament, director, _ = seeded_stage(4)
    endpoint = add_endpoint(tournament, director, receiver)
    client = _director(director)
    url = f"{_base(tournament.slug)}{endpoint.pk}/ping/"
    with django_capture_on_commit_callbacks(execute=True):
        first = client.post(url, HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == 202, first.content
    again = client.post(url, HTTP_IDEMPOTENCY_KEY="k-1")
    assert again.status_code == 200
    assert again.json()["id"] == first.json()["id"]
    assert WebhookDelivery.objects.filter(endpoint=endpoint, event="ping").count() == 1
    assert len(receiver.requests) == 1
    assert receiver.requests[0].verified  # signed with the secret
    log = client.get(f"{_base(tournament.slug)}{endpoint.pk}/deliveries/").json()
    assert [d["id"] for d in log["results"]] == [first.json()["id"]]
    assert log["results"][0]["status"] == "delivered"
    pending = client.get(f"{_base(tournament.slug)}{endpoint.pk}/deliveries/?status=pending")
    assert pending.json()["count"] == 0
    bad = client.get(f"{_base(tournament.slug)}{endpoint.pk}/deliveries/?status=lost")
    assert bad.status_code == 400
    assert "status" in bad.json()["error"]["fields"]
    long_key = client.post(url, HTTP_IDEMPOTENCY_KEY="x" * 65)
    assert long_key.status_code == 400
    assert "Idempotency-Key" in long_key.json()["error"]["fields"]


def test_disable_stops_sending_and_a_ping_then_conflicts(receiver: WebhookReceiver) -> None:
    tournament, director, _ = seeded_stage(4)
    endpoint = add_endpoint(tournament, director, receiver)
    client = _director(director)
    disabled = client.post(f"{_base(tournament.slug)}{endpoint.pk}/disable/")
    assert disabled.status_code == 200
    assert disabled.json()["active"] is False
    assert disabled.json()["disabled_at"] is not None
    again = client.post(f"{_base(tournament.slug)}{endpoint.pk}/disable/")
    assert again.status_code == 200  # the same answer
    ping = client.post(f"{_base(tournament.slug)}{endpoint.pk}/ping/")
    assert ping.status_code == 409
    assert ping.json()["error"]["code"] == "webhook_disabled"


def test_nobody_else_reaches_it_and_another_tournaments_receiver_is_not_found(
    receiver: WebhookReceiver,
) -> None:
    tournament, director, _ = seeded_stage(4)
    other, other_director, _ = seeded_stage(4)
    endpoint = add_endpoint(tournament, director, receiver)
    theirs = add_endpoint(other, other_director, receiver, path="/theirs")
    referee = tournament_services.referee_create(
        tournament=tournament, actor=director, username="hook-ref"
    )
    key = tournament_services.referee_token_issue(
        tournament=tournament, actor=director, user=referee.user
    ).key  # type: ignore[attr-defined]
    spectator = Client()
    spectator.force_login(UserFactory())
    credential = Client(HTTP_AUTHORIZATION=f"Token {key}")
    elsewhere = _director(other_director)
    create = {"url": receiver.url("/x"), "events": ["round_published"]}
    for who, client in (
        ("anonymous", Client()),
        ("spectator", spectator),
        ("referee credential", credential),
        ("director elsewhere", elsewhere),
    ):
        base = _base(tournament.slug)
        assert client.get(base).status_code in (401, 403), who
        assert client.get(f"{base}{endpoint.pk}/deliveries/").status_code in (401, 403), who
        assert client.post(base, create, content_type="application/json").status_code in (
            401,
            403,
        ), who
        assert client.post(f"{base}{endpoint.pk}/disable/").status_code in (401, 403), who
        assert client.post(f"{base}{endpoint.pk}/ping/").status_code in (401, 403), who
    # A referee credential that reads its own tournament's API cannot chain into a webhook
    # (which would stream every hand to an address of its choosing).
    assert credential.get(f"/api/v1/tournaments/{tournament.slug}/").status_code == 200
    assert WebhookEndpoint.objects.filter(tournament=tournament).count() == 1
    assert WebhookEndpoint.objects.filter(tournament=other).count() == 1
    # This tournament's director, with the other tournament's receiver id: 404, nothing changes.
    mine = _director(director)
    base = _base(tournament.slug)
    assert mine.get(f"{base}{theirs.pk}/").status_code == 404
    assert mine.get(f"{base}{theirs.pk}/deliveries/").status_code == 404
    assert mine.post(f"{base}{theirs.pk}/disable/").status_code == 404
    assert mine.post(f"{base}{theirs.pk}/ping/").status_code == 404
    theirs.refresh_from_db()
    assert theirs.active
    assert not WebhookDelivery.objects.filter(endpoint=theirs).exists()
    endpoint.refresh_from_db()
    assert endpoint.active


def test_a_fresh_web_process_enqueues_a_delivery_without_a_worker_having_run() -> None:
    """Celery's task autodiscovery runs in workers only: a web process that never imported
    ``notify.tasks`` must still find the send task (it answered ``NotRegistered``, so a new
    process's first pings and events waited for the outbox sweep)."""
    import os
    import subprocess
    import sys

    code = (
        "import django; django.setup()\n"
        "from notify import services\n"
        "services.enqueue('00000000-0000-0000-0000-000000000000')\n"
        "print('queued')\n"
    )
    env = {
        **os.environ,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "CELERY_BROKER_URL": "memory://",
    }
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "queued" in result.stdout


def test_a_url_that_already_receives_the_events_is_refused_until_disabled(
    receiver: WebhookReceiver,
) -> None:
    """One active receiver a URL: a second would sign every event twice (a resent request, a
    page re-posted by a reload). Disabling the first lets the director add it again, with a
    new secret; another tournament may use the same URL."""
    tournament, director, _ = seeded_stage(4)
    client = _director(director)
    body = {"url": receiver.url("/api"), "events": ["match_finished"]}
    first = client.post(_base(tournament.slug), body, content_type="application/json")
    assert first.status_code == 201, first.content
    again = client.post(_base(tournament.slug), body, content_type="application/json")
    assert again.status_code == 400, again.content
    error = again.json()["error"]
    assert error["code"] == "duplicate_webhook"
    assert "url" in error["fields"]
    assert WebhookEndpoint.objects.filter(tournament=tournament).count() == 1
    other, other_director, _ = seeded_stage(4)
    theirs = _director(other_director).post(
        _base(other.slug), body, content_type="application/json"
    )
    assert theirs.status_code == 201, theirs.content
    client.post(f"{_base(tournament.slug)}{first.json()['id']}/disable/")
    readded = client.post(_base(tournament.slug), body, content_type="application/json")
    assert readded.status_code == 201, readded.content
    assert readded.json()["secret"] != first.json()["secret"]
