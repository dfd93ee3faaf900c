"""A key shown once survives no reload, and a reload issues nothing (POST-redirect-GET).

Bug: "Issue credential" (Referees page) and "Create invitation" (Directors page) answered
their POST with the page showing the key, at the POST's address: the browser's reload sent the
form again, issuing ANOTHER credential (the first one kept working, seen by nobody) or another
invitation. Now the POST redirects to the page, which shows the key once (it waits in the
director's session, never in the URL); a reload is a plain GET: the key is gone and nothing
new is issued.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ContextFactory
from tests.factories import TournamentFactory, director_of
from tournament.models import DirectorInvitation, RefereeToken, Tournament


@pytest.fixture
def world(transactional_db: Any) -> dict[str, Any]:
    tournament = TournamentFactory(
        name="Island Open", slug="reload-open", status=Tournament.Status.REGISTRATION
    )
    return {"t": tournament, "d": director_of(tournament, username="dir")}


def test_a_reload_after_issuing_a_credential_shows_no_key_and_issues_none(
    browser_context: ContextFactory, world: dict[str, Any]
) -> None:
    path = f"/director/tournaments/{world['t'].slug}/referees/"
    page = browser_context(user=world["d"]).new_page()
    page.goto(path)
    page.fill("#referee-create input[name=username]", "ref-lia")
    page.fill("#referee-create input[name=display_name]", "Lia Cruz")
    page.get_by_role("button", name="Create referee").click()
    page.get_by_role("button", name="Issue credential").click()
    key = page.locator("#issued-key")
    expect(key).to_be_visible()
    shown = key.inner_text()
    assert page.url.endswith(path)  # the page's own address, with no key in it
    assert shown.split(".")[0] == RefereeToken.objects.get().prefix

    page.reload()
    expect(page.locator(".active-credentials")).to_contain_text("1 active credential")
    expect(page.locator("#issued-key")).to_have_count(0)
    assert shown not in page.content()
    assert RefereeToken.objects.count() == 1


def test_a_reload_after_creating_an_invitation_shows_no_link_and_creates_none(
    browser_context: ContextFactory, world: dict[str, Any]
) -> None:
    path = f"/director/tournaments/{world['t'].slug}/directors/"
    page = browser_context(user=world["d"]).new_page()
    page.goto(path)
    page.fill("#invite-label", "Ana Ruiz")
    page.get_by_role("button", name="Create invitation").click()
    link = page.locator("#issued-link")
    expect(link).to_be_visible()
    href = link.get_attribute("href") or ""
    assert "#" in href
    assert page.url.endswith(path)

    page.reload()
    expect(page.locator("#pending-invitations")).to_contain_text("Ana Ruiz")
    expect(page.locator("#issued-link")).to_have_count(0)
    assert href.split("#", 1)[1] not in page.content()
    assert DirectorInvitation.objects.count() == 1
