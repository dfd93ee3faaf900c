"""The seeding list's row buttons in a real browser (Chromium), with and without JavaScript:
each sends the page's one ``row-actions`` form to its own address (``formaction``), so a list
of 300 players no longer carries 600 forms (bench/RESULTS.md, "Pages at 300 players"); the
arrows keep saving one move each without JavaScript, and "Withdraw…" opens the withdrawal's
page. Screenshots go to test-artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Dialog, expect

from brackets.models import StageEntry
from brackets.services import stage_seed
from tests.brackets.factories_pages import tournament_with_stage
from tests.browser.conftest import DESKTOP, ContextFactory
from tournament.models import Entry, Tournament

# Also in the embedded run (SQLite): the pages of `make demo`.
pytestmark = pytest.mark.embedded


@pytest.fixture
def world(transactional_db: Any) -> dict[str, Any]:
    """Eight players, six checked in and seeded, two still to check in; players confirm
    results with PINs (so every row has its PIN button)."""
    t, director, stage = tournament_with_stage(8, name="Row Cup", slug="row-cup")
    Tournament.objects.filter(pk=t.pk).update(confirmation="match_end")
    late = list(Entry.objects.filter(tournament=t).order_by("id")[6:])
    Entry.objects.filter(pk__in=[e.pk for e in late]).update(checked_in=False)
    stage_seed(stage=stage, actor=director, method="rating")
    return {
        "t": t,
        "d": director,
        "stage": stage,
        "late": late,
        "seeding": f"/director/tournaments/{t.slug}/stages/{stage.pk}/seeding/",
    }


def _order(stage: Any) -> list[int]:
    return list(
        StageEntry.objects.filter(stage=stage).order_by("seed").values_list("entry_id", flat=True)
    )


def test_row_buttons_work_with_javascript(
    browser_context: ContextFactory, world: dict[str, Any], artifacts_dir: Path
) -> None:
    page = browser_context(viewport=DESKTOP, user=world["d"]).new_page()
    page.goto(world["seeding"])
    assert page.evaluate("document.forms.length") <= 10
    late = world["late"][0]
    row = page.locator(f"tr[data-entry='{late.pk}']")
    row.get_by_role("button", name=f"Check in {late.player.name}").click()
    expect(page.locator(".messages")).to_contain_text(f"{late.player.name} checked in.")
    assert Entry.objects.get(pk=late.pk).checked_in

    # A PIN from a row; a second one asks first (the button's own data-confirm).
    first = _order(world["stage"])[0]
    row = page.locator(f"tr[data-entry='{first}']")
    row.get_by_role("button", name="issue a PIN").click()
    expect(page.locator("body")).to_contain_text("PIN")
    page.goto(world["seeding"])
    asked: list[str] = []

    def dismiss(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", dismiss)
    page.locator(f"tr[data-entry='{first}']").get_by_role("button", name="new PIN").click()
    expect(page).to_have_url(world["seeding"])
    assert len(asked) == 1
    assert asked[0].endswith("The old one stops working.")

    # The arrows move rows locally; one save posts the whole order.
    before = _order(world["stage"])
    name = Entry.objects.select_related("player").get(pk=before[0]).player.name
    page.get_by_role("button", name=f"Move {name} down").click()
    page.locator("#save-order").click()
    expect(page.locator(".messages")).to_contain_text("Seed order saved.")
    assert _order(world["stage"]) == [before[1], before[0], *before[2:]]
    page.screenshot(path=artifacts_dir / "seeding-row-actions.png", full_page=True)


def test_row_buttons_work_without_javascript(
    browser_context: ContextFactory, world: dict[str, Any]
) -> None:
    page = browser_context(viewport=DESKTOP, user=world["d"], java_script_enabled=False).new_page()
    page.goto(world["seeding"])
    late = world["late"][1]
    page.get_by_role("button", name=f"Check in {late.player.name}").click()
    expect(page.locator(".messages")).to_contain_text(f"{late.player.name} checked in.")
    assert Entry.objects.get(pk=late.pk).checked_in
    page.get_by_role("button", name=f"Undo check-in of {late.player.name}").click()
    expect(page.locator(".messages")).to_contain_text("is no longer checked in")
    assert not Entry.objects.get(pk=late.pk).checked_in

    # Each arrow saves its move at once.
    before = _order(world["stage"])
    name = Entry.objects.select_related("player").get(pk=before[2]).player.name
    page.get_by_role("button", name=f"Move {name} up").click()
    expect(page.locator(".messages")).to_contain_text("Seed order saved.")
    assert _order(world["stage"]) == [before[0], before[2], before[1], *before[3:]]

    # "Withdraw…" opens the withdrawal's page: reason, then one press.
    gone = Entry.objects.select_related("player").get(pk=before[3])
    page.get_by_role("link", name=f"Withdraw {gone.player.name}").click()
    expect(page.locator("#withdraw-note, .withdraw-note")).to_contain_text(
        "The stage has not started: nothing is forfeited"
    )
    page.get_by_label("Reason").fill("Family matter")
    page.locator("#withdraw-confirm").click()
    expect(page.locator(".messages")).to_contain_text(f"{gone.player.name} withdrawn (T7).")
    assert StageEntry.objects.get(stage=world["stage"], entry=gone).status == "withdrawn"
