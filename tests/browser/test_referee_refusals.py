"""The referee's phone after a tester's walkthrough: refusals, taps, undo, disputes, posers.

- A player's PIN locked (429 ``pin_locked``) is a refusal, never retried, shown by the player's
  name; a real rate limit (429 ``throttled``) is still retried with the same key.
- A tap on a name is *pending* until the server takes it; a wrong PIN drops the tap with a
  message by the player, who may tap again at once.
- Undo is not offered while anything waits on the phone (README, "Conflicts and refusals").
- The dispute form shows only the fields of the chosen end and has its own PIN box.
- A poser the rules do not allow (R5-R10) is caught when tapped, naming the rule.
"""

from __future__ import annotations

from typing import Any, cast

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from scoring.models import Hand, Match
from scoring.services import hand_record
from tests.factories import (
    TournamentFactory,
    director_of,
    match_in_progress,
    referee_of,
)
from tournament.models import Tournament
from tournament.services import referee_token_issue

FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}
NEXT = {"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 0}
WAITING = "#queue-list li[data-status='queued'], #queue-list li[data-status='sent']"


def _open(page: Page, key: str, match: Match) -> None:
    page.goto(f"/ref/#{key}")
    page.wait_for_url(f"**/matches/{match.pk}/")
    expect(page.locator(".scoreboard li")).to_have_count(4)


def _tap_hand(page: Page, payload: dict[str, Any], number: int) -> None:
    expect(page.locator("#match-panel")).to_have_attribute("data-number", str(number))
    page.locator(f"#hand-form input[name='poser'][value='{payload['poser']}'] + span").tap()
    page.select_option("#pose-tile", payload["pose_tile"])
    page.locator("#hand-form input[name='end'][value='domino'] + span").tap()
    page.locator(f"#hand-form input[name='winner'][value='{payload['winner']}'] + span").tap()
    page.locator("#confirm-hand").tap()


# -- undo while hands wait (README "Conflicts and refusals") -------------------------------------


@pytest.fixture
def plain_match(transactional_db: Any) -> dict[str, Any]:
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="wsod"))  # type: ignore[no-untyped-call]
    director = director_of(tournament)
    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee)
    token = referee_token_issue(tournament=tournament, actor=director, user=referee)
    return {"match": match, "key": token.key, "director": director}  # type: ignore[attr-defined]


@pytest.mark.browser
@pytest.mark.embedded
def test_undo_is_not_offered_while_a_hand_waits_on_the_phone(
    browser_context: Any, plain_match: dict[str, Any]
) -> None:
    match: Match = plain_match["match"]
    hand_record(match_id=match.pk, actor=plain_match["director"], expected_number=1, payload=FIRST)
    context: BrowserContext = browser_context()
    page = context.new_page()
    _open(page, plain_match["key"], match)
    expect(page.locator("#undo summary")).to_have_text("Undo hand 1")

    context.set_offline(True)
    _tap_hand(page, NEXT, 2)
    expect(page.locator("#submit-status")).to_contain_text("Hand 2 is saved on this phone")
    # Hand 1 is not the table's last hand any more: no Undo until the queue is empty.
    expect(page.locator("#undo")).to_be_hidden()

    context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(page.locator("#submit-status")).to_contain_text("Hand 2 recorded", timeout=20_000)
    expect(page.locator("#undo")).to_be_visible()
    expect(page.locator("#undo summary")).to_have_text("Undo hand 2")
    assert Hand.objects.filter(match=match, void=False).count() == 2
