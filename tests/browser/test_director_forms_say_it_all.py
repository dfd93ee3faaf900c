"""In a real browser: the new-tournament form shows every field's refusal of one submission at
once (each under its field, the typed values kept), and a finished event's override page says
it is read-only before any form, pointing to the Lifecycle page (user test). The placing fields
of a running event's override page say whose placing they are (T3, T4). Screenshots go to
test-artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from brackets.models import RoundMatch
from brackets.services import round_publish, stage_seed
from scoring.models import Match
from scoring.services import match_result_override
from tests.brackets.factories_pages import tournament_with_stage
from tests.browser.conftest import DESKTOP, ContextFactory
from tests.factories import TournamentFactory
from tournament.models import Tournament
from tournament.services import tournament_status_change

pytestmark = [pytest.mark.browser, pytest.mark.embedded]


def test_the_new_tournament_form_shows_every_refusal_at_once(
    browser_context: ContextFactory, transactional_db: Any, artifacts_dir: Path
) -> None:
    TournamentFactory(slug="spring-cup")
    _t, director, _stage = tournament_with_stage(0, name="Any Cup", slug="any-cup")
    page = browser_context(viewport=DESKTOP, user=director).new_page()
    page.goto("/director/new/")
    page.fill("#id_name", "\u200b")
    page.fill("#id_slug", "Spring-Cup")
    page.fill("#id_venue", "Hall 2")
    page.fill("#id_starts_on", "2027-03-05")
    page.fill("#id_ends_on", "2027-03-01")
    page.fill("#id_rule_target", "-3")
    page.locator("#save-tournament").click()

    expect(page.locator("#form-error-summary")).to_contain_text(
        "Correct the 4 fields marked below:"
    )
    expect(page.locator("[data-field='name'] .field-error")).to_have_text("Name: Required.")
    expect(page.locator("[data-field='slug'] .field-error")).to_have_text(
        "Short name in links: 'spring-cup' is another tournament's; choose another."
    )
    expect(page.locator("[data-field='ends_on'] .field-error")).to_have_text(
        "The tournament cannot end before it starts."
    )
    expect(page.locator("[data-field='rule_target'] .field-error")).to_contain_text("(R30-R32)")
    # What was typed is still there.
    expect(page.locator("#id_slug")).to_have_value("Spring-Cup")
    expect(page.locator("#id_venue")).to_have_value("Hall 2")
    expect(page.locator("#id_starts_on")).to_have_value("2027-03-05")
    expect(page.locator("#id_rule_target")).to_have_value("-3")
    page.screenshot(path=artifacts_dir / "new-tournament-all-errors.png", full_page=True)
    # The summary's link leads to the field far down the form.
    page.locator("#form-error-summary a[href='#id_rule_target']").click()
    expect(page.locator("#id_rule_target")).to_be_in_viewport()
    assert not Tournament.objects.filter(venue="Hall 2").exists()
    # Corrected, it is created; the link's #fragment does not follow onto the next page.
    page.fill("#id_name", "Spring Two")
    page.fill("#id_slug", "spring-two")
    page.fill("#id_ends_on", "2027-03-06")
    page.fill("#id_rule_target", "")
    page.locator("#save-tournament").click()
    expect(page).to_have_url(
        f"{page.url.split('/director/')[0]}/director/tournaments/spring-two/stages/"
    )
    assert Tournament.objects.get(slug="spring-two").venue == "Hall 2"


def test_a_finished_events_override_page_is_read_only_up_front(
    browser_context: ContextFactory, transactional_db: Any, artifacts_dir: Path
) -> None:
    tournament, director, stage = tournament_with_stage(8, name="Done Cup", slug="done-cup")
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    first, second = (
        link.match_id for link in RoundMatch.objects.filter(round=rnd).order_by("table_number")
    )
    match_result_override(match_id=first, actor=director, scores=[6, 2, 0, 0], reason="sheet")
    page = browser_context(user=director).new_page()

    # While it runs: the placing fields say whose placing and its range.
    page.goto(f"/director/tournaments/done-cup/rounds/{rnd.pk}/matches/{second}/override/")
    expect(page.get_by_label("Placing of A ·", exact=False)).to_be_visible()
    expect(page.locator("label[for='id_placing_0']")).to_contain_text(
        "(1st\u20134th; a placing may be shared, T3)"
    )
    expect(page.locator("#placings-note")).to_contain_text("1st, 1st, 3rd, 4th")

    tournament_status_change(tournament=tournament, actor=director, status="finished")
    page.goto(f"/director/tournaments/done-cup/rounds/{rnd.pk}/matches/{first}/override/")
    notice = page.locator("#action-read-only")
    expect(notice).to_contain_text("Done Cup is finished: its results are read-only")
    expect(page.locator("#action-form")).to_have_count(0)
    expect(page.locator("input[name='score_0']")).to_have_count(0)
    page.screenshot(path=artifacts_dir / "override-finished-read-only.png", full_page=True)
    page.locator("#action-reopen").click()
    expect(page).to_have_url(
        f"{page.url.split('/director/')[0]}/director/tournaments/done-cup/lifecycle/"
    )
    expect(page.get_by_role("button", name="Reopen")).to_be_visible()
    assert Match.objects.get(pk=first).scores == [6, 2, 0, 0]
