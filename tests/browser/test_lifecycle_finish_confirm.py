"""The Lifecycle page asks before a director finishes a tournament by hand: finishing makes
everything read-only and revokes every referee link and key, which reopening does not bring
back (README, Lifecycle). Moving to registration or running asks nothing. Found in a
director's walkthrough: "Finished" sat in the same select as the other moves, one click away."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Dialog, expect

from tests.browser.conftest import DESKTOP, ContextFactory
from tests.factories import TournamentFactory, director_of
from tournament.models import Tournament

pytestmark = [pytest.mark.browser, pytest.mark.embedded]


def test_finishing_by_hand_asks_first_and_a_no_changes_nothing(
    browser_context: ContextFactory, transactional_db: Any
) -> None:
    tournament: Tournament = TournamentFactory(
        status=Tournament.Status.REGISTRATION, slug="ask-cup", name="Ask Cup"
    )
    page = browser_context(viewport=DESKTOP, user=director_of(tournament)).new_page()
    asked: list[str] = []
    answer = {"accept": False}

    def on_dialog(dialog: Dialog) -> None:
        asked.append(dialog.message)
        if answer["accept"]:
            dialog.accept()
        else:
            dialog.dismiss()

    page.on("dialog", on_dialog)
    page.goto("/director/tournaments/ask-cup/lifecycle/")
    page.select_option("#status-next", "finished")
    page.get_by_role("button", name="Change status").click()
    expect(page.locator("#status")).to_have_text("Registration")
    assert len(asked) == 1
    assert "Finish Ask Cup now?" in asked[0]
    assert "every referee link and key is revoked" in asked[0]
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTRATION

    # Running asks nothing; finishing, once confirmed, finishes.
    page.select_option("#status-next", "running")
    page.get_by_role("button", name="Change status").click()
    expect(page.locator("#status")).to_have_text("Running")
    assert len(asked) == 1
    answer["accept"] = True
    page.select_option("#status-next", "finished")
    page.get_by_role("button", name="Change status").click()
    expect(page.locator("#status")).to_have_text("Finished")
    assert len(asked) == 2
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
