"""A finished pairs event on a 390 px phone (T9, T10, R42): the live home names the champion
partnership and the final, the bracket lists each partnership once, the director's bracket and
Players pages speak of partnerships, and the referee's list shows AC against BD; no page
scrolls sideways and axe-core finds no violation."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from scoring.models import Match
from tests.browser.conftest import ContextFactory
from tests.browser.test_accessibility import PHONE_390, _check
from tests.pages.test_pairs_event_words import pairs_round_one, partners
from tests.pages.test_pairs_pages import finished_pairs_event
from tournament.models import Partnership
from tournament.services import referee_create, referee_token_issue


def _no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE_390["width"], f"{page.url} is {width} px wide"


@pytest.mark.browser
def test_a_pairs_event_reads_by_partnership_on_a_phone(
    browser_context: ContextFactory, transactional_db: Any, artifacts_dir: Path
) -> None:
    t, d = finished_pairs_event()
    Partnership.objects.filter(tournament=t).update(name="Los Primos de Bayamón")
    s = t.slug
    (_pid, (a, b)), *_ = sorted(partners(t).items())
    # The referee's list: a running pairs event (a finished one takes no new referee).
    running, rd, _rnd, match = pairs_round_one()
    role = referee_create(tournament=running, actor=rd, username="pairs-phone-ref")
    Match.objects.filter(pk=match.pk).update(referee=role.user)
    token = referee_token_issue(tournament=running, actor=rd, user=role.user)

    spectator = browser_context(viewport=PHONE_390).new_page()
    spectator.goto(f"/live/{s}/")
    assert spectator.locator("#h-champion").inner_text() == "Champion partnership"
    assert " & " in spectator.locator(".champion-name").inner_text()
    assert "Final table only" not in spectator.locator("main").inner_text()
    _no_sideways_scroll(spectator)
    spectator.goto(f"/live/{s}/bracket/")
    places = spectator.locator("ol.placing-list > li")
    assert places.count() == 4  # four partnerships, not eight players
    assert f"Los Primos de Bayamón ({a} & {b})" in spectator.locator("main").inner_text()
    _no_sideways_scroll(spectator)
    spectator.screenshot(path=artifacts_dir / "pairs-bracket-390.png", full_page=True)

    director = browser_context(viewport=PHONE_390, user=d).new_page()
    for path in ("bracket/", "players/import/"):
        director.goto(f"/director/tournaments/{s}/{path}")
        assert "partnership" in director.locator("main").inner_text().lower()
        _no_sideways_scroll(director)
    director.screenshot(path=artifacts_dir / "pairs-players-390.png", full_page=True)

    phone = browser_context(viewport=PHONE_390).new_page()
    phone.goto(f"/ref/#{token.key}")
    phone.wait_for_url(re.compile(r"/(referee|matches)/"))  # signed in: to the match in play
    phone.goto("/referee/")
    row = phone.locator(".match-list li").first.inner_text()
    assert re.search(r"AC · .+\s+against BD · ", row), row
    _no_sideways_scroll(phone)
    phone.screenshot(path=artifacts_dir / "pairs-referee-home-390.png", full_page=True)

    found = _check(
        browser_context(viewport=PHONE_390).new_page(),
        [f"/live/{s}/", f"/live/{s}/bracket/"],
        artifacts_dir,
        "pairs-words-public",
    )
    found += _check(
        director,
        [f"/director/tournaments/{s}/bracket/", f"/director/tournaments/{s}/players/import/"],
        artifacts_dir,
        "pairs-words-director",
    )
    assert found == [], "axe violations:\n" + "\n".join(found)
