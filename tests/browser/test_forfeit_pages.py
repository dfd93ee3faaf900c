"""A forfeited match in Chromium (T7): the referee's match page and the player's page say it
was a forfeit by that player, a 0-6 loss, end the hands list on the forfeit (why C is on 0
after a last hand of 0-1-1-1), and the player's record names its stage and counts as the
standings do. On a phone; screenshots go to test-artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ContextFactory
from tests.live.forfeit_event import ForfeitEvent, forfeit_event
from tournament.models import Entry


@pytest.fixture
def ev(transactional_db: Any, settings: Any) -> ForfeitEvent:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    return forfeit_event()


@pytest.mark.embedded
def test_match_page_and_player_page_of_a_forfeit(
    browser_context: ContextFactory, ev: ForfeitEvent, artifacts_dir: Path
) -> None:
    name = Entry.objects.select_related("player").get(pk=ev.leaver).player.name
    referee = browser_context(user=ev.director).new_page()
    referee.goto(f"/matches/{ev.forfeited.pk}/")
    card = referee.locator(".result-card")
    expect(card).to_contain_text(
        f"0\u20131\u20130\u20131 · Forfeit by C · {name}: a 0\u20136 loss (T7)"
    )
    expect(card).not_to_contain_text("R31c")
    row = referee.locator("#forfeit-row")
    expect(row).to_contain_text(f"Forfeit (T7): C · {name} 0, loses 0\u20136")
    expect(row.locator("td.scores")).to_have_text("0\u20131\u20130\u20131")
    # Newest first: the forfeit line, then the last hand played and its 0-1-1-1.
    expect(referee.locator("table.hands tbody tr").nth(1).locator("td.scores")).to_have_text(
        "0\u20131\u20131\u20131"
    )
    referee.screenshot(path=artifacts_dir / "forfeit-referee-page.png", full_page=True)

    phone = browser_context().new_page()
    phone.goto(f"/live/{ev.tournament.slug}/players/{ev.leaver}/")
    summary = phone.locator(".player-summary")
    expect(summary.locator("dt", has_text="Record in Qualifying")).to_be_visible()
    expect(summary).to_contain_text("0 of 1 match won · 0 hands won")
    expect(summary.locator(".record-counted")).to_contain_text(
        "the hands of a forfeited match do not count"
    )
    expect(phone.locator(".forfeit-note")).to_have_text(f"Forfeit by {name}: a 0\u20136 loss (T7)")
    hands = phone.locator(f"#hands-{ev.forfeited.pk}")
    hands.locator("summary").click()
    forfeit_row = hands.locator("tr.forfeit-row")
    expect(forfeit_row).to_be_visible()
    expect(forfeit_row).to_contain_text(f"Forfeit (T7): {name} 0, loses 0\u20136")
    expect(forfeit_row.locator(".scores-after")).to_have_text("0\u20131\u20130\u20131")
    phone.screenshot(path=artifacts_dir / "forfeit-player-page.png", full_page=True)
