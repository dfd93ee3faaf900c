"""A co-director invitation on phones: the director creates it on the directors page, the
link (``/invite/#<key>``) is opened on another phone, whose script checks it, hides the key from
the address bar and shows the sign-up form; the new person signs up and lands on the
tournament's dashboard, signed in as their new account. Nothing scrolls sideways at 360 px.
Screenshots go to test-artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from tests.browser.conftest import ContextFactory
from tests.factories import TournamentFactory, director_of
from tournament.models import DirectorInvitation, Tournament, TournamentRole

PASSWORD = "Domino-table-42"


@pytest.fixture
def world(transactional_db: Any) -> dict[str, Any]:
    tournament = TournamentFactory(
        name="Island Open", slug="island-open", status=Tournament.Status.REGISTRATION
    )
    return {"t": tournament, "d": director_of(tournament, username="dir")}


def no_sideways_scroll(page: Page, width: int = 360) -> None:
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"{page.url} scrolls sideways ({scroll} px)"


def test_a_director_invites_and_a_new_person_signs_up_on_a_phone(
    browser_context: ContextFactory, world: dict[str, Any], artifacts_dir: Path
) -> None:
    slug = world["t"].slug
    desk = browser_context(user=world["d"]).new_page()
    desk.goto(f"/director/tournaments/{slug}/")
    desk.locator(".director-nav").get_by_role("link", name="Directors").click()
    desk.wait_for_url(f"**/director/tournaments/{slug}/directors/")
    desk.fill("#invite-label", "Ana Ruiz")
    desk.get_by_role("button", name="Create invitation").click()
    link = desk.locator("#issued-link")
    expect(link).to_be_visible()
    expect(desk.locator(".issued svg")).to_be_visible()  # the QR code
    no_sideways_scroll(desk)
    revoke = desk.locator("#pending-invitations").get_by_role("button", name="Revoke")
    box, view = revoke.bounding_box(), desk.viewport_size
    assert box is not None
    assert view is not None
    assert box["x"] + box["width"] <= view["width"], "the revoke button is cut off on a phone"
    desk.screenshot(path=artifacts_dir / "director-invitation-issued.png", full_page=True)
    href = link.get_attribute("href") or ""
    parts = urlsplit(href)
    assert parts.path == "/invite/"
    assert parts.fragment.count(".") == 1
    relative = f"{parts.path}#{parts.fragment}"

    # The new person's phone: no account, no session.
    invitee = browser_context().new_page()
    requests: list[str] = []
    invitee.on("request", lambda r: requests.append(r.url))
    invitee.goto(relative)
    expect(invitee.locator("#invite-status")).to_contain_text(
        "You are invited to direct Island Open"
    )
    expect(invitee.locator("#invite-form")).to_be_visible()
    # The key left the address bar and was never part of a requested URL.
    assert invitee.evaluate("window.location.hash") == ""
    assert not any(parts.fragment in url for url in requests), requests
    no_sideways_scroll(invitee)
    invitee.fill("#id_username", "ana")
    invitee.fill("#id_password1", PASSWORD)
    invitee.fill("#id_password2", "Not-the-same-1")
    invitee.get_by_role("button", name="Create my account").click()
    expect(invitee.locator("[data-field='password2'] .field-error")).to_be_visible()
    invitee.fill("#id_password1", PASSWORD)
    invitee.fill("#id_password2", PASSWORD)
    invitee.screenshot(path=artifacts_dir / "director-invitation-sign-up.png", full_page=True)
    invitee.get_by_role("button", name="Create my account").click()

    invitee.wait_for_url(f"**/director/tournaments/{slug}/")
    expect(invitee.locator(".messages")).to_contain_text("You now direct Island Open")
    no_sideways_scroll(invitee)
    ana = get_user_model().objects.get(username="ana")
    assert not ana.is_staff
    assert list(
        TournamentRole.objects.filter(user=ana).values_list("tournament__slug", "role")
    ) == [(slug, "director")]
    assert DirectorInvitation.objects.get().used_by == ana

    # The same link again, on a third phone: already used.
    replay = browser_context().new_page()
    replay.goto(relative)
    expect(replay.locator("#invite-status")).to_contain_text("already been used")
    expect(replay.locator("#invite-form")).to_be_hidden()

    # The director sees the newcomer, and no pending invitation.
    desk.goto(f"/director/tournaments/{slug}/directors/")
    expect(desk.locator("#director-list")).to_contain_text("joined through an invitation")
    expect(desk.locator("#pending-invitations")).to_contain_text("No pending invitation.")

    # Removing a director (docs/security.md): ana may step down but has no button against
    # the director who invited her; he removes her, and the button fits a phone.
    dir_role = TournamentRole.objects.get(user=world["d"], tournament=world["t"])
    ana_role = TournamentRole.objects.get(user=ana)
    invitee.goto(f"/director/tournaments/{slug}/directors/")
    expect(invitee.locator(f"#director-{ana_role.pk} button")).to_have_text("Step down")
    expect(invitee.locator(f"#director-{dir_role.pk} button")).to_have_count(0)
    no_sideways_scroll(invitee)
    remove = desk.locator(f"#director-{ana_role.pk}").get_by_role("button", name="Remove")
    box = remove.bounding_box()
    assert box is not None
    assert view is not None
    assert box["x"] + box["width"] <= view["width"], "the remove button is cut off on a phone"
    expect(desk.locator(f"#director-{dir_role.pk}")).to_contain_text("Step down")
    remove.click()
    expect(desk.locator(".messages")).to_contain_text("ana no longer directs this tournament.")
    expect(desk.locator("#director-list")).not_to_contain_text("ana")
    assert not TournamentRole.objects.filter(user=ana).exists()
