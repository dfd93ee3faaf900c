"""A hand this phone sent from its queue, confirmed by the server, then undone by the director
while the phone was closed (walkthrough, issue 15): opened again, the phone shows the match
as the server has it and says what the director did, instead of drawing the undone hand on
top of the server's panel ("Recorded: the server has these hands...") with the old scores.

The phone keeps a confirmed hand in its queue only until a panel shows it: here the panel
could not be read after the answer (the connection dropped right after it), so the
confirmed hand was still on the phone when it was closed."""

from __future__ import annotations

import re
from typing import cast

import pytest
from playwright.sync_api import Page, Route, expect

from scoring.models import Hand, Match
from scoring.services import hand_record, hand_void_last
from tests.browser.conftest import ContextFactory, set_offline
from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of
from tournament.models import Tournament
from tournament.services import referee_token_issue

pytestmark = [pytest.mark.browser, pytest.mark.embedded]

FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}
NEXT = {"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 0}


def _wait_for_worker(page: Page) -> None:
    page.wait_for_function(
        "async () => !!navigator.serviceWorker.controller"
        " && !!(await caches.match(location.pathname))",
        polling=200,
    )
    # ... and has answered that it holds the page's copies (a copy being rewritten is not there
    # yet: a reload without network then failed, seen under load).
    expect(page.locator("#referee-app[data-offline-ready='1']")).to_have_count(1)


@pytest.mark.django_db(transaction=True)
def test_a_confirmed_hand_the_director_undid_is_not_drawn_again(
    browser_context: ContextFactory,
) -> None:
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="wsod"))  # type: ignore[no-untyped-call]
    director = director_of(tournament)
    referee = referee_of(tournament)
    match: Match = match_in_progress(tournament, referee=referee)
    token = referee_token_issue(tournament=tournament, actor=director, user=referee)
    for number, payload in ((1, FIRST), (2, NEXT)):
        hand_record(match_id=match.pk, actor=director, expected_number=number, payload=payload)

    context = browser_context()
    page = context.new_page()
    page.goto(f"/ref/#{token.key}")
    page.wait_for_url(f"**/matches/{match.pk}/")
    _wait_for_worker(page)
    page.reload()
    _wait_for_worker(page)
    panel = page.locator("#match-panel")
    expect(panel).to_have_attribute("data-number", "3")

    # Hand 3 offline: it waits on the phone.
    set_offline(context, True)
    page.locator("#hand-form input[name='poser'][value='0'] + span").tap()
    page.select_option("#pose-tile", "5-4")
    page.locator("#hand-form input[name='end'][value='domino'] + span").tap()
    page.locator("#hand-form input[name='winner'][value='0'] + span").tap()
    page.locator("#confirm-hand").tap()
    expect(page.locator("#submit-status")).to_contain_text("Hand 3 is saved on this phone")

    # Back online the hand is stored, and the connection drops right after the answer: the
    # phone cannot read the panel again, so hand 3 stays on it as confirmed.
    def answer_then_drop(route: Route) -> None:
        response = route.fetch()
        set_offline(context, True)
        route.fulfill(response=response)

    page.route(re.compile(rf"/api/(v\d/)?matches/{match.pk}/hands/"), answer_then_drop)
    set_offline(context, False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    page.wait_for_function(
        "() => document.querySelector('#queue-list li[data-status=\"confirmed\"]') !== null",
        polling=200,
        timeout=20_000,
    )
    assert Hand.objects.filter(match=match, voided_at__isnull=True).count() == 3
    page.close()

    # The director undoes hand 3 while the phone is closed.
    hand_void_last(match_id=match.pk, actor=director, reason="counted twice")

    set_offline(context, False)
    page = context.new_page()
    page.goto(f"/matches/{match.pk}/")
    panel = page.locator("#match-panel")
    expect(page.locator("#submit-status")).to_contain_text(
        "The director undid hand 3 (reason: counted twice)."
    )
    expect(panel).to_have_attribute("data-number", "3")
    expect(panel).not_to_have_attribute("data-unsent", "1")
    expect(page.locator(".scoreboard .score").first).to_have_text("2")
    expect(page.locator("#queue-list li")).to_have_count(0)
