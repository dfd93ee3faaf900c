"""The round clock (T2, T3) where people need it: the director's dashboard and the referee's
match page show the round's time left with the spectators' partial (templates/live/_clock.html,
counted down by static/js/clock.js), and every clock counts its minutes in proper plural forms.

Bug: after "Start the clock" only the round page and the spectators' Tables page showed it; the
dashboard and the referee's phone showed no time left, and the pages said "1 minutes". Now both
show it, with "Time!" (on the phone: what T3 asks of the table) when it runs out.
"""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from brackets.models import Round, RoundMatch
from brackets.services import round_clock_start, round_publish, stage_seed
from tests.brackets.factories_pages import director_client, tournament_with_stage

pytestmark = pytest.mark.django_db


def published_round(minutes: int) -> tuple[Any, Any, Round, Client]:
    tournament, director, stage = tournament_with_stage(8, time_limit=minutes)
    stage_seed(stage=stage, actor=director, method="rating")
    round_publish(stage=stage, actor=director)
    rnd = Round.objects.get(stage=stage, number=1)
    return tournament, director, rnd, director_client(director)


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def test_the_dashboard_shows_the_round_clock_and_its_time_left() -> None:
    tournament, director, rnd, client = published_round(1)
    url = reverse("scoring:director-dashboard", args=[tournament.slug])
    before = page(client, url)
    assert f'id="round-clock-{rnd.pk}"' in before
    assert "1 minute, not started" in before
    assert "1 minutes" not in before

    rnd = round_clock_start(round=rnd, actor=director)
    after = page(client, url)
    assert rnd.clock_ends_at is not None
    assert f'data-clock-ends="{rnd.clock_ends_at.isoformat()}"' in after
    assert 'data-label-over="Time!"' in after
    assert "(1 minute)" in after
    assert "js/clock.js" in after
    # The rows the page re-reads live carry it too.
    rows = page(client, reverse("scoring:director-dashboard-rows", args=[tournament.slug]))
    assert f'data-clock-ends="{rnd.clock_ends_at.isoformat()}"' in rows


def test_the_referee_page_shows_the_round_clock_and_what_time_means() -> None:
    _tournament, director, rnd, client = published_round(25)
    match_id = RoundMatch.objects.filter(round=rnd).values_list("match_id", flat=True)[0]
    panel_url = reverse("scoring:match-panel", args=[match_id])
    assert 'id="round-clock"></dl>' not in page(client, panel_url)  # 25 minutes, not started
    rnd = round_clock_start(round=rnd, actor=director)
    assert rnd.clock_ends_at is not None
    for url in (reverse("scoring:match-referee", args=[match_id]), panel_url):
        body = page(client, url)
        assert f'data-clock-ends="{rnd.clock_ends_at.isoformat()}"' in body
        assert "(25 minutes)" in body
        # T3: the hand in progress is finished, then the match stops.
        assert (
            'data-label-over="Time! Finish the hand in progress and record it: then the match '
            'stops (T3)."'
        ) in body
    assert "js/clock.js" in page(client, reverse("scoring:match-referee", args=[match_id]))


def test_the_spectators_clock_counts_one_minute_in_the_singular() -> None:
    tournament, director, rnd, _client = published_round(1)
    url = reverse("live:tables", kwargs={"slug": tournament.slug})
    round_clock_start(round=rnd, actor=director)
    body = page(Client(), url)
    assert "(1 minute)" in body
    assert "1 minutes" not in body
    assert "js/clock.js" in body


def test_the_round_page_counts_one_minute_in_the_singular() -> None:
    tournament, director, rnd, client = published_round(1)
    round_clock_start(round=rnd, actor=director)
    body = page(client, reverse("brackets:round", args=[tournament.slug, rnd.pk]))
    assert "1 minute, started" in body
    assert "1 minutes" not in body
    assert 'data-label-over="Time!"' in body


# -- the dispute queue's End column (not the clock, but the same walkthrough) ---------------------


@pytest.mark.parametrize(
    ("language", "words"), [("es", ("Tranque", "Dominó")), ("en", ("Block", "Domino"))]
)
def test_the_dispute_queue_names_the_end_in_the_directors_words(
    language: str, words: tuple[str, ...]
) -> None:
    """Bug: the End column read like the stored codes (``domino``, ``block``). Now the words
    on the referee's buttons (R18, R19), in the director's language."""
    from tests.pages.test_director_walkthrough import disputed_match

    t, director, _match = disputed_match("I had 2")
    client = director_client(director)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    body = page(client, reverse("scoring:dispute-queue", args=[t.slug]))
    cells = [
        row.split("</td>")[2].rsplit(">", 1)[1] for row in body.split('<tr class="version-')[1:]
    ]
    assert cells[0] in words
    assert cells[1] in words
