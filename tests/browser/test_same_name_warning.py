"""A director adds a player whose name a known player has, with no club to tell them apart:
the form comes back with a warning listing that player, nothing is saved until the director
answers, and either answer works (Players page: a different person; Partnerships page: the
same person; the substitute form (T11): a different person). The warning itself passes axe."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.brackets.pairs_helpers import make_pairs_tournament
from tests.browser.conftest import DESKTOP, ContextFactory
from tests.factories import EntryFactory, PlayerFactory, TournamentFactory
from tournament.models import Entry, Partnership, PartnershipMember, Player


def _axe(page: Page) -> list[str]:
    found = []
    for violation in Axe().run(page).response.get("violations", []):
        targets = [" ".join(map(str, node.get("target", []))) for node in violation["nodes"]]
        found.append(f"{violation['id']} ({violation['impact']}) at {targets[:3]}")
    return found


@pytest.mark.browser
def test_players_page_warns_then_adds_a_different_person(
    browser_context: ContextFactory, transactional_db: Any, artifacts_dir: Path
) -> None:
    t, d, _ = make_pairs_tournament(0, status="registration", slug="same-name-open")
    known = PlayerFactory(name="José Pérez", club="Bayamón", country="PR")
    EntryFactory(player=known, tournament=TournamentFactory(name="Winter Cup"))
    page = browser_context(viewport=DESKTOP, user=d).new_page()
    page.goto(f"/director/tournaments/{t.slug}/players/import/")
    form = page.locator("#add-player")
    form.get_by_label("Name", exact=True).fill("Jose Perez")
    form.get_by_label("Rating").fill("1500")
    form.get_by_role("button", name="Add the player").click()

    warning = page.locator("#same-name-name")
    expect(warning).to_contain_text("A player named Jose Perez is already known")
    expect(warning).to_contain_text("Bayamón")
    expect(warning).to_contain_text("Winter Cup")
    expect(warning.get_by_label("The same person: José Pérez")).to_be_visible()
    page.screenshot(path=artifacts_dir / "same-name-warning.png", full_page=True)
    assert _axe(page) == []
    assert not Entry.objects.filter(tournament=t).exists()  # nothing saved yet

    # The typed values are still there; the director says it is someone else.
    expect(form.get_by_label("Rating")).to_have_value("1500")
    warning.get_by_label("A different person: add anyway").check()
    form.get_by_role("button", name="Add the player").click()
    expect(page.locator(".messages")).to_contain_text("Jose Perez added.")
    expect(page.locator("#same-name-name")).to_have_count(0)
    new = Entry.objects.select_related("player").get(tournament=t).player
    assert (new.pk != known.pk, new.name, new.rating) == (True, "Jose Perez", 1500)


@pytest.mark.browser
def test_partnerships_page_warns_then_pairs_the_same_person(
    browser_context: ContextFactory, transactional_db: Any
) -> None:
    t, d, _ = make_pairs_tournament(0, status="registration", slug="same-name-pairs")
    known = PlayerFactory(name="Beto Cruz", club="Ponce", rating=1900)
    page = browser_context(viewport=DESKTOP, user=d).new_page()
    page.goto(f"/director/tournaments/{t.slug}/pairs/")
    form = page.locator("#pair-register")
    form.get_by_label("First player").fill("Ana Ruiz")
    form.locator("#id_pair_rating_a").fill("1830")
    form.get_by_label("Second player").fill("beto cruz")
    form.get_by_role("button", name="Register").click()

    warning = page.locator("#same-name-player_b")
    expect(warning).to_contain_text("Ponce")
    assert not Partnership.objects.filter(tournament=t).exists()
    warning.get_by_label("The same person: Beto Cruz").check()
    form.get_by_role("button", name="Register").click()
    expect(page.locator(".messages")).to_contain_text("Partnership 1 registered.")
    players = [
        m.entry.player
        for m in PartnershipMember.objects.filter(partnership__tournament=t).order_by("slot")
    ]
    assert [(p.name, p.rating) for p in players] == [("Ana Ruiz", 1830), ("Beto Cruz", 1900)]
    assert players[1].pk == known.pk
    assert Player.objects.filter(name__iexact="beto cruz").count() == 1


@pytest.mark.browser
def test_substitute_form_warns_then_substitutes_a_different_person(
    browser_context: ContextFactory, transactional_db: Any, artifacts_dir: Path
) -> None:
    """T11: the substitute form asks the same question on its partnership's row."""
    t, d, (pair, _) = make_pairs_tournament(2, slug="same-name-substitute")
    known = PlayerFactory(name="José Pérez", club="Bayamón", country="PR")
    leaving = PartnershipMember.objects.get(partnership=pair, slot=0).entry
    page = browser_context(viewport=DESKTOP, user=d).new_page()
    page.goto(f"/director/tournaments/{t.slug}/pairs/")
    form = page.locator(f"#substitute-form-{pair.pk}")
    form.locator("select[name=leaving]").select_option(str(leaving.pk))
    form.locator("input[name=player]").fill("Jose Perez")
    form.locator("input[name=reason]").fill("flight delayed")
    form.get_by_role("button", name="Substitute").click()

    form = page.locator(f"#substitute-form-{pair.pk}")
    warning = form.locator("#same-name-player")
    expect(warning).to_contain_text("A player named Jose Perez is already known")
    expect(warning).to_contain_text("Bayamón")
    expect(warning.get_by_label("The same person: José Pérez")).to_be_visible()
    page.screenshot(path=artifacts_dir / "same-name-substitute.png", full_page=True)
    assert _axe(page) == []
    current = PartnershipMember.objects.get(partnership=pair, slot=0, left_at__isnull=True)
    assert current.entry_id == leaving.pk  # nothing saved yet

    expect(form.locator("input[name=player]")).to_have_value("Jose Perez")
    expect(form.locator("input[name=reason]")).to_have_value("flight delayed")
    warning.get_by_label("A different person: add anyway").check()
    form.get_by_role("button", name="Substitute").click()
    expect(page.locator(".messages")).to_contain_text("Substitute recorded")
    expect(page.locator("#same-name-player")).to_have_count(0)
    new = PartnershipMember.objects.get(partnership=pair, slot=0, left_at__isnull=True).entry
    assert (new.player_id != known.pk, new.player.name) == (True, "Jose Perez")
