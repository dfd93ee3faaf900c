"""A pairs event's tables on a 390 px phone and a 1280 px desktop (T9, T10, R42): the
director's bracket and round pages and the public bracket show each partnership once per
table, its name beside its score and place without running over them; no page scrolls
sideways and axe-core finds no violation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from brackets.models import Round
from tests.browser.conftest import DESKTOP, ContextFactory
from tests.browser.test_accessibility import PHONE_390, _check
from tests.pages.test_pairs_pages import finished_pairs_event
from tournament.models import Partnership

# A partnership row: its name must end before its score begins (no overlap).
OVERLAPS = """(sel) => [...document.querySelectorAll(sel)].filter(li => {
    const who = li.querySelector('.seat-who').getBoundingClientRect();
    const score = li.querySelector('.num').getBoundingClientRect();
    return who.bottom > score.top + 1 && who.right > score.left + 1;
  }).map(li => li.textContent)"""


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [PHONE_390, DESKTOP], ids=["390", "1280"])
def test_pairs_tables_read_by_partnership_on_a_phone_and_a_desktop(
    browser_context: ContextFactory,
    transactional_db: Any,
    artifacts_dir: Path,
    viewport: dict[str, int],
) -> None:
    t, d = finished_pairs_event()
    Partnership.objects.filter(tournament=t).update(name="Los Primos de Bayamón")
    s = t.slug
    final = Round.objects.get(stage__tournament=t, kind=Round.Kind.FINAL)
    width = viewport["width"]

    director = browser_context(viewport=viewport, user=d).new_page()
    director.goto(f"/director/tournaments/{s}/bracket/")
    # Two qualifying tables and the final: two partnership rows each, plus the final's card.
    assert director.locator("ol.pair-sides").count() == 4
    assert director.locator("ol.pair-sides > li").count() == 8
    assert director.evaluate(OVERLAPS, "ol.pair-sides.compact > li") == []
    assert director.evaluate("document.documentElement.scrollWidth") <= width
    director.screenshot(path=artifacts_dir / f"pairs-tables-bracket-{width}.png", full_page=True)

    director.goto(f"/director/tournaments/{s}/rounds/{final.pk}/")
    assert director.locator("h1").inner_text().startswith("The final (two partnerships)")
    rows = director.locator("#round-rows ol.pair-sides > li")
    assert rows.count() == 2
    assert director.evaluate(OVERLAPS, "#round-rows ol.pair-sides > li") == []
    assert director.evaluate("document.documentElement.scrollWidth") <= width
    director.screenshot(path=artifacts_dir / f"pairs-tables-round-{width}.png", full_page=True)

    spectator = browser_context(viewport=viewport).new_page()
    spectator.goto(f"/live/{s}/bracket/")
    assert spectator.locator("ol.bracket-pairs > li").count() == 6
    placings = spectator.locator("ol.bracket-pairs .placing").all_inner_texts()
    assert sorted(set(placings)) == ["1st", "2nd"]
    assert spectator.evaluate("document.documentElement.scrollWidth") <= width
    spectator.screenshot(path=artifacts_dir / f"pairs-tables-live-{width}.png", full_page=True)

    found = _check(
        director,
        [
            f"/director/tournaments/{s}/bracket/",
            f"/director/tournaments/{s}/rounds/{final.pk}/",
            f"/director/tournaments/{s}/stages/",
        ],
        artifacts_dir,
        f"pairs-tables-director-{width}",
    )
    found += _check(spectator, [f"/live/{s}/bracket/"], artifacts_dir, f"pairs-tables-{width}")
    assert found == [], "axe violations:\n" + "\n".join(found)
