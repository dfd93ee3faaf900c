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


def test_open_pages_say_finished_when_the_final_ends(context: Any) -> None:
    lt = make_live_tournament(8, swiss_rounds=1, cut_size=4, slug="last-open")
    add_knockout(lt, name="Final")
    finish_round_fast(lt.round, seed=1)
    round_advance(round_id=lt.round.pk)  # the cut; the final table is published
    final = Round.objects.get(stage__tournament=lt.tournament, status=Round.Status.PUBLISHED)
    assert final.kind == Round.Kind.FINAL
    name = lt.tournament.name

    home = context.new_page()
    home.goto("/live/last-open/")
    standings = context.new_page()
    standings.goto("/live/last-open/standings/")
    for page in (home, standings):
        page.wait_for_selector('#live[data-live-state="live"]')
        assert page.inner_text("[data-live-status]") == "Live"
    assert home.title() == f"Live · {name}"
    assert home.inner_text(".live-head h1").startswith("Live")

    finish_round_fast(final, seed=2)
    round_advance(round_id=final.pk)  # the final's result ends the event (T6)
    assert Tournament.objects.get(pk=lt.tournament.pk).status == Tournament.Status.FINISHED

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
