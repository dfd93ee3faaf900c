"""The match page drops its hand entry as soon as it learns the match is over (RULES.md R33).

Walkthrough: at a feature table the referee recorded the last hand from the phone, and the
"Enter the hand move by move" button stayed on the page (above the result card saying no
further hands are accepted) until a reload; the same when the last hand came from another
device and reached the page live. Now the button lives in the panel the page reads again after
every hand and every live change, so it goes with the form, exactly as a reload shows it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import Page, expect

from scoring.models import Hand, Match
from scoring.services import hand_record
from tests.browser.conftest import ContextFactory
from tests.factories import (
    TableFactory,
    TournamentFactory,
    director_of,
    match_in_progress,
    referee_of,
)
from tournament.models import Tournament
from tournament.services import referee_token_issue

pytestmark = [pytest.mark.browser, pytest.mark.embedded]

PHONE_390 = {"width": 390, "height": 844}
POLL_SECONDS = 5  # the page's fallback poll (no websocket on the test server)
WITHIN_A_POLL_MS = (POLL_SECONDS + 2 + 4) * 1000  # a poll, its jitter, and a slow machine
MOVES = "Enter the hand move by move"
# Seat A wins every hand (a forced first pose, then A poses as the last winner, R7): under
# wsod the sixth hand takes A to 6 and ends the match (R33).
FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}
NEXT = {"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 0}
LAST = 6


@pytest.fixture
def feature_table(transactional_db: Any, settings: Any) -> dict[str, Any]:
    """A wsod match at a feature table (move-by-move entry offered, issue 15), five hands in."""
    settings.REFEREE_POLL_SECONDS = POLL_SECONDS
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="wsod"))  # type: ignore[no-untyped-call]
    director = director_of(tournament)
    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee)
    match.table = TableFactory(tournament=tournament, number=2, feature=True)
    match.save(update_fields=["table"])
    token = referee_token_issue(tournament=tournament, actor=director, user=referee)
    for number in range(1, LAST):
        hand_record(
            match_id=match.pk,
            actor=director,
            expected_number=number,
            payload=FIRST if number == 1 else NEXT,
        )
    return {"match": match, "director": director, "key": token.key}


def _open(context: ContextFactory, table: dict[str, Any]) -> Page:
    page = context(viewport=PHONE_390).new_page()
    page.goto(f"/ref/#{table['key']}")
    expect(page).to_have_url(re.compile(rf"/matches/{table['match'].pk}/$"))
    expect(page.locator("#match-panel")).to_have_attribute("data-number", str(LAST))
    expect(page.get_by_role("link", name=MOVES)).to_be_visible()
    # A reload would drop this mark: the checks below are on the page as it was opened.
    page.evaluate("() => { window.__sameDocument = true; }")
    return page


def _entry_is_gone(page: Page) -> None:
    expect(page.locator(".result-card")).to_contain_text("Match over")
    expect(page.get_by_role("link", name=MOVES)).to_have_count(0)
    expect(page.locator("#hand-form")).to_have_count(0)
    expect(page.locator("#confirm-hand")).to_have_count(0)
    expect(page.locator("[data-live-status]")).to_contain_text("This match is over")
    assert page.evaluate("() => window.__sameDocument === true"), "the page was reloaded"


def test_the_last_hand_recorded_on_the_phone_takes_the_entry_away(
    browser_context: ContextFactory, feature_table: dict[str, Any], artifacts_dir: Path
) -> None:
    page = _open(browser_context, feature_table)
    page.locator("#hand-form input[name='poser'][value='0'] + span").tap()
    page.select_option("#pose-tile", "5-4")
    page.locator("#hand-form input[name='winner'][value='0'] + span").tap()
    page.locator("#confirm-hand").tap()
    expect(page.locator("#submit-status")).to_contain_text(f"Hand {LAST} recorded.")
    _entry_is_gone(page)
    page.screenshot(path=artifacts_dir / "referee-match-over-no-entry.png", full_page=True)
    match = Match.objects.get(pk=feature_table["match"].pk)
    assert match.status == Match.Status.FINISHED
    assert Hand.objects.filter(match=match).count() == LAST


def test_the_last_hand_from_another_device_takes_the_entry_away_live(
    browser_context: ContextFactory, feature_table: dict[str, Any]
) -> None:
    page = _open(browser_context, feature_table)
    hand_record(
        match_id=feature_table["match"].pk,
        actor=feature_table["director"],
        expected_number=LAST,
        payload=NEXT,
    )
    expect(page.locator(".result-card")).to_contain_text("Match over", timeout=WITHIN_A_POLL_MS)
    _entry_is_gone(page)
