"""axe-core finds no violation on the public, referee and director pages, in both languages.

Issue 13 ("Done when"): every page a spectator, a referee or a director opens is checked by
axe (axe-playwright-python, which ships axe.min.js: nothing is downloaded) in English and in
Spanish, at a phone size for spectators and referees and at desktop size for directors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

from scoring.models import Match
from tests.browser.conftest import DESKTOP, ContextFactory
from tests.factories import referee_of
from tests.live.conftest import make_live_tournament, play_hands, start_match
from tournament.services import referee_token_issue

LANGUAGES = {"en": "en-US", "es": "es-ES"}
PHONE_390 = {"width": 390, "height": 844}


@dataclass
class Event:
    slug: str
    director: Any
    referee: Any
    referee_key: str
    match: Match
    entry_id: int
    round_id: int
    stage_id: int


@pytest.fixture
def event(transactional_db: Any) -> Event:
    lt = make_live_tournament(8, cut_size=4, slug="axe-open")
    referee = referee_of(lt.tournament, username="axe-ref", first_name="Rosa")
    matches = lt.matches()
    Match.objects.filter(pk__in=[m.pk for m in matches]).update(referee=referee)
    match = matches[0]
    match.refresh_from_db()
    payloads = start_match(match, lt.director, seed=43)
    play_hands(match, lt.director, payloads[:4])
    entry_id = match.seats.get(seat=0).entry_id
    token = referee_token_issue(tournament=lt.tournament, actor=lt.director, user=referee)
    return Event(
        slug=lt.tournament.slug,
        director=lt.director,
        referee=referee,
        referee_key=token.key,
        match=match,
        entry_id=entry_id,
        round_id=lt.round.pk,
        stage_id=lt.stage.pk,
    )


def _violations(page: Page, url: str) -> list[str]:
    response = page.goto(url)
    assert response is not None, url
    assert response.status < 500, f"{url}: {response.status}"
    page.wait_for_load_state("load")
    results = Axe().run(page)
    found = []
    for violation in results.response.get("violations", []):
        targets = [" ".join(map(str, node.get("target", []))) for node in violation["nodes"]]
        found.append(f"{url}: {violation['id']} ({violation['impact']}) at {targets[:3]}")
    return found


def _check(page: Page, urls: list[str], artifacts_dir: Path, name: str) -> list[str]:
    found: list[str] = []
    for url in urls:
        found += _violations(page, url)
    page.screenshot(path=artifacts_dir / f"axe-{name}.png")
    return found


@pytest.mark.browser
@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_axe_finds_no_violation(
    browser_context: ContextFactory, event: Event, artifacts_dir: Path, language: str
) -> None:
    locale = LANGUAGES[language]
    s = event.slug
    public = [
        "/",
        "/live/",
        f"/live/{s}/",
        f"/live/{s}/tables/",
        f"/live/{s}/standings/",
        f"/live/{s}/bracket/",
        f"/live/{s}/players/{event.entry_id}/",
        f"/live/{s}/matches/{event.match.pk}/",
        f"/live/{s}/projector/",
        f"/live/{s}/rounds/{event.round_id}/results/",
        "/rules/",
        "/rules/referee-card/",
        "/accounts/login/",
        "/ref/",
    ]
    referee = ["/referee/", f"/matches/{event.match.pk}/"]
    director = [
        "/director/",
        f"/director/tournaments/{s}/",
        f"/director/tournaments/{s}/stages/",
        f"/director/tournaments/{s}/stages/{event.stage_id}/seeding/",
        # The seeding list's "Withdraw…" leads here: the reason, and what it would forfeit.
        f"/director/tournaments/{s}/stages/{event.stage_id}/entries/{event.entry_id}/withdraw/",
        f"/director/tournaments/{s}/rounds/{event.round_id}/",
        f"/director/tournaments/{s}/bracket/",
        f"/director/tournaments/{s}/log/",
        f"/director/tournaments/{s}/webhooks/",
        f"/director/tournaments/{s}/notifications/emails/",
        f"/matches/{event.match.pk}/",
    ]
    found: list[str] = []
    # Reduced motion: the projector fades a slide in, and axe measuring contrast mid-fade
    # would judge a half-transparent frame rather than the page.
    spectator = browser_context(
        viewport=PHONE_390, locale=locale, reduced_motion="reduce"
    ).new_page()
    found += _check(spectator, public, artifacts_dir, f"public-{language}")
    # The referee signs in as on the table: the private link's key is exchanged for a session.
    ref_page = browser_context(viewport=PHONE_390, locale=locale).new_page()
    ref_page.goto(f"/ref/#{event.referee_key}")
    ref_page.wait_for_url(re.compile(r"/(referee|matches)/"))
    found += _check(ref_page, referee, artifacts_dir, f"referee-{language}")
    dir_page = browser_context(viewport=DESKTOP, locale=locale, user=event.director).new_page()
    found += _check(dir_page, director, artifacts_dir, f"director-{language}")
    assert found == [], "axe violations:\n" + "\n".join(found)
