"""The last hand of the tournament on the referee's phone (QA: stuck on "Sending…").

The referee records the final table's last hand; the server stores it (201) and that hand ends
the match, the stage and the tournament. The phone must say the hand is recorded, show the
match as over and the tournament as finished, and never claim the hand is waiting to be sent:
through the credential's short read after the finish (the normal case), and also when the
panel cannot be loaded any more (the read window is over: the panel request is redirected to
the sign-in page). The referee link opened after the finish says, in the page's language, that
the referee's work is done.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.utils.translation import gettext, override
from playwright.sync_api import Page, Response, expect

from scoring.models import Hand, Match
from tests.browser.referee_form import fill_hand_form
from tests.pages.final_table import FinalTable, final_table_one_hand_from_the_end
from tournament.models import Tournament

PHONE_390 = {"width": 390, "height": 844}
DONE = "Your work as referee is done: thank you!"


@pytest.fixture
def final(transactional_db: Any, settings: Any) -> FinalTable:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    return final_table_one_hand_from_the_end()


def _record_the_last_hand(page: Page, final: FinalTable) -> list[tuple[str, int]]:
    """Open the referee link, record the last hand; the page's requests to the match."""
    seen: list[tuple[str, int]] = []

    def on_response(response: Response) -> None:
        if f"/{final.match.pk}/" in response.url:
            path = response.url.split("//", 1)[1].split("/", 1)[1]
            seen.append((f"{response.request.method} {path}", response.status))

    page.on("response", on_response)
    page.goto(f"/ref/#{final.token.key}")
    page.wait_for_url(f"**/matches/{final.match.pk}/")
    expect(page.locator("#match-panel")).to_have_attribute("data-number", str(final.number))
    fill_hand_form(page, final.last)
    page.locator("#confirm-hand").tap()
    return seen


def _nothing_claims_the_hand_is_unsent(page: Page) -> None:
    expect(page.locator("#submit-status")).not_to_contain_text("Sending")
    expect(page.locator("text=Not yet sent")).to_have_count(0)
    expect(page.locator("#offline-next")).to_have_text("")


@pytest.mark.browser
def test_the_last_hand_shows_the_result_and_the_finished_tournament(
    browser_context: Any, final: FinalTable, artifacts_dir: Path
) -> None:
    page = browser_context(viewport=PHONE_390).new_page()
    seen = _record_the_last_hand(page, final)

    status = page.locator("#submit-status")
    expect(status).to_contain_text(f"Hand {final.number} recorded.")
    expect(page.locator(".result-card")).to_contain_text("Match over")
    done = page.locator("#tournament-done")
    expect(done).to_be_visible()
    expect(done).to_contain_text("The tournament is finished.")
    expect(done).to_contain_text(DONE)
    expect(page.locator("#hand-form")).to_have_count(0)
    _nothing_claims_the_hand_is_unsent(page)
    page.screenshot(path=artifacts_dir / "referee-last-hand.png", full_page=True)

    # The chain: the hand stored (201), then the panel read (200), never the sign-in page.
    panel = f"GET matches/{final.match.pk}/panel/"
    assert (f"POST api/matches/{final.match.pk}/hands/", 201) in seen, seen
    assert (panel, 200) in seen, seen
    assert Tournament.objects.get(pk=final.tournament.pk).status == Tournament.Status.FINISHED
    assert Match.objects.get(pk=final.match.pk).status == Match.Status.FINISHED
    assert Hand.objects.filter(match=final.match).count() == final.number

    # After a reload (still within the short read) the page shows the same.
    page.reload()
    expect(page.locator("#tournament-done")).to_contain_text(DONE)
    expect(page).to_have_url(f"{page.url.split('/matches/')[0]}/matches/{final.match.pk}/")


@pytest.mark.browser
def test_the_last_hand_is_recorded_even_when_the_panel_can_no_longer_be_read(
    browser_context: Any, final: FinalTable, settings: Any, artifacts_dir: Path
) -> None:
    settings.REFEREE_READ_AFTER_FINISH = 0  # the link ends with the tournament, at once
    page = browser_context(viewport=PHONE_390).new_page()
    seen = _record_the_last_hand(page, final)

    status = page.locator("#submit-status")
    expect(status).to_contain_text(f"Hand {final.number} recorded.")
    expect(status).to_contain_text("The referee link on this phone no longer opens this match")
    # The match is drawn as over from the hands the server confirmed, marked as recorded.
    expect(page.locator("#next-hand h2")).to_contain_text("Match over")
    expect(page.locator("#unsent-note")).to_contain_text("Recorded: the server has these hands")
    expect(page.locator("#hand-form")).to_be_hidden()
    _nothing_claims_the_hand_is_unsent(page)
    assert "/matches/" in page.url  # never sent to the sign-in page
    page.screenshot(path=artifacts_dir / "referee-last-hand-link-ended.png", full_page=True)
    assert (f"POST api/matches/{final.match.pk}/hands/", 201) in seen, seen
    assert Hand.objects.filter(match=final.match).count() == final.number


@pytest.mark.browser
@pytest.mark.parametrize("language", ["es", "en"])
def test_the_referee_link_after_the_finish_says_the_work_is_done(
    browser_context: Any, final: FinalTable, language: str, artifacts_dir: Path
) -> None:
    Tournament.objects.filter(pk=final.tournament.pk).update(status=Tournament.Status.FINISHED)
    locale = "es-ES" if language == "es" else "en-US"
    page = browser_context(viewport=PHONE_390, locale=locale).new_page()
    page.goto(f"/ref/#{final.token.key}")
    status = page.locator("#ref-status")
    with override(language):
        done = gettext(DONE)
    if language == "es":
        expect(page.locator("h1")).to_have_text("Enlace del árbitro")
        expect(status).to_have_text(
            "Demo Open está en estado «terminado»: los enlaces de árbitro solo funcionan "
            f"mientras el torneo está en marcha. {done}"
        )
    else:
        expect(status).to_have_text(
            f"Demo Open is finished: referee keys work only while it is running. {done}"
        )
    page.screenshot(path=artifacts_dir / f"referee-link-after-finish-{language}.png")
