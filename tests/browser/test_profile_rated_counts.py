"""A player's profile in Chromium: the rated matches next to the rating count the games at a
round's tables only (never a stand-alone match, README "Ratings"), with their match wins; the
statistics of every finished match say that they count stand-alone matches and forfeits too.
On a 390 px phone, in English and Spanish. Screenshots go to test-artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ratings.models import PlayerRating
from ratings.selectors import rated_records
from scoring.engine import Ruleset
from scoring.models import Match, Seat
from tests.brackets.conftest import play_match
from tests.browser.conftest import ContextFactory
from tests.factories import (
    EntryFactory,
    PlayerFactory,
    TournamentFactory,
    at_round_table,
    director_of,
    scheduled_match,
)

PHONE_390 = {"width": 390, "height": 844}
LOCALES = {"en": "en-US", "es": "es-ES"}


@pytest.fixture
def hero(transactional_db: Any, settings: Any) -> dict[str, int]:
    """Two matches at a round's tables and one stand-alone match, all played to the end."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    short = {"target": 2}
    tournament = TournamentFactory(
        status="running",
        ruleset_overrides=short,
        ruleset=Ruleset.from_preset("wsod", short).to_json(),
    )
    player = PlayerFactory(name="Hero Player")
    entry = EntryFactory(tournament=tournament, player=player)
    director = director_of(tournament)
    for seed, at_a_round in ((1, True), (2, True), (4, False)):
        match = scheduled_match(tournament, n_players=3)
        Seat.objects.filter(match=match, seat=seed % 3).update(entry=entry)
        if at_a_round:
            at_round_table(match)
        play_match(match, director, seed)
        assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    assert PlayerRating.objects.get(player=player).matches == 2
    return {"player": player.pk, "wins": rated_records(player_ids=[player.pk])[player.pk].wins}


def page_width(page: Any) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth"))


@pytest.mark.embedded
@pytest.mark.parametrize("language", sorted(LOCALES))
def test_the_profile_counts_rated_matches_apart_from_every_finished_match(
    browser_context: ContextFactory,
    hero: dict[str, int],
    artifacts_dir: Path,
    language: str,
) -> None:
    phone = browser_context(viewport=PHONE_390, locale=LOCALES[language]).new_page()
    phone.goto(f"/players/{hero['player']}/")
    phone.screenshot(path=artifacts_dir / f"profile-rated-counts-{language}.png", full_page=True)
    assert page_width(phone) <= 390
    rated = phone.locator("#rated-matches")
    assert rated.is_visible()
    assert rated.inner_text().split()[0] == "2"
    assert phone.locator("#statistics-scope").is_visible()
    if language == "en":
        wins = hero["wins"]
        assert f"({wins} match win{'' if wins == 1 else 's'})" in rated.inner_text()
        assert "stand-alone matches and forfeits included" in (
            phone.locator("#statistics-scope").inner_text()
        )
        assert "in 3 finished matches (rated or not)." in (
            phone.locator("#statistics-record").inner_text()
        )
    phone.goto("/players/")
    cells = phone.locator(f'tr[data-player="{hero["player"]}"] td.num')
    assert cells.last.inner_text() == "2"
