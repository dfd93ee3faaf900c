"""The director's round page under confirmation at the table (issue 15): a disputed table is
marked "Disputed" with a link to its dispute in the queue and a held result "Awaiting the
players' confirmation" (the Dashboard's marker and words, one template); the page's next step
points to each dispute instead of leaving the table "In progress"; and the Disputes tab of
every director page counts the tournament's open disputes in one query."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scoring import confirmation
from tests.brackets.disputed_round import DisputedRound, disputed_round
from tests.brackets.factories_pages import director_client

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]

DISPUTED = "Disputed: in the dispute queue"
AWAITING = "Awaiting the players' confirmation"


def _round_url(event: DisputedRound) -> str:
    return reverse("brackets:round", args=[event.tournament.slug, event.round.pk])


def _queue_url(event: DisputedRound) -> str:
    return reverse("scoring:dispute-queue", args=[event.tournament.slug])


def _row(html: str, match_id: int) -> str:
    return html.split(f'id="match-{match_id}"', 1)[1].split("</tr>", 1)[0]


def _disputes_tab(html: str) -> str:
    """The Disputes tab's text, tags stripped and spaces collapsed."""
    found = re.search(r'<a [^>]*id="nav-disputes"[^>]*>(.*?)</a>', html, re.S)
    assert found, "no Disputes tab"
    return " ".join(re.sub(r"<[^>]+>", " ", found.group(1)).split())


def test_the_round_page_marks_a_disputed_table_and_a_held_result() -> None:
    """Issue 15: table 1 disputed, table 2's result held for the players' taps, table 3 not
    started. Before, both held tables read only "In progress"."""
    event = disputed_round(players=12, disputed=1, held=1)
    (disputed,), (held,), (idle,) = event.disputed, event.held, event.idle
    assert (disputed.confirmation_hold, held.confirmation_hold) == ("disputed", "result")
    client = director_client(event.director)
    html = client.get(_round_url(event)).content.decode()

    link = f'href="{_queue_url(event)}#dispute-match-{disputed.pk}"'
    row = _row(html, disputed.pk)
    assert "In progress" in row
    assert DISPUTED in row
    assert link in row
    assert AWAITING not in row
    row = _row(html, held.pk)
    assert AWAITING in row
    assert DISPUTED not in row
    assert "#dispute-match-" not in row
    row = _row(html, idle.pk)
    assert DISPUTED not in row
    assert AWAITING not in row

    # The link lands on that dispute in the queue.
    queue = client.get(_queue_url(event)).content.decode()
    assert f'id="dispute-match-{disputed.pk}"' in queue
    assert f'id="dispute-match-{held.pk}"' not in queue


def test_the_next_step_points_to_the_dispute_not_to_waiting_for_the_table() -> None:
    """The round cannot close while a table is disputed, and calling time refuses a disputed
    result (409): the page says the table waits for the director and links its dispute."""
    event = disputed_round(players=12, disputed=1, held=1)
    (disputed,) = event.disputed
    html = director_client(event.director).get(_round_url(event)).content.decode()
    found = re.search(r'<p [^>]*id="disputed-next"[^>]*>(.*?)</p>', html, re.S)
    assert found, "no next step for the disputed table"
    note = found.group(1)
    assert "resolve the disputed result in the dispute queue" in note
    assert "waits for your decision, not for its players" in note
    assert (
        f'id="dispute-link-{disputed.pk}" href="{_queue_url(event)}#dispute-match-{disputed.pk}"'
        in note
    )
    assert "Table 1: the dispute" in note
    # The held table waits for its players: no dispute link for it.
    assert f"dispute-link-{event.held[0].pk}" not in html
    call_time = html.split('id="call-time"', 1)[1].split("</details>", 1)[0]
    assert 'id="call-time-disputed"' in call_time
    assert "resolve it in the dispute queue first" in call_time


def test_no_dispute_no_dispute_step() -> None:
    event = disputed_round(players=12, disputed=0, held=1)
    html = director_client(event.director).get(_round_url(event)).content.decode()
    assert AWAITING in _row(html, event.held[0].pk)
    assert 'id="disputed-next"' not in html
    assert 'id="call-time-disputed"' not in html
    assert _disputes_tab(html) == "Disputes"


def test_the_dashboard_links_the_disputed_table_to_its_dispute() -> None:
    event = disputed_round(players=12, disputed=1, held=1)
    html = (
        director_client(event.director)
        .get(reverse("scoring:director-dashboard", args=[event.tournament.slug]))
        .content.decode()
    )
    row = html.split(f'data-match="{event.disputed[0].pk}"', 1)[1].split("</tr>", 1)[0]
    assert DISPUTED in row
    assert f'href="{_queue_url(event)}#dispute-match-{event.disputed[0].pk}"' in row
    row = html.split(f'data-match="{event.held[0].pk}"', 1)[1].split("</tr>", 1)[0]
    assert AWAITING in row


def _director_pages(event: DisputedRound) -> list[str]:
    slug = event.tournament.slug
    return [
        reverse("scoring:director-dashboard", args=[slug]),
        reverse("brackets:round", args=[slug, event.round.pk]),
        reverse("brackets:stages", args=[slug]),
        reverse("brackets:bracket", args=[slug]),
        reverse("brackets:settings", args=[slug]),
        reverse("brackets:log", args=[slug]),
        reverse("tournament:referees", args=[slug]),
        reverse("tournament:directors", args=[slug]),
        reverse("tournament:lifecycle", args=[slug]),
        reverse("notify:webhooks", args=[slug]),
        reverse("scoring:dispute-queue", args=[slug]),
    ]


def _dispute_queries(client: Client, url: str) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, url
    # The tab's count (the action log page reads disputes of its own too).
    return response.content.decode(), sum(
        'from "scoring_resultdispute"' in q["sql"].lower() and "count(" in q["sql"].lower()
        for q in ctx.captured_queries
    )


def test_the_disputes_tab_counts_the_open_disputes_on_every_director_page() -> None:
    """Two open disputes: "Disputes (2)" on every page with the director's tabs, counted in
    one query however many disputes (no query per dispute or match); resolved ones drop out."""
    event = disputed_round(players=12, disputed=2, held=1)
    client = director_client(event.director)
    for url in _director_pages(event):
        html, queries = _dispute_queries(client, url)
        assert _disputes_tab(html) == "Disputes (2)", url
        assert queries == 1, (url, queries)

    first, second = event.disputed
    confirmation.dispute_resolve(
        match_id=first.pk, actor=event.director, decision="uphold", reason="Counted again"
    )
    assert _disputes_tab(client.get(_round_url(event)).content.decode()) == "Disputes (1)"
    confirmation.dispute_resolve(
        match_id=second.pk, actor=event.director, decision="correct", reason="A had 2"
    )
    html = client.get(_round_url(event)).content.decode()
    assert _disputes_tab(html) == "Disputes"
    assert 'id="disputed-next"' not in html


def test_the_tab_counts_only_this_tournaments_disputes() -> None:
    other = disputed_round(players=8, disputed=1, held=0)
    event = disputed_round(players=12, disputed=0, held=1)
    assert _disputes_tab(
        director_client(other.director).get(_round_url(other)).content.decode()
    ) == ("Disputes (1)")
    assert (
        _disputes_tab(director_client(event.director).get(_round_url(event)).content.decode())
        == "Disputes"
    )
