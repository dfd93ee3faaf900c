"""A page open before the tournament finished, sent after: the refusal names the Lifecycle
page in words, never the API's internal ``rule`` label.

Found by a director's walkthrough on ``make demo``: with the Settings, Referees and Directors
pages open, the final's last hand finished the event; pressing Save / Create referee / Create
invitation then read "... reopen the tournament first (Lifecycle page; the reason is logged).
(lifecycle)" or "... [rule lifecycle]": "lifecycle" is the code the API's error carries for
programs (``tournament.context.require_status``), not a rule of RULES.md a director can look
up. The Players page already left it out (``brackets.views.base.error_text``); a rule number
(T7, R33) is still named.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from core.exceptions import readable_rule
from tests.factories import TournamentFactory, director_of
from tournament.models import Tournament

pytestmark = pytest.mark.django_db

REOPEN = "reopen the tournament first (Lifecycle page; the reason is logged)."


def _finished() -> tuple[Tournament, Client]:
    tournament = TournamentFactory(status=Tournament.Status.FINISHED)
    client = Client()
    client.force_login(director_of(tournament))
    return tournament, client


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _assert_plain_refusal(html: str) -> None:
    text = _text(html)
    assert REOPEN in text, text[:3000]
    assert "lifecycle)" not in text
    assert "[rule lifecycle]" not in text


def test_settings_saved_after_the_finish_says_so_without_the_code() -> None:
    tournament, client = _finished()
    response = client.post(
        reverse("brackets:settings", args=[tournament.slug]),
        {"name": tournament.name, "venue": "Hall B", "ruleset_preset": "wsod"},
    )
    assert response.status_code == 400
    _assert_plain_refusal(response.content.decode())
    tournament.refresh_from_db()
    assert tournament.venue == "Hall A"


def test_referee_created_after_the_finish_says_so_without_the_code() -> None:
    tournament, client = _finished()
    response = client.post(
        reverse("tournament:referees", args=[tournament.slug]),
        {"op": "create", "username": "ana", "display_name": "Ana"},
        follow=True,
    )
    _assert_plain_refusal(response.content.decode())


def test_invitation_created_after_the_finish_says_so_without_the_code() -> None:
    tournament, client = _finished()
    response = client.post(
        reverse("tournament:directors", args=[tournament.slug]),
        {"op": "issue", "label": "Luis"},
        follow=True,
    )
    _assert_plain_refusal(response.content.decode())


def test_a_rules_number_is_still_named_and_a_code_is_not() -> None:
    assert readable_rule("T7") == "T7"
    assert readable_rule("R31c") == "R31c"
    assert readable_rule("§1") == "§1"
    assert readable_rule("lifecycle") is None
    assert readable_rule("confirmation") is None
    assert readable_rule(None) is None


@pytest.mark.parametrize(
    "url_name",
    [
        "scoring:director-dashboard",
        "brackets:settings",
        "brackets:import",
        "brackets:stages",
        "tournament:referees",
        "tournament:directors",
        "scoring:dispute-queue",
        "notify:webhooks",
    ],
)
def test_every_director_page_of_a_finished_tournament_says_so_before_its_forms(
    url_name: str,
) -> None:
    """A finished tournament is read-only (README, Lifecycle): its pages still draw their
    forms, so each says at the top that nothing can be changed and links the Lifecycle page,
    where it may be reopened. Not on the Lifecycle page itself, nor before the finish."""
    tournament, client = _finished()
    lifecycle = reverse("tournament:lifecycle", args=[tournament.slug])
    html = client.get(reverse(url_name, args=[tournament.slug])).content.decode()
    assert 'id="finished-banner"' in html
    assert "This tournament is finished: nothing in it can be changed." in _text(html)
    assert f'<a href="{lifecycle}">Lifecycle</a>' in html
    assert 'id="finished-banner"' not in client.get(lifecycle).content.decode()
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.RUNNING)
    html = client.get(reverse(url_name, args=[tournament.slug])).content.decode()
    assert 'id="finished-banner"' not in html
