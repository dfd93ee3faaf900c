"""The director's round page with a disputed table (issue 15), on a 390 px phone and a desktop.

A walkthrough found the disputed table and the table whose result waits for the players' taps
both shown only as "In progress", no count on the Disputes tab, and nothing telling the
director that the round waited for them rather than for the players. Now the disputed table
says "Disputed" with a link to its dispute in the queue, the held result "Awaiting the players'
confirmation", the next step links each dispute, and the tab reads "Disputes (1)"; a table
disputed while the page is open is marked at the next refresh. Screenshots: test-artifacts/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from scoring import confirmation
from tests.brackets.disputed_round import dispute_the_result, disputed_round
from tests.browser.conftest import DESKTOP, ContextFactory

pytestmark = pytest.mark.embedded

PHONE_390 = {"width": 390, "height": 844}


def _page_width(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth"))


@pytest.mark.parametrize("viewport", [PHONE_390, DESKTOP], ids=["phone-390", "desktop"])
def test_a_disputed_table_links_its_dispute_from_the_round_page(
    browser_context: ContextFactory,
    transactional_db: Any,
    artifacts_dir: Path,
    viewport: dict[str, int],
) -> None:
    event = disputed_round(players=12, disputed=1, held=1)
    (disputed,), (held,) = event.disputed, event.held
    slug = event.tournament.slug
    page = browser_context(viewport=viewport, user=event.director).new_page()
    page.goto(f"/director/tournaments/{slug}/rounds/{event.round.pk}/")

    expect(page.locator("#nav-disputes")).to_have_text("Disputes (1)")
    marker = page.locator(f"#match-{disputed.pk} .hold-disputed")
    expect(marker).to_have_text("Disputed: in the dispute queue")
    expect(marker).to_have_attribute(
        "href", f"/director/tournaments/{slug}/disputes/#dispute-match-{disputed.pk}"
    )
    expect(page.locator(f"#match-{held.pk} .hold-pending")).to_have_text(
        "Awaiting the players' confirmation"
    )
    expect(page.locator(f"#match-{held.pk} .hold-disputed")).to_have_count(0)

    step = page.locator("#disputed-next")
    expect(step).to_be_visible()
    expect(step).to_contain_text("resolve the disputed result in the dispute queue")
    # The step and its link fit the screen: no sideways scrolling to reach them.
    box = step.bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= viewport["width"]
    assert _page_width(page) <= viewport["width"]
    page.screenshot(
        path=str(artifacts_dir / f"round-disputed-{viewport['width']}.png"), full_page=True
    )

    link = page.locator(f"#dispute-link-{disputed.pk}")
    expect(link).to_have_text("Table 1: the dispute")
    if viewport is PHONE_390:
        link.tap()
    else:
        link.click()
    page.wait_for_url(f"**/disputes/#dispute-match-{disputed.pk}")
    heading = page.locator(f"#dispute-match-{disputed.pk}")
    expect(heading).to_be_in_viewport()
    expect(page.locator(f"section.dispute[data-match='{disputed.pk}']")).to_be_visible()
    expect(page.locator("#nav-disputes")).to_have_text("Disputes (1)")
    expect(page.locator("#nav-disputes")).to_have_attribute("aria-current", "page")


def test_a_table_disputed_while_the_page_is_open_is_marked_at_the_next_refresh(
    browser_context: ContextFactory, transactional_db: Any
) -> None:
    event = disputed_round(players=12, disputed=0, held=1)
    (held,) = event.held
    page = browser_context(viewport=DESKTOP, user=event.director).new_page()
    page.clock.install()
    page.goto(f"/director/tournaments/{event.tournament.slug}/rounds/{event.round.pk}/")
    expect(page.locator(f"#match-{held.pk} .hold-pending")).to_be_visible()
    expect(page.locator("#disputed-next")).to_have_count(0)
    page.evaluate("window.__same_page = true")

    expect(page.locator("#nav-disputes")).to_have_text("Disputes")
    dispute_the_result(held, event.director)
    page.clock.fast_forward("00:25")
    expect(page.locator(f"#match-{held.pk} .hold-disputed")).to_be_visible()
    expect(page.locator("#nav-disputes")).to_have_text("Disputes (1)")  # the tab too
    expect(page.locator(f"#match-{held.pk} .hold-pending")).to_have_count(0)
    expect(page.locator(f"#dispute-link-{held.pk}")).to_be_visible()
    assert page.evaluate("window.__same_page === true")  # updated in place, not reloaded


def test_the_dashboard_counts_disputes_raised_and_resolved_while_it_is_open(
    browser_context: ContextFactory, transactional_db: Any
) -> None:
    """The dashboard's Disputes tab follows its rows: a table disputed while the page is open
    shows "Disputes (1)" at the next poll, and the count leaves once the director resolves it
    (it was drawn once, when the page loaded)."""
    event = disputed_round(players=12, disputed=0, held=1)
    (held,) = event.held
    page = browser_context(viewport=DESKTOP, user=event.director).new_page()
    page.clock.install()
    page.goto(f"/director/tournaments/{event.tournament.slug}/")
    tab = page.locator("#nav-disputes")
    expect(tab).to_have_text("Disputes")
    # No websocket on the test server: the page polls once its socket has failed.
    expect(page.locator("#dashboard")).to_have_attribute("data-live-state", "polling")
    page.evaluate("window.__same_page = true")

    dispute_the_result(held, event.director)
    page.clock.fast_forward("00:16")
    expect(tab).to_have_text("Disputes (1)")
    expect(tab.locator(".nav-count")).to_have_attribute("data-count", "1")

    confirmation.dispute_resolve(
        match_id=held.pk, actor=event.director, decision="uphold", reason="the sheet agrees"
    )
    page.clock.fast_forward("00:16")
    expect(tab).to_have_text("Disputes")
    expect(tab.locator(".nav-count")).to_have_count(0)
    assert page.evaluate("window.__same_page === true")  # updated in place, not reloaded
