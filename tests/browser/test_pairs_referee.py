"""A referee of a partnership match on a phone (issue 17): the two partnerships are shown
together, and before anything is sent the page says what R43 makes of a blocked hand — the
lowest count wins for its partnership, shared only by partners it still wins, shared across
the partnerships it ties — and which partnership a domino wins for."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest
from playwright.sync_api import Page, expect

from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of
from tournament.models import Tournament
from tournament.services import referee_token_issue

pytestmark = [pytest.mark.browser, pytest.mark.embedded]


def test_partnership_referee_sees_partners_and_the_r43_outcome(
    page: Page, artifacts_dir: Path
) -> None:
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="wsod_partners"))  # type: ignore[no-untyped-call]
    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee)
    token = referee_token_issue(tournament=tournament, actor=director_of(tournament), user=referee)
    names = [s.entry.player.name for s in match.seats.order_by("seat")]

    page.goto(f"/ref/#{token.key}")
    sides = page.locator(".partnerships .side")
    expect(sides.nth(0)).to_contain_text(f"{names[0]} & {names[2]}")  # AC: A with C (R42)
    expect(sides.nth(1)).to_contain_text(f"{names[1]} & {names[3]}")  # BD: B with D

    page.locator("#hand-form input[name='poser'][value='0'] + span").tap()
    page.locator("#hand-form input[name='end'][value='block'] + span").tap()
    preview = page.locator("#confirm-summary")  # the R43 result, said once, by the button

    def counts(values: list[int]) -> None:
        for seat, value in enumerate(values):
            page.fill(f"#count-{seat}", str(value))

    counts([3, 9, 3, 12])  # partners A and C share the lowest: AC wins (R43)
    expect(preview).to_contain_text("AC ·")
    expect(preview).to_contain_text("share the lowest count 3")
    expect(preview).to_contain_text("R43")
    counts([3, 3, 9, 12])  # A (AC) and B (BD) share it: a tie whatever the rest (R43)
    expect(preview).to_contain_text("of both partnerships")
    expect(preview).to_contain_text("replay")
    counts([8, 4, 9, 12])  # B alone: BD wins
    expect(preview).to_contain_text("BD ·")
    expect(preview).to_contain_text(f"{names[1]}")
    page.screenshot(path=artifacts_dir / "pairs-referee-block.png")

    page.locator("#hand-form input[name='end'][value='domino'] + span").tap()
    page.locator("#hand-form input[name='winner'][value='2'] + span").tap()
    expect(page.locator("#confirm-summary")).to_contain_text("AC ·")  # C dominoes for AC
    page.locator("#confirm-hand").tap()
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 recorded")
    scores = [int(t) for t in page.locator(".scoreboard .score").all_inner_texts()]
    assert scores == [1, 0, 1, 0]  # every seat shows its partnership's score (R42)
