"""Phone-sized director pages: the tournament settings form and the override and replace
pages (reason, confirmation, refusal naming its rule); nothing scrolls sideways at 360 px.
Screenshots go to test-artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from brackets.models import RoundMatch
from brackets.services import round_publish, stage_seed
from scoring.models import Match, Seat
from tests.brackets.factories_pages import tournament_with_stage
from tests.browser.conftest import DESKTOP, ContextFactory
from tournament.models import Entry, Player


@pytest.fixture
def world(transactional_db: Any) -> dict[str, Any]:
    tournament, director, stage = tournament_with_stage(8, name="Phone Cup", slug="phone-cup")
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    links = list(RoundMatch.objects.filter(round=rnd).order_by("table_number"))
    late = Entry.objects.create(tournament=tournament, player=Player.objects.create(name="Late Lu"))
    return {"t": tournament, "d": director, "round": rnd, "links": links, "late": late}


def no_sideways_scroll(page: Page, width: int = 360) -> None:
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"{page.url} scrolls sideways ({scroll} px)"


def test_settings_override_and_replace_on_a_phone(
    browser_context: ContextFactory, world: dict[str, Any], artifacts_dir: Path
) -> None:
    slug, rnd = world["t"].slug, world["round"]
    page = browser_context(user=world["d"]).new_page()

    page.goto(f"/director/tournaments/{slug}/settings/")
    expect(page.locator("#id_rule_tie_value_cap")).to_be_visible()
    no_sideways_scroll(page)
    page.select_option("#id_ruleset_preset", "block")
    expect(page.locator("#id_rule_scoring option").first).to_contain_text(
        "preset: Pip count (pips)"
    )
    page.select_option("#id_rule_llave", "plus_one")
    page.locator("#save-tournament").click()
    expect(page.locator("[data-field='rule_llave'] .field-error")).to_contain_text("R24")
    page.screenshot(path=artifacts_dir / "director-settings-phone.png", full_page=True)

    # Override a table's result: tied top scores need places (refusal names it), then confirm.
    first = world["links"][0].match_id
    page.goto(f"/director/tournaments/{slug}/rounds/{rnd.pk}/matches/{first}/override/")
    n = Match.objects.get(pk=first).n_players
    for seat in range(n):
        # Someone is always on love under the default ruleset (R31c, R34).
        page.fill(f"#id_score_{seat}", "6" if seat == 0 else "0" if seat == n - 1 else "2")
    page.fill("#id_reason", "Score sheet signed by all players")
    page.locator("#action-next").click()
    expect(page.locator("#confirm-box")).to_contain_text("A 6")
    no_sideways_scroll(page)
    page.screenshot(path=artifacts_dir / "director-override-phone.png", full_page=True)
    page.locator("#action-confirm").click()
    expect(page.locator(".messages")).to_contain_text("by director decision")
    assert Match.objects.get(pk=first).end_reason == Match.EndReason.OVERRIDE

    # Replace a no-show at a table that has not started (T7), on a desktop.
    desk = browser_context(viewport=DESKTOP, user=world["d"]).new_page()
    second = world["links"][1].match_id
    desk.goto(f"/director/tournaments/{slug}/rounds/{rnd.pk}/")
    desk.locator(f"#replace-{second}").click()
    desk.select_option("#id_out_seat", "1")
    desk.select_option("#id_in_entry", str(world["late"].pk))
    desk.fill("#id_reason", "Did not come")
    desk.locator("#action-next").click()
    expect(desk.locator("#confirm-box")).to_contain_text("Late Lu takes seat B")
    desk.screenshot(path=artifacts_dir / "director-replace-desktop.png")
    desk.locator("#action-confirm").click()
    expect(desk.locator(".messages")).to_contain_text("Late Lu takes seat B")
    assert Seat.objects.get(match_id=second, seat=1).entry_id == world["late"].pk
