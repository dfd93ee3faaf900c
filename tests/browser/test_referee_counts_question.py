"""Counts no real block gives ask a second tap before they are recorded (RULES.md §9, R1, R20).

Each count from 0 to the heaviest hand is possible alone and §9 accepts it (the table reports
it; README "Where RULES.md leaves a point open", 14), but a block where every player is on 0
cannot happen: only 0-0 is worth 0 (R1). The first tap on "Record hand N" asks ("All counts are
0 at a block — is that right?") and sends nothing; the button then says "Yes, record hand N"
and a second tap records the hand as typed. A change to the hand drops the question; the two
taps of a double tap never answer it (the taps are held for a moment after it is asked).
"""

from __future__ import annotations

import re
from typing import Any, cast

import pytest
from playwright.sync_api import Page, expect

from scoring.models import Hand, Match
from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of
from tournament.models import Tournament
from tournament.services import referee_token_issue

pytestmark = [pytest.mark.browser, pytest.mark.embedded]

PHONE_390 = {"width": 390, "height": 844}
ALL_ZERO = "All counts are 0 at a block — is that right?"


@pytest.fixture
def opened(transactional_db: Any, browser_context: Any) -> tuple[Page, Match, list[str]]:
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="wsod"))  # type: ignore[no-untyped-call]
    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee)
    token = referee_token_issue(tournament=tournament, actor=director_of(tournament), user=referee)
    page = browser_context(viewport=PHONE_390).new_page()
    page.goto(f"/ref/#{token.key}")
    expect(page).to_have_url(re.compile(rf"/matches/{match.pk}/$"))
    names = [s.entry.player.name for s in match.seats.order_by("seat")]
    return page, match, names


def _block(page: Page, counts: tuple[int, ...]) -> None:
    page.locator("#hand-form input[name='poser'][value='0'] + span").tap()
    page.select_option("#pose-tile", "6-6")
    page.locator("#hand-form input[name='end'][value='block'] + span").tap()
    for seat, count in enumerate(counts):
        page.fill(f"#count-{seat}", str(count))


def _double_tap(page: Page, selector: str) -> None:
    """Two taps in quick succession where the button is (no wait for it to be enabled)."""
    box = page.locator(selector).bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.touchscreen.tap(x, y)
    page.touchscreen.tap(x, y)


def test_all_counts_zero_ask_once_then_record_on_the_second_tap(
    opened: tuple[Page, Match, list[str]],
) -> None:
    page, match, _names = opened
    button = page.locator("#confirm-hand")
    summary = page.locator("#confirm-summary")
    _block(page, (0, 0, 0, 0))
    expect(summary).to_contain_text("Check the counts")
    expect(button).to_have_text("Record hand 1")

    # A double tap asks, once: its second tap does not answer the question.
    _double_tap(page, "#confirm-hand")
    expect(summary).to_contain_text(ALL_ZERO)
    expect(summary).to_have_class(re.compile(r"\bask\b"))
    expect(button).to_have_text("Yes, record hand 1")
    # The R20 result is still said, under the counts (a tie: nobody scores, a replay).
    expect(page.locator("#block-result")).to_contain_text("Tie")
    page.wait_for_timeout(1200)
    assert not Hand.objects.filter(match=match).exists()
    expect(page.locator("#submit-status")).not_to_contain_text("Sending")

    # A change to the hand drops the question; the same counts again ask again.
    page.fill("#count-3", "7")
    expect(summary).not_to_contain_text(ALL_ZERO)
    expect(button).to_have_text("Record hand 1")
    page.fill("#count-3", "0")
    button.tap()
    expect(summary).to_contain_text(ALL_ZERO)
    assert not Hand.objects.filter(match=match).exists()

    button.tap()  # the second tap, once the taps are no longer held
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 recorded.")
    assert list(Hand.objects.filter(match=match).values_list("counts", flat=True)) == [[0, 0, 0, 0]]
    # The form is for the next hand (a replay after the tie, R27), asking nothing.
    expect(button).to_have_text("Record hand 2")
    expect(summary).not_to_contain_text("is that right?")


def test_counts_a_real_block_gives_are_recorded_on_the_first_tap(
    opened: tuple[Page, Match, list[str]],
) -> None:
    page, match, names = opened
    _block(page, (0, 12, 9, 20))  # one player on 0 (holding 0-0): a real block
    expect(page.locator("#confirm-summary")).to_contain_text(f"{names[0]} wins the block with 0")
    page.locator("#confirm-hand").tap()
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 recorded.")
    assert list(Hand.objects.filter(match=match).values_list("counts", flat=True)) == [
        [0, 12, 9, 20]
    ]
