"""The public pages on a 390 px phone, in a real browser (walkthrough, no login).

* Projector mode at 390 x 844 laid out two columns of cards 180 px wide whose scores and
  "LOVE" were cut off: on a phone every card shows whole, its scores inside it and the screen.
* A player's page listed every hand of every match (~8,500 px): each match's hands fold behind
  a <details>, open for the match in play, and a reader's own choice survives the page's live
  updates (every hand at the player's table re-renders the page).
* The leaders page had none of the tournament's public navigation.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

from scoring.models import Match
from tests.browser.conftest import (  # noqa: F401  (fixtures reused from the shared module)
    browser,
    playwright_instance,
)
from tests.live.test_live_browser import Played, contexts, played  # noqa: F401

pytestmark = pytest.mark.browser

PHONE_390 = {"width": 390, "height": 844}
PHONES = [PHONE_390, {"width": 360, "height": 740}, {"width": 844, "height": 390}]

_CLIPPED = """() => {
    const out = [];
    const width = document.documentElement.clientWidth;
    document.querySelectorAll('[data-slide]:not([hidden]) .table-card').forEach(card => {
        const box = card.getBoundingClientRect();
        if (card.scrollHeight > card.clientHeight + 1 || card.scrollWidth > card.clientWidth + 1)
            out.push(`card ${card.dataset.match} clips its content`);
        if (box.right > width + 0.5) out.push(`card ${card.dataset.match} past the screen`);
        card.querySelectorAll('.score, .love').forEach(el => {
            const r = el.getBoundingClientRect();
            if (r.right > box.right + 0.5 || r.bottom > box.bottom + 0.5 || r.right > width + 0.5)
                out.push(`${el.className} of card ${card.dataset.match} cut off`);
        });
    });
    if (document.documentElement.scrollWidth > width) out.push('the page scrolls sideways');
    return out;
}"""


@pytest.mark.parametrize("viewport", PHONES, ids=lambda v: f"{v['width']}x{v['height']}")
def test_the_projector_fits_a_phone(contexts: Any, played: Played, viewport: Any) -> None:  # noqa: F811
    for number in (1, 2, 3):
        played.record(number)
    page = contexts(viewport=viewport).new_page()
    page.goto("/live/hall-open/projector/")
    page.wait_for_selector('#live[data-live-state="live"]')
    slides = page.locator("[data-slide]").count()
    assert slides >= 2  # the tables, then the standings
    love_shown = 0
    for index in range(slides):
        page.evaluate(
            "(i) => document.querySelectorAll('[data-slide]').forEach("
            "(s, k) => { s.hidden = k !== i; })",
            index,
        )
        assert page.evaluate(_CLIPPED) == [], f"slide {index}"
        love_shown += page.locator("[data-slide]:not([hidden]) .love").count()
    assert love_shown >= 1  # the check above looked at a "LOVE" label
    page.evaluate("(i) => document.querySelectorAll('[data-slide]').forEach(s => s.hidden = false)")
    page.screenshot(path=f"test-artifacts/projector-{viewport['width']}.png", full_page=True)


def _details(page: Page, match_id: int) -> Any:
    return page.locator(f"details#hands-{match_id}")


def _wait_hands(page: Page, match_id: int, n: int) -> None:
    page.wait_for_function(
        "([id, n]) => { const s = document.querySelector(`#hands-${id} > summary`);"
        " return !!s && s.textContent.includes(`(${n})`); }",
        arg=[match_id, n],
        timeout=8000,
    )


def test_a_players_hands_fold_and_keep_the_readers_choice(
    contexts: Any,  # noqa: F811
    played: Played,  # noqa: F811
) -> None:
    match = played.match
    entry = match.seats.get(seat=0).entry_id
    page = contexts(viewport=PHONE_390).new_page()
    page.goto(f"/live/hall-open/players/{entry}/")
    page.wait_for_selector('#live[data-live-state="live"]')
    hands = _details(page, match.pk)
    assert hands.get_attribute("open") is not None  # the match in play: open

    # The reader folds them; the next hand re-renders the page, and they stay folded.
    hands.locator("summary").click()
    assert hands.get_attribute("open") is None
    played.record(1)
    _wait_hands(page, match.pk, 1)
    assert _details(page, match.pk).get_attribute("open") is None

    # Opened again, they stay open to the end of the match, though a finished match's hands
    # are folded for a reader who comes later.
    _details(page, match.pk).locator("summary").click()
    total = len(played.payloads)
    for number in range(2, total + 1):
        played.record(number)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    _wait_hands(page, match.pk, total)
    page.wait_for_selector(f'[data-match="{match.pk}"].match-finished')
    assert _details(page, match.pk).get_attribute("open") is not None
    assert page.locator(f"#hands-{match.pk} table.hands").is_visible()
    page.screenshot(path="test-artifacts/player-hands-open.png", full_page=True)

    later = contexts(viewport=PHONE_390).new_page()
    later.goto(f"/live/hall-open/players/{entry}/")
    assert _details(later, match.pk).get_attribute("open") is None
    assert not later.locator(f"#hands-{match.pk} table.hands").is_visible()
    assert later.locator(".my-placing").is_visible()
    # One match of dozens of hands: the page is about two screens, not a dozen.
    height = later.evaluate("document.documentElement.scrollHeight")
    assert height < 2 * PHONE_390["height"], height
    later.screenshot(path="test-artifacts/player-hands-folded.png", full_page=True)


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_the_leaders_page_has_the_public_navigation_and_fits(
    contexts: Any,  # noqa: F811
    played: Played,  # noqa: F811
    locale: str,
) -> None:
    for number in range(1, len(played.payloads) + 1):
        played.record(number)
    page = contexts(viewport=PHONE_390, locale=locale).new_page()
    page.goto("/stats/hall-open/")
    nav = page.locator('header nav[aria-label] a[href^="/live/hall-open/"]')
    assert nav.count() == 5
    for i in range(5):
        assert nav.nth(i).is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_390["width"]
    assert page.locator("td.rank").count() >= 4
    results = Axe().run(page)
    assert not results.violations_count, json.dumps(results.response["violations"])[:2000]
    page.screenshot(path=f"test-artifacts/leaders-{locale}.png", full_page=True)
