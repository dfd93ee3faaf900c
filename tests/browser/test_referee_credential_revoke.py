"""The referees page on a director's phone: a working credential reads "active", and Revoke asks
before a referee's phone stops recording (walkthrough: one tap revoked it, no question)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Dialog, expect

from tests.browser.conftest import ContextFactory
from tests.factories import TournamentFactory, director_of
from tournament.models import RefereeToken, Tournament


@pytest.fixture
def world(transactional_db: Any) -> dict[str, Any]:
    tournament = TournamentFactory(
        name="Island Open", slug="island-open", status=Tournament.Status.REGISTRATION
    )
    return {"t": tournament, "d": director_of(tournament, username="dir")}


def test_revoking_a_credential_asks_first(
    browser_context: ContextFactory, world: dict[str, Any]
) -> None:
    page = browser_context(user=world["d"]).new_page()
    page.goto(f"/director/tournaments/{world['t'].slug}/referees/")
    page.fill("#referee-create input[name=username]", "ref-lia")
    page.fill("#referee-create input[name=display_name]", "Lia Cruz")
    page.get_by_role("button", name="Create referee").click()
    page.get_by_role("button", name="Issue credential").click()
    expect(page.locator("#issued-link")).to_be_visible()
    state = page.locator(".credential-state")
    expect(state).to_contain_text("active")

    asked: list[str] = []

    def answer(accept: bool) -> Any:
        def on_dialog(dialog: Dialog) -> None:
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()

        return on_dialog

    page.once("dialog", answer(False))
    state.get_by_role("button").click()
    page.wait_for_timeout(300)
    assert asked
    assert asked[0].startswith("Revoke Lia Cruz's credential ")
    assert RefereeToken.objects.get().revoked_at is None  # dismissed: nothing sent

    page.once("dialog", answer(True))
    state.get_by_role("button").click()
    expect(page.locator(".credential-state")).to_contain_text("revoked")
    assert RefereeToken.objects.get().revoked_at is not None
