"""The referee's phone page in Spanish: a rule error names the seat as the buttons do, in
Spanish; the confirmation of a recorded hand is scrolled into view and focused, and is still
shown after a reload; a reset is explained in words."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import Page, expect

from scoring.models import Hand, Match
from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of
from tournament.models import Tournament

PHONE_390 = {"width": 390, "height": 844}


@pytest.fixture
def spanish_match(transactional_db: Any) -> dict[str, Any]:
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="wsod"))  # type: ignore[no-untyped-call]
    director_of(tournament)
    referee = referee_of(tournament, first_name="Rosa")
    match = match_in_progress(tournament, referee=referee)
    names = [s.entry.player.name for s in match.seats.order_by("seat")]
    return {"match": match, "referee": referee, "names": names}


def _tap(page: Page, group: str, seat: int) -> None:
    page.locator(f"#hand-form input[name='{group}'][value='{seat}'] + span").tap()


def _domino(page: Page, poser: int, tile: str, winner: int) -> None:
    _tap(page, "poser", poser)
    page.select_option("#pose-tile", tile)
    page.locator("#hand-form input[name='end'][value='domino'] + span").tap()
    _tap(page, "winner", winner)
    page.locator("#confirm-hand").tap()


def _in_view_and_focused(page: Page, text: str) -> None:
    status = page.locator("#submit-status")
    expect(status).to_contain_text(text)
    expect(status).to_be_in_viewport()
    expect(status).to_be_focused()
    expect(status).to_have_attribute("aria-live", "polite")


@pytest.mark.browser
def test_spanish_referee_sees_seats_errors_resets_and_confirmations(
    browser_context: Any, spanish_match: dict[str, Any], artifacts_dir: Path
) -> None:
    match: Match = spanish_match["match"]
    names: list[str] = spanish_match["names"]
    context = browser_context(viewport=PHONE_390, locale="es-ES", user=spanish_match["referee"])
    page = context.new_page()
    page.goto(f"/matches/{match.pk}/")
    expect(page.locator("#next-hand")).to_contain_text("Mano 1")

    # Hand 1 (forced, R5): A dominoes. The confirmation is in view and focused.
    _domino(page, 1, "6-6", 0)
    _in_view_and_focused(page, "Mano 1 anotada")

    # Hand 2 must be posed by A (R7): tapping C is caught at once, in Spanish, naming "A · name";
    # Record waits until the poser is corrected.
    page.locator("#hand-form").scroll_into_view_if_needed()
    _tap(page, "poser", 2)
    expect(page.locator("#confirm-hand")).to_be_disabled()
    error = page.locator(".field-error[data-error-for='poser']")
    expect(error).to_be_visible()
    expect(error).to_contain_text(f"A · {names[0]} debe salir en esta mano.")
    expect(error).to_contain_text("R7")
    expect(error).not_to_contain_text("Seat")
    page.screenshot(path=artifacts_dir / "referee-es-wrong-poser.png")
    assert Hand.objects.filter(match=match).count() == 1

    # RULES.md X2: A, B, C, D win in turn → everyone has scored: RESET (R31d).
    _domino(page, 0, "5-5", 0)
    _in_view_and_focused(page, "Mano 2 anotada")
    for number, (poser, winner) in enumerate([(0, 1), (1, 2), (2, 3)], start=3):
        page.locator("#hand-form").scroll_into_view_if_needed()
        _domino(page, poser, "4-4", winner)
        _in_view_and_focused(page, f"Mano {number} anotada")
    event = page.locator("#last-event")
    expect(event).to_contain_text("Reinicio: con esta mano todos los jugadores habían puntuado")
    expect(event.locator("a.rule-link")).to_have_attribute("href", "/rules/#R31")
    expect(page.locator(".scoreboard .love-tag")).to_have_count(4)

    # After a reload the confirmation of the last hand is still shown, in view.
    page.reload()
    _in_view_and_focused(page, "Mano 5 anotada")
    page.screenshot(path=artifacts_dir / "referee-es-after-reload.png")

    # The rule link opens the rules reference at that rule, in Spanish.
    page.locator("#last-event a.rule-link").click()
    expect(page).to_have_url(page.url.split("/rules/")[0] + "/rules/#R31")
    expect(page.locator("#R31")).to_be_attached()
    expect(page.locator("article.rules-doc")).to_contain_text("Seis a cero")
