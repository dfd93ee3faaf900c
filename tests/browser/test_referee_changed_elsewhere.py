"""The referee's form when the match changes on another device (a director's phone, a second
referee): when the phone comes back to the page, the panel shows the match as it now is. If
the referee had begun the hand on the old form, their taps are kept on the new form and the
page says what changed; an untouched form is swapped silently."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from scoring.engine.simulate import SimulatedMatch
from scoring.services import hand_record
from tests.browser.test_referee_page import _tap, referee_match
from tests.factories import director_of

__all__ = ["referee_match"]  # the fixture, shared with the whole-match test

CHANGED = "The match changed on another device"


def _recorded_elsewhere(data: dict[str, Any], number: int) -> None:
    """Hand ``number`` of the simulated match, recorded by the director's own device."""
    match = data["match"]
    sim: SimulatedMatch = data["sim"]
    record = sim.records[number - 1].to_dict()
    record.pop("sporting", None)
    hand_record(
        match_id=match.pk,
        actor=director_of(match.tournament),
        expected_number=number,
        payload=record,
    )


def _back_to_the_page(page: Page) -> None:
    """The phone wakes up: the page's visibility handler checks the match again."""
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")


@pytest.mark.browser
def test_taps_for_a_hand_recorded_elsewhere_are_kept_with_a_word(
    page: Page, referee_match: dict[str, Any]
) -> None:
    match = referee_match["match"]
    sim: SimulatedMatch = referee_match["sim"]
    page.goto(f"/ref/#{referee_match['token'].key}")
    expect(page).to_have_url(re.compile(rf"/matches/{match.pk}/$"))
    panel = page.locator("#match-panel")
    status = page.locator("#submit-status")

    # Nothing typed yet: the new state comes in without a word.
    _recorded_elsewhere(referee_match, 1)
    _back_to_the_page(page)
    expect(panel).to_have_attribute("data-number", "2")
    expect(status).to_be_hidden()

    # The referee taps a poser other than the designated one, then hand 2 is recorded
    # elsewhere: the form moves on to hand 3, keeps the tap (the referee typed what happened
    # at the table) and says what changed; the tap is checked against hand 3's poser.
    designated = sim.next_hands[1].poser
    assert designated is not None
    tapped = (designated + 1) % 4
    _tap(page, "poser", tapped)
    _recorded_elsewhere(referee_match, 2)
    _back_to_the_page(page)
    expect(panel).to_have_attribute("data-number", "3")
    expect(status).to_contain_text("Hand 2 was recorded on another device.")
    expect(status).to_contain_text("What you typed is kept for hand 3: check it")
    expect(page.locator(f"#hand-form input[name='poser'][value='{tapped}']")).to_be_checked()
    expect(page.locator("#next-hand")).to_contain_text("Hand 3")
    must = sim.next_hands[2].poser
    if must is not None and must != tapped:
        expect(page.locator(".field-error[data-error-for='poser']")).to_be_visible()


@pytest.mark.browser
def test_a_hand_refused_because_another_device_ended_the_match_is_said(
    page: Page, referee_match: dict[str, Any]
) -> None:
    """Two phones at one table: the other records the hand that ends the match first. This
    phone's hand is refused (409): the panel shows the match over and the page says the match
    changed on another device, and what changed (the refusal had no form left to sit on, so
    it once said nothing)."""
    from tests.browser.test_referee_page import _fill_hand

    match = referee_match["match"]
    sim: SimulatedMatch = referee_match["sim"]
    last = len(sim.records)
    for number in range(1, last):
        _recorded_elsewhere(referee_match, number)
    page.goto(f"/ref/#{referee_match['token'].key}")
    expect(page).to_have_url(re.compile(rf"/matches/{match.pk}/$"))
    expect(page.locator("#match-panel")).to_have_attribute("data-number", str(last))
    page.wait_for_load_state("networkidle")  # the page's own first look at the match is done
    _recorded_elsewhere(referee_match, last)  # the other phone is quicker
    _fill_hand(page, sim.records[last - 1], referee_match["names"])
    page.locator("#confirm-hand").tap()
    expect(page.locator("#submit-status")).to_contain_text(CHANGED)
    # ... and what changed: the other phone's hand.
    expect(page.locator("#submit-status")).to_contain_text(
        f"Hand {last} was recorded on another device."
    )
    expect(page.locator("#hand-form")).to_have_count(0)  # the match is over: no form
    match.refresh_from_db()
    assert match.hands_count == last  # the other phone's hand only


@pytest.mark.browser
def test_a_hand_refused_after_the_director_undid_one_keeps_what_was_entered(
    page: Page, referee_match: dict[str, Any]
) -> None:
    """The director undoes hand 3 while the referee enters hand 4, and the phone has not heard
    yet: the referee's hand is refused (409), the page says what the director did and keeps
    the hand the referee entered, now on the form for hand 3, to check and record again."""
    from scoring.services import hand_void_last
    from tests.browser.test_referee_page import _fill_hand

    match = referee_match["match"]
    sim: SimulatedMatch = referee_match["sim"]
    for number in (1, 2, 3):
        _recorded_elsewhere(referee_match, number)
    page.goto(f"/ref/#{referee_match['token'].key}")
    expect(page).to_have_url(re.compile(rf"/matches/{match.pk}/$"))
    expect(page.locator("#match-panel")).to_have_attribute("data-number", "4")
    page.wait_for_load_state("networkidle")
    record = sim.records[3]
    _fill_hand(page, record, referee_match["names"])
    hand_void_last(match_id=match.pk, actor=director_of(match.tournament), reason="wrong count")
    page.locator("#confirm-hand").tap()

    status = page.locator("#submit-status")
    expect(status).to_contain_text("The director undid hand 3 (reason: wrong count).")
    expect(status).to_contain_text("What you typed is kept for hand 3")
    expect(page.locator("#match-panel")).to_have_attribute("data-number", "3")
    expect(page.locator(".field-error[data-error-for='number']")).to_be_visible()
    expect(page.locator(f"#hand-form input[name='poser'][value='{record.poser}']")).to_be_checked()
    expect(page.locator("#hand-form input[name='end']:checked")).to_have_value(record.end.value)
    match.refresh_from_db()
    assert match.hands_count == 2  # hand 4 was not stored
