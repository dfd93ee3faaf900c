"""The webhooks and e-mail pages offer only the forms the tournament's status allows (QA: a
finished tournament still showed "Add a webhook", whose POST then failed with a lifecycle
error). The pages ask the services' own rule (tournament.context: the permission table and
STATUS_GATES, which ``require_actor`` applies), so page and service never disagree."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from core.exceptions import ApplicationError
from notify.models import WebhookEndpoint
from tests.notify.conftest import add_endpoint, seeded_stage
from tests.notify.receivers import WebhookReceiver
from tournament.context import Action, require_actor
from tournament.models import Tournament

pytestmark = pytest.mark.django_db


def _pages(client: Client, slug: str) -> tuple[str, str]:
    webhooks = client.get(reverse("notify:webhooks", args=[slug]))
    emails = client.get(reverse("notify:emails", args=[slug]))
    assert webhooks.status_code == emails.status_code == 200
    return webhooks.content.decode(), emails.content.decode()


def test_a_finished_tournament_shows_its_webhooks_and_addresses_without_forms(
    receiver: WebhookReceiver,
) -> None:
    tournament, director, _ = seeded_stage(8)
    endpoint = add_endpoint(tournament, director, receiver)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(director)

    webhooks, emails = _pages(client, tournament.slug)
    assert 'id="webhook-add"' in webhooks
    assert f"/webhooks/{endpoint.pk}/ping/" in webhooks
    assert f"/webhooks/{endpoint.pk}/disable/" in webhooks
    assert 'id="webhooks-read-only"' not in webhooks
    assert "Save addresses" in emails
    assert 'id="emails-read-only"' not in emails

    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    webhooks, emails = _pages(client, tournament.slug)
    assert endpoint.url in webhooks  # still listed, with its delivery log
    assert 'id="webhook-add"' not in webhooks
    assert "Add webhook" not in webhooks
    assert f"/webhooks/{endpoint.pk}/ping/" not in webhooks
    assert f"/webhooks/{endpoint.pk}/disable/" not in webhooks
    assert "The tournament's status is “Finished”: webhooks cannot be added" in webhooks
    assert "Save addresses" not in emails
    assert '<fieldset class="plain" disabled>' in emails
    assert "The tournament's status is “Finished”: the addresses cannot be changed" in emails


def test_the_note_is_in_spanish_on_the_spanish_page() -> None:
    tournament, director, _ = seeded_stage(4)
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    client = Client(HTTP_ACCEPT_LANGUAGE="es")
    client.force_login(director)
    webhooks, emails = _pages(client, tournament.slug)
    assert "El estado del torneo es «Terminado»: ahora no se pueden añadir" in webhooks
    assert "El estado del torneo es «Terminado»: ahora no se pueden cambiar" in emails


@pytest.mark.parametrize("status", [s.value for s in Tournament.Status])
def test_the_add_form_is_shown_exactly_when_the_service_would_accept_it(status: str) -> None:
    tournament, director, _ = seeded_stage(4)
    Tournament.objects.filter(pk=tournament.pk).update(status=status)
    tournament.refresh_from_db()
    try:
        require_actor(director, tournament, Action.MANAGE)  # what endpoint_create checks first
        allowed = True
    except ApplicationError:
        allowed = False
    client = Client()
    client.force_login(director)
    webhooks, emails = _pages(client, tournament.slug)
    assert ('id="webhook-add"' in webhooks) is allowed
    assert ("Save addresses" in emails) is allowed
    if not allowed:
        # and a POST that bypasses the page is still refused by the service, adding nothing
        response = client.post(
            reverse("notify:webhooks", args=[tournament.slug]),
            {"url": "https://example.com/hook", "events": ["round_published"]},
        )
        assert response.status_code == 400
        assert not WebhookEndpoint.objects.filter(tournament=tournament).exists()


def test_the_tables_that_scroll_on_a_phone_can_be_reached_by_keyboard(
    receiver: WebhookReceiver,
) -> None:
    """axe at 390 px (scrollable-region-focusable): the deliveries table scrolls sideways on a
    phone and holds nothing focusable, so its box is a labelled region in the tab order."""
    tournament, director, _ = seeded_stage(4)
    add_endpoint(tournament, director, receiver)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(director)
    webhooks, _ = _pages(client, tournament.slug)
    boxes = re.findall(r'<div class="table-scroll"([^>]*)>\s*<table id="([^"]+)"', webhooks)
    assert {table for _, table in boxes} == {"webhook-endpoints", "webhook-deliveries"}
    for attrs, table in boxes:
        assert 'role="region"' in attrs, table
        assert 'tabindex="0"' in attrs, table
        (heading,) = re.findall(r'aria-labelledby="([^"]+)"', attrs)
        assert f'<h2 id="{heading}">' in webhooks, table
