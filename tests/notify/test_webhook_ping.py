"""The director's "Send a test event" button (issue 16): a ``ping`` to one endpoint through
the same signed outbox path as real events, listed in the delivery log; a repeated submission
sends once; directors only (the route table's ``notify:webhook-ping`` row)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from core.exceptions import ApplicationError, NotFoundError, PermissionDeniedError
from notify import services
from notify.models import WebhookDelivery
from tests.factories import UserFactory, director_of
from tests.notify.conftest import add_endpoint, seeded_stage
from tests.notify.receivers import WebhookReceiver
from tournament.context import Action, route_actions
from tournament.models import ActionLog

pytestmark = pytest.mark.django_db


def _ping_form(html: str, endpoint_id: int) -> tuple[str, str]:
    """(action, key) of the page's test-event form of ``endpoint_id``."""
    form = re.search(
        rf'<form method="post" action="([^"]*/webhooks/{endpoint_id}/ping/)"[^>]*>.*?'
        r'name="key" value="([^"]+)"',
        html,
        re.S,
    )
    assert form is not None, "no test-event form"
    return form.group(1), form.group(2)


def test_the_button_sends_a_signed_ping_logged_like_any_delivery(
    receiver: WebhookReceiver, django_capture_on_commit_callbacks: Any
) -> None:
    tournament, director, _ = seeded_stage(4)
    endpoint = add_endpoint(tournament, director, receiver, events=["match_finished"])
    client = Client()
    client.force_login(director)
    page_url = reverse("notify:webhooks", args=[tournament.slug])
    page = client.get(page_url).content.decode()
    assert "Send a test event" in page
    add_form = page.split('id="webhook-add"')[1].split("</form>")[0]
    assert 'value="ping"' not in add_form  # not an event to subscribe to
    action, key = _ping_form(page, endpoint.pk)
    with django_capture_on_commit_callbacks(execute=True):
        sent = client.post(action, {"key": key})
    assert sent.status_code == 302
    [got] = receiver.requests
    assert got.verified  # signed with the endpoint's secret, as real events are
    assert got.event == "ping"
    assert got.body["tournament"] == {"id": tournament.pk, "slug": tournament.slug}
    assert got.body["data"]["endpoint"] == {"id": endpoint.pk, "events": ["match_finished"]}
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert (delivery.event, delivery.status, delivery.attempts) == ("ping", "delivered", 1)
    assert got.delivery_id == str(delivery.pk)
    log = client.get(page_url).content.decode()
    assert str(delivery.pk) in log
    assert "<td><code>ping</code></td>" in log
    assert ActionLog.objects.filter(tournament=tournament, verb="webhook.ping").count() == 1
    # The same form submitted again (a double tap) sends nothing more.
    with django_capture_on_commit_callbacks(execute=True):
        client.post(action, {"key": key})
    assert WebhookDelivery.objects.filter(endpoint=endpoint).count() == 1
    assert len(receiver.requests) == 1
    # A fresh page load is a new test event.
    _, key2 = _ping_form(client.get(page_url).content.decode(), endpoint.pk)
    assert key2 != key
    with django_capture_on_commit_callbacks(execute=True):
        client.post(action, {"key": key2})
    assert WebhookDelivery.objects.filter(endpoint=endpoint, event="ping").count() == 2


def test_ping_is_not_a_subscribable_event(receiver: WebhookReceiver) -> None:
    tournament, director, _ = seeded_stage(4)
    with pytest.raises(ApplicationError) as refused:
        add_endpoint(tournament, director, receiver, events=["ping"])
    assert "events" in refused.value.fields


def test_a_disabled_or_foreign_endpoint_gets_no_ping(receiver: WebhookReceiver) -> None:
    tournament, director, _ = seeded_stage(4)
    endpoint = add_endpoint(tournament, director, receiver)
    other, other_director, _ = seeded_stage(4)
    with pytest.raises(NotFoundError):
        services.endpoint_ping(
            tournament=other, actor=other_director, endpoint_id=endpoint.pk, key="k1"
        )
    services.endpoint_disable(tournament=tournament, actor=director, endpoint_id=endpoint.pk)
    with pytest.raises(ApplicationError) as disabled:
        services.endpoint_ping(
            tournament=tournament, actor=director, endpoint_id=endpoint.pk, key="k2"
        )
    assert disabled.value.code == "webhook_disabled"
    with pytest.raises(ApplicationError) as no_key:
        services.endpoint_ping(
            tournament=tournament, actor=director, endpoint_id=endpoint.pk, key=""
        )
    assert "key" in no_key.value.fields
    # No such webhook is a 404 whatever the key, as disable answers (it named the key).
    with pytest.raises(NotFoundError):
        services.endpoint_ping(tournament=tournament, actor=director, endpoint_id=0, key="")
    assert not WebhookDelivery.objects.exists()


def test_only_this_tournaments_directors_may_ping(receiver: WebhookReceiver) -> None:
    assert route_actions("notify:webhook-ping") == {"POST": Action.MANAGE}
    tournament, director, _ = seeded_stage(4)
    endpoint = add_endpoint(tournament, director, receiver)
    url = reverse("notify:webhook-ping", args=[tournament.slug, endpoint.pk])
    client = Client()
    assert client.post(url, {"key": "a"}).status_code == 302  # to the login page
    client.force_login(UserFactory())
    assert client.post(url, {"key": "a"}).status_code == 403
    client.force_login(director_of(seeded_stage(4)[0]))
    assert client.post(url, {"key": "a"}).status_code == 403
    with pytest.raises(PermissionDeniedError):
        services.endpoint_ping(
            tournament=tournament, actor=UserFactory(), endpoint_id=endpoint.pk, key="a"
        )
    assert not WebhookDelivery.objects.exists()
