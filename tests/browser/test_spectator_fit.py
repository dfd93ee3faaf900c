"""Spectator pages keep to the screen (QA walkthrough of the demo, 390 px phone and desktop).

* A circuit's standings laid the page out 512 px wide on a 390 px phone (the "Results" column
  off-screen, no scroll box); the player's rating history needed sideways scrolling that the
  keyboard could not reach, its dates on three lines. Both tables now scroll inside a labelled,
  focusable region (tabindex="0") and the page fits the phone; a date stays on one line.
* The projector cut off the second row of table cards at 1280x800 though slides fit
  1280x800 (README "Projector"): every card of the first slide now lies inside the viewport,
  at 1920x1080 too.

Screenshots go to test-artifacts/.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Page

from brackets.models import RoundMatch
from ratings.models import RatingChange
from scoring.models import Match
from tests.browser.conftest import ContextFactory
from tests.factories import CircuitFactory, PlayerFactory, placed_tournament
from tests.live.conftest import make_live_tournament, play_hands, start_match
from tournament.models import Player

PHONE_390 = {"width": 390, "height": 844}
LOCALES = {"en": "en-US", "es": "es-ES"}


def page_width(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth"))


def regions_reachable(page: Page, selector: str) -> list[bool]:
    """For each scroll region: focusable by Tab (tabindex 0) and named (role region, a label);
    focusing it makes it the active element."""
    return list(
        page.evaluate(
            """(sel) => [...document.querySelectorAll(sel)].map(el => {
                 el.focus();
                 return el.tabIndex === 0 && el.getAttribute('role') === 'region'
                   && !!(el.getAttribute('aria-labelledby') || el.getAttribute('aria-label'))
                   && document.activeElement === el; })""",
            selector,
        )
    )


@pytest.fixture
def circuit_race(transactional_db: Any) -> dict[str, Any]:
    """A circuit of three events with long names (as the demo's), two Pedro Castillos, and a
    player with a rating history."""
    circuit = CircuitFactory(name="Circuito Caribeño de Dominó", slug="caribe")
    players = [
        PlayerFactory(name="Pedro Castillo", club="Club Los Mina", country="DO"),
        PlayerFactory(name="Pedro Castillo", club="Doble Seis Santurce", country="PR"),
        *(
            PlayerFactory(name=f"Maximiliano Fernández-Oyarzún {i}", club=f"Club {i}")
            for i in range(6)
        ),
    ]
    events = []
    for k, name in enumerate(
        ("Campeonato Nacional de Verano", "Torneo Internacional de Otoño", "Gran Final Anual")
    ):
        order = players[k:] + players[:k]
        events.append(
            placed_tournament(
                [(p, i + 1, 2 if i < 4 else 1) for i, p in enumerate(order)],
                circuit,
                name=name,
            )
        )
    when = timezone.now() - timedelta(days=30)
    match = Match.objects.create(tournament=events[0], n_players=4)
    RatingChange.objects.create(
        player=players[0],
        match=match,
        tournament=events[0],
        rated_at=when,
        placing=1,
        table_size=4,
        mu_before=25.0,
        sigma_before=8.3,
        mu_after=27.0,
        sigma_after=7.9,
    )
    return {"circuit": circuit, "player": players[0]}


@pytest.mark.parametrize("language", sorted(LOCALES))
def test_the_circuit_and_the_rating_history_fit_a_390_px_phone(
    browser_context: ContextFactory,
    circuit_race: dict[str, Any],
    artifacts_dir: Path,
    language: str,
) -> None:
    phone = browser_context(viewport=PHONE_390, locale=LOCALES[language]).new_page()
    phone.goto(f"/circuits/{circuit_race['circuit'].slug}/")
    phone.screenshot(path=artifacts_dir / f"circuit-390-{language}.png", full_page=True)
    assert page_width(phone) <= 390
    assert regions_reachable(phone, ".table-scroll") == [True, True]
    assert phone.locator(".circuit-standings").count() == 1

    phone.goto(f"/players/{circuit_race['player'].pk}/")
    phone.screenshot(path=artifacts_dir / f"profile-390-{language}.png", full_page=True)
    assert page_width(phone) <= 390
    assert regions_reachable(phone, ".table-scroll") == [True]
    date = phone.locator(".rating-history td.date").first
    lines = "el => { const r = document.createRange(); r.selectNodeContents(el);"
    lines += " return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; }"
    assert date.evaluate(lines) == 1  # the date on one line


@pytest.fixture
def hall(transactional_db: Any) -> str:
    """Round 1 of 24 players with a round clock: six tables in play, two hands recorded at
    each (the cards show the scores, the last hand and who poses next), names as long as the
    demo's."""
    lt = make_live_tournament(24, cut_size=8, slug="hall-fit", round_time_limit=45)
    for i, player in enumerate(Player.objects.filter(entries__tournament=lt.tournament)):
        Player.objects.filter(pk=player.pk).update(name=f"Maximiliano Oyarzún {i}")
    for seed, link in enumerate(RoundMatch.objects.filter(round=lt.round), start=1):
        match = Match.objects.get(pk=link.match_id)
        play_hands(match, lt.director, start_match(match, lt.director, seed)[:2])
    return str(lt.tournament.slug)


@pytest.mark.parametrize(
    ("width", "height", "language"), [(1280, 800, "en"), (1280, 800, "es"), (1920, 1080, "es")]
)
def test_the_projector_slide_fits_the_screen(
    browser_context: ContextFactory,
    hall: str,
    artifacts_dir: Path,
    width: int,
    height: int,
    language: str,
) -> None:
    viewport = {"width": width, "height": height}
    wall = browser_context(viewport=viewport, locale=LOCALES[language]).new_page()
    wall.goto(f"/live/{hall}/projector/")
    slide = wall.locator("[data-slide]:not([hidden])").first
    cards = slide.locator(".table-card")
    assert cards.count() == 6
    wall.screenshot(path=artifacts_dir / f"projector-{width}-{language}.png")
    for i in range(6):
        box = cards.nth(i).bounding_box()
        assert box is not None
        assert box["x"] >= 0
        assert box["y"] >= 0
        assert box["x"] + box["width"] <= viewport["width"], (i, box)
        assert box["y"] + box["height"] <= viewport["height"], (i, box)
