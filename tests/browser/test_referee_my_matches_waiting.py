""" "My matches" names the hands still waiting on the phone, and opens without network.

Found by a referee walkthrough on a phone: offline, the referee recorded a hand (queued on the
phone, issue 15) and tapped "My matches" in the header. The page was not kept by the service
worker, so the phone showed the browser's offline error; with the connection back, "My matches"
showed the match as before with no word of the queued hand, and nothing sent it (the queue is
drained only by the match's own page): the hand stayed on the phone until the referee happened
to open that match again, perhaps never. Now the referee page has the worker keep "My
matches" too, and that page says under each match how many hands wait on this phone.
"""

from __future__ import annotations

from typing import Any, cast

import pytest
from playwright.sync_api import BrowserContext, expect

from scoring.engine import Ruleset
from scoring.engine.simulate import simulate_match
from scoring.models import Hand, Match
from tests.browser.conftest import set_offline
from tests.browser.referee_form import fill_hand_form
from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of
from tournament.models import Tournament
from tournament.services import referee_token_issue

SEED = 43


@pytest.fixture
def queued_match(transactional_db: Any) -> dict[str, Any]:
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="wsod"))  # type: ignore[no-untyped-call]
    director = director_of(tournament)
    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee)
    token = referee_token_issue(tournament=tournament, actor=director, user=referee)
    sim = simulate_match(Ruleset.from_json(match.ruleset), match.n_players, SEED)
    return {"match": match, "token": token, "sim": sim}


def _stored(match: Match) -> int:
    return Hand.objects.filter(match=match, voided_at__isnull=True).count()


@pytest.mark.browser
@pytest.mark.embedded  # the demo's phones run on the embedded default too
def test_my_matches_opens_offline_and_names_the_hands_waiting_on_the_phone(
    browser_context: Any, queued_match: dict[str, Any]
) -> None:
    match: Match = queued_match["match"]
    context: BrowserContext = browser_context()
    page = context.new_page()
    page.goto(f"/ref/#{queued_match['token'].key}")
    page.wait_for_url(f"**/matches/{match.pk}/")
    # The worker holds the page's copies (as test_referee_offline.py waits for them).
    expect(page.locator("#referee-app[data-offline-ready='1']")).to_have_count(1)
    page.reload()
    expect(page.locator("#referee-app[data-offline-ready='1']")).to_have_count(1)

    set_offline(context, True)
    fill_hand_form(page, queued_match["sim"].records[0])
    page.locator("#confirm-hand").tap()
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 is saved on this phone")

    # The header's "My matches" opens without network, and says the hand is still here.
    page.locator("header a", has_text="My matches").tap()
    page.wait_for_url("**/referee/")
    row = page.locator(f"#match-list li[data-match-id='{match.pk}']")
    note = row.locator(".waiting-on-phone")
    expect(note).to_be_visible()
    expect(note).to_have_text("1 hand is waiting on this phone: open this match to send it.")
    assert _stored(match) == 0

    # The connection is back but this page sends nothing: it keeps saying where the hand is.
    set_offline(context, False)
    page.reload()
    expect(note).to_have_text("1 hand is waiting on this phone: open this match to send it.")
    assert _stored(match) == 0

    # Opening the match sends it; then "My matches" has nothing waiting.
    row.locator("a").tap()
    page.wait_for_url(f"**/matches/{match.pk}/")
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 recorded", timeout=20_000)
    assert _stored(match) == 1
    page.locator("header a", has_text="My matches").tap()
    page.wait_for_url("**/referee/")
    expect(page.locator(f"#match-list li[data-match-id='{match.pk}']")).to_have_count(1)
    expect(note).to_be_hidden()
