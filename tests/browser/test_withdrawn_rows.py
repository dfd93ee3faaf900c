"""A withdrawn partnership on the public standings page, in a real browser (T7, T10).

Its row is the last, its rank after every partnership still in, and it reads "Withdrawn" on a
390 px phone and a 1280 px desktop (the badge beside the partners' names, in the error colour
the "Eliminated" badge uses); no page scrolls sideways and axe-core finds no violation. The
projector's standings slide says "Withdrawn" too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, ContextFactory
from tests.browser.test_accessibility import PHONE_390, _check
from tests.live.test_withdrawn_rows import pairs_withdrawal


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [PHONE_390, DESKTOP], ids=["390", "1280"])
def test_a_withdrawn_partnership_reads_withdrawn_last_on_the_standings_page(
    browser_context: ContextFactory,
    transactional_db: Any,
    artifacts_dir: Path,
    viewport: dict[str, int],
) -> None:
    w = pairs_withdrawal()
    width = viewport["width"]
    page = browser_context(viewport=viewport).new_page()
    page.goto(f"/live/{w.tournament.slug}/standings/")
    rows = page.locator("table.pairs-standings tbody tr[data-pair]")
    assert rows.count() == 4
    last = rows.nth(3)
    assert last.get_attribute("data-pair") == str(w.gone)
    assert last.locator("td.num").first.inner_text().strip() == "4"
    badge = last.locator(".outlook-withdrawn")
    assert badge.count() == 1
    assert badge.is_visible()
    assert badge.inner_text().strip().lower() == "withdrawn"
    assert page.locator("text=Eliminated").count() == 0
    # The error colour of "Eliminated" (live.css), not the text colour.
    colour = badge.evaluate("el => getComputedStyle(el).color")
    text = last.evaluate("el => getComputedStyle(el).color")
    assert colour != text
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=artifacts_dir / f"withdrawn-pair-standings-{width}.png", full_page=True)
    assert _check(page, [f"/live/{w.tournament.slug}/standings/"], artifacts_dir, "withdrawn") == []

    projector = browser_context(viewport=DESKTOP).new_page()
    projector.goto(f"/live/{w.tournament.slug}/projector/")
    assert projector.locator("tr.outlook-withdrawn").count() >= 1
