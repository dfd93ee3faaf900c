"""An open spectator page says "Finished" the moment the final ends, without a reload: the
"Live" badge becomes "Finished" and the home's heading and document title "Live · <event>"
become "Results · <event>", as a reload would show them (they live outside the regions the
page swaps)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext

from brackets.models import Round
from brackets.services import round_advance
from tests.browser.conftest import (  # noqa: F401  (fixtures reused from the shared module)
    CHROMIUM_ARGS,
    browser,
    browser_context,
    playwright_instance,
)
from tests.live.conftest import AsgiServer, add_knockout, finish_round_fast, make_live_tournament
from tournament.models import Tournament

pytestmark = pytest.mark.browser


@pytest.fixture
def context(browser: Browser, asgi_server: AsgiServer) -> Iterator[BrowserContext]:  # noqa: F811
    made = browser.new_context(base_url=asgi_server.url, viewport={"width": 1280, "height": 900})
    made.set_default_timeout(10_000)
    errors: list[str] = []
    made.on("page", lambda p: p.on("pageerror", lambda exc: errors.append(str(exc))))
    yield made
    made.close()
    assert not errors, f"JavaScript errors: {errors}"


def _at_the_final(slug: str) -> tuple[Round, str]:
    """A two-stage event whose final table is published: the final round and the event name."""
    lt = make_live_tournament(8, swiss_rounds=1, cut_size=4, slug=slug)
    add_knockout(lt, name="Final")
    finish_round_fast(lt.round, seed=1)
    round_advance(round_id=lt.round.pk)  # the cut; the final table is published
    final = Round.objects.get(stage__tournament=lt.tournament, status=Round.Status.PUBLISHED)
    assert final.kind == Round.Kind.FINAL
    return final, lt.tournament.name


def _end(final: Round) -> None:
    finish_round_fast(final, seed=2)
    round_advance(round_id=final.pk)  # the final's result ends the event (T6)
    tournament = Tournament.objects.get(stages__rounds=final)
    assert tournament.status == Tournament.Status.FINISHED


def test_open_pages_say_finished_when_the_final_ends(context: Any) -> None:
    final, name = _at_the_final("last-open")

    home = context.new_page()
    home.goto("/live/last-open/")
    standings = context.new_page()
    standings.goto("/live/last-open/standings/")
    for page in (home, standings):
        page.wait_for_selector('#live[data-live-state="live"]')
        assert page.inner_text("[data-live-status]") == "Live"
    assert home.title() == f"Live · {name}"
    assert home.inner_text(".live-head h1").startswith("Live")

    _end(final)

    for page in (home, standings):
        page.wait_for_function(
            "() => document.querySelector('[data-live-status]').textContent === 'Finished'",
            timeout=15_000,
        )
        assert "live-status-finished" in page.get_attribute("[data-live-status]", "class")
    home.wait_for_function(f"() => document.title === {f'Results · {name}'!r}", timeout=15_000)
    assert home.inner_text(".live-head h1").startswith("Results")
    assert standings.title() == f"Standings · {name}"
    # A dropped socket reconnecting later does not bring "Live" back.
    home.evaluate("window.liveDebug.cut()")
    home.wait_for_selector('#live[data-live-state="live"]', timeout=15_000)
    assert home.inner_text("[data-live-status]") == "Finished"


@pytest.mark.embedded  # the embedded default: no websockets here, the page polls (live.js)
def test_a_polling_page_says_finished_when_the_final_ends(
    browser_context: Any,  # noqa: F811
    monkeypatch: Any,
) -> None:
    monkeypatch.setattr("live.views.POLL_SECONDS", 5)  # live.js polls at most this often
    final, name = _at_the_final("poll-open")
    home = browser_context(viewport={"width": 1280, "height": 900}).new_page()
    home.goto("/live/poll-open/")
    assert home.title() == f"Live · {name}"
    assert home.inner_text("[data-live-status]") != "Finished"
    _end(final)
    home.wait_for_function(
        "() => document.querySelector('[data-live-status]').textContent === 'Finished'",
        timeout=20_000,
    )
    home.wait_for_function(f"() => document.title === {f'Results · {name}'!r}", timeout=5_000)
    assert home.inner_text(".live-head h1").startswith("Results")
