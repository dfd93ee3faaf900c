"""Spectator pages in a real browser (Playwright + Debian's Chromium) against a real ASGI server.

* A hand recorded through the API shows on an open page within 2 seconds, without a reload.
* After the websocket is cut (the server goes away and comes back), the page reconnects by
  itself and shows the hands recorded meanwhile.
* A browser without websockets falls back to conditional polling and still catches up.
* axe-core finds no violation on any public page, in English and in Spanish.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from brackets.models import RoundMatch
from brackets.services import round_call_time, round_publish, stage_seed
from scoring.models import Match, Seat
from scoring.services import hand_void_last, match_start
from tests.brackets.pairs_helpers import AC_AFTER_A_TIE, make_pairs_tournament, pairs_stages
from tests.browser.conftest import (  # noqa: F401  (fixtures reused from the shared module)
    CHROMIUM_ARGS,
    browser,
    playwright_instance,
)
from tests.live.conftest import AsgiServer, LiveTournament, make_live_tournament, start_match
from tournament.models import Partnership
from tournament.services import referee_create, referee_token_issue

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture
def contexts(browser: Browser, asgi_server: AsgiServer) -> Iterator[Any]:  # noqa: F811
    made: list[BrowserContext] = []
    errors: list[str] = []

    def make(*, viewport: dict[str, int] = PHONE, locale: str = "en-US") -> BrowserContext:
        context = browser.new_context(
            base_url=asgi_server.url, viewport=viewport, locale=locale, is_mobile=True
        )
        context.set_default_timeout(10_000)
        context.on("page", lambda p: p.on("pageerror", lambda exc: errors.append(str(exc))))
        made.append(context)
        return context

    yield make
    for context in made:
        context.close()
    assert not errors, f"JavaScript errors: {errors}"


@dataclass
class Played:
    lt: LiveTournament
    match: Match
    payloads: list[dict[str, Any]]
    server: AsgiServer
    token: str

    def record(self, number: int) -> None:
        """Record hand ``number`` through the public API of the running server, as a referee's
        phone does (``Authorization: Bearer <referee token>``)."""
        post_hand(self.server, self.match.pk, self.token, number, self.payloads[number - 1])


def post_hand(
    server: AsgiServer, match_id: int, token: str, number: int, payload: dict[str, Any]
) -> None:
    """Record hand ``number`` of ``match_id`` through ``server``'s public API, as a referee's
    phone does (``Authorization: Bearer <referee token>``)."""
    request = urllib.request.Request(
        f"{server.url}/api/matches/{match_id}/hands/",
        data=json.dumps({"number": number, **payload}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status in (200, 201)


@pytest.fixture
def played(asgi_server: AsgiServer, api_server: AsgiServer) -> Played:
    lt = make_live_tournament(8, cut_size=4, slug="hall-open", round_time_limit=45)
    match = lt.matches()[0]
    payloads = start_match(match, lt.director, seed=3)
    # The hands are posted with the match referee's credential (a capability, issue 12).
    referee = referee_create(tournament=lt.tournament, actor=lt.director, username="hall-ref").user
    Match.objects.filter(pk=match.pk).update(referee=referee)
    token = referee_token_issue(tournament=lt.tournament, actor=lt.director, user=referee)
    return Played(lt, match, payloads, api_server, token.key)


def _card_shows(page: Page, match: Match, *, timeout_ms: int) -> None:
    """Wait until the card of ``match`` shows the version and scores now in the database."""
    match.refresh_from_db()
    page.wait_for_function(
        """([id, version, scores]) => {
            const card = document.querySelector(`[data-match="${id}"]`);
            if (!card || +card.dataset.version < version) return false;
            const shown = [...card.querySelectorAll("td.score")].map(
                td => parseInt(td.textContent, 10));
            return JSON.stringify(shown) === JSON.stringify(scores);
        }""",
        arg=[match.pk, match.version, match.scores],
        timeout=timeout_ms,
    )


def test_a_recorded_hand_shows_within_two_seconds_and_survives_a_cut(
    contexts: Any, asgi_server: AsgiServer, played: Any
) -> None:
    match = played.match
    page = contexts().new_page()
    page.goto("/live/hall-open/tables/")
    page.wait_for_selector('#live[data-live-state="live"]')
    page.evaluate("window.__sameDocument = true")

    started = time.monotonic()
    played.record(1)
    _card_shows(page, match, timeout_ms=2000)
    assert time.monotonic() - started < 2.0

    # Cut: the spectators' web process goes away with every socket; hands are recorded
    # meanwhile through another process, and their events are lost for this page.
    asgi_server.stop()
    page.wait_for_selector('#live[data-live-state="reconnecting"]')
    played.record(2)
    played.record(3)
    asgi_server.start()
    page.wait_for_selector('#live[data-live-state="live"]', timeout=20_000)
    _card_shows(page, match, timeout_ms=5000)
    assert page.evaluate("window.__sameDocument") is True  # no reload

    # And live again after the recovery.
    played.record(4)
    _card_shows(page, match, timeout_ms=2000)


def test_keyboard_focus_stays_on_a_card_link_when_the_card_updates(
    contexts: Any, played: Any
) -> None:
    """A keyboard user on a player's link in a table card keeps the focus there when a hand
    updates the card (it used to fall back to the top of the page at every hand)."""
    match = played.match
    page = contexts().new_page()
    page.goto("/live/hall-open/tables/")
    page.wait_for_selector('#live[data-live-state="live"]')
    link = page.locator(f'[data-match="{match.pk}"] th a').first
    href = link.get_attribute("href")
    link.focus()
    played.record(1)
    _card_shows(page, match, timeout_ms=3000)
    assert page.evaluate("document.activeElement.getAttribute('href')") == href
    assert page.evaluate("document.activeElement.closest('[data-match]').dataset.match") == str(
        match.pk
    )


_PAIRS_CARD = """([id, version, sides, last]) => {
    const card = document.querySelector(`[data-match="${id}"]`);
    if (!card || +card.dataset.version < version) return false;
    const shown = [...card.querySelectorAll("li.side")].map(
        li => li.textContent.replace(/\\s+/g, " ").trim());
    const line = card.querySelector(".table-last");
    return JSON.stringify(shown) === JSON.stringify(sides) &&
        !!line && line.textContent.replace(/\\s+/g, " ").includes(last);
}"""


def test_a_pairs_table_card_updates_live_with_its_partnerships_r42_r43(
    contexts: Any, asgi_server: AsgiServer, api_server: AsgiServer
) -> None:
    """A hand recorded at a pairs table (T9): the tables page swaps in the card the server
    pushes, and it reads as the match page does: both partnerships with their registered name
    and one score (R42), the last hand won by a partnership (R43), all without a reload."""
    t, d, _ = make_pairs_tournament(2)
    q, _k = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    stage_seed(stage=q, actor=d, method="rating")
    link = RoundMatch.objects.get(round=round_publish(stage=q, actor=d))
    match_start(match_id=link.match_id, actor=d, lot_winner=0)
    referee = referee_create(tournament=t, actor=d, username="pairs-ref").user
    Match.objects.filter(pk=link.match_id).update(referee=referee)
    token = referee_token_issue(tournament=t, actor=d, user=referee).key
    seats = dict(Seat.objects.filter(match_id=link.match_id).values_list("seat", "entry_id"))
    Partnership.objects.filter(members__entry_id=seats[1]).update(name="Los Primos")
    names = dict(
        Seat.objects.filter(match_id=link.match_id).values_list("seat", "entry__player__name")
    )
    ac, bd = f"{names[0]} & {names[2]}", f"{names[1]} & {names[3]}"

    page = contexts(viewport=DESKTOP).new_page()
    page.goto(f"/live/{t.slug}/tables/")
    page.wait_for_selector('#live[data-live-state="live"]')
    page.evaluate("window.__sameDocument = true")
    assert page.locator(f'[data-match="{link.match_id}"] li.side').count() == 2

    # R43: BD's opening tie, then a block A and C share, worth 2 after the tie (R27).
    for number, payload in enumerate(AC_AFTER_A_TIE[:2], start=1):
        post_hand(api_server, link.match_id, token, number, payload)
    match = Match.objects.get(pk=link.match_id)
    page.wait_for_function(
        _PAIRS_CARD,
        arg=[
            match.pk,
            match.version,
            [f"AC {ac} 2", f"BD Los Primos {bd} 0"],
            f"Last hand (2): AC · {ac} won by block, +2",
        ],
        timeout=5000,
    )
    assert page.evaluate("window.__sameDocument") is True  # no reload


def test_the_bracket_marks_tables_ended_by_time_when_it_re_renders_t3(
    contexts: Any, played: Played
) -> None:
    """The director calls time (T3) while a spectator watches the bracket: the page re-renders
    and marks every table ended that way, as the round page does, without a reload."""
    page = contexts(viewport=DESKTOP).new_page()
    page.goto("/live/hall-open/bracket/")
    page.wait_for_selector('#live[data-live-state="live"]')
    page.evaluate("window.__sameDocument = true")
    assert page.locator("[data-end-reason]").count() == 0
    ended = round_call_time(round=played.lt.round, actor=played.lt.director, reason="the hour")
    assert ended
    page.wait_for_function(
        "(n) => document.querySelectorAll('[data-end-reason=\"time\"]').length === n",
        arg=len(ended),
        timeout=8000,
    )
    assert set(page.locator('[data-end-reason="time"]').all_inner_texts()) == {"time called (T3)"}
    assert page.evaluate("window.__sameDocument") is True


_MATCH_WINS = """([entry, wins]) => {
    const row = document.querySelector(`tr[data-entry="${entry}"]`);
    return row && row.querySelectorAll("td")[1].textContent.trim() === wins;
}"""


def _standings_after_the_match(contexts: Any, played: Any) -> tuple[Page, int]:
    """The standings page open while every hand of the match is recorded; once the winner's
    row shows its match win, the page and the winner's entry id."""
    match = played.match
    page = contexts(viewport=DESKTOP).new_page()
    page.goto("/live/hall-open/standings/")
    page.wait_for_selector('#live[data-live-state="live"]')
    for number in range(1, len(played.payloads) + 1):
        played.record(number)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    winner = int(match.seats.get(seat=match.winner_seat).entry_id)
    page.wait_for_function(_MATCH_WINS, arg=[winner, "1"], timeout=6000)
    return page, winner


def test_standings_page_follows_a_finished_match(contexts: Any, played: Any) -> None:
    # The finished match's winner gets a match win in the standings without a reload.
    _standings_after_the_match(contexts, played)


def test_home_counts_a_table_that_starts_play(contexts: Any, played: Any) -> None:
    """A match going from scheduled to in play changes the home page's table counts: the page
    re-fetches on a status change, not only when a match finishes (it used to stay at the
    count it was loaded with, its version already caught up by the event)."""
    page = contexts().new_page()
    page.goto("/live/hall-open/")
    page.wait_for_selector('#live[data-live-state="live"]')
    assert "0 of 2 finished, 1 in play" in page.inner_text("main")
    other = played.lt.matches()[1]
    start_match(other, played.lt.director, seed=5)
    page.wait_for_function(
        "() => document.querySelector('main').innerText.includes('0 of 2 finished, 2 in play')",
        timeout=8000,
    )


def test_standings_page_follows_a_match_reopened_by_a_void(contexts: Any, played: Any) -> None:
    """A director voids the hand that ended a match: the match is in play again and its win
    leaves the standings at once (the event says "in_progress", not "finished")."""
    page, winner = _standings_after_the_match(contexts, played)
    hand_void_last(match_id=played.match.pk, actor=played.lt.director, reason="Wrong winner")
    page.wait_for_function(_MATCH_WINS, arg=[winner, "0"], timeout=8000)


def test_without_websockets_the_page_polls_with_conditional_gets(
    contexts: Any, played: Played
) -> None:
    match = played.match
    context = contexts()
    context.add_init_script("delete window.WebSocket;")
    page = context.new_page()
    statuses: list[int] = []
    page.on(
        "response",
        lambda r: statuses.append(r.status) if "/live/hall-open/tables/" in r.url else None,
    )
    page.goto("/live/hall-open/tables/")
    page.wait_for_selector('#live[data-live-state="polling"]')
    page.evaluate("window.liveDebug.refetch()")
    page.wait_for_timeout(300)
    assert 304 in statuses  # unchanged: no body
    played.record(1)
    # The server reuses its version lookup for up to 1 s per process (README: live pages), so
    # a poll right after the hand may still be answered 304; the next poll must show it.
    for _ in range(8):
        page.evaluate("window.liveDebug.refetch()")
        try:
            _card_shows(page, match, timeout_ms=500)
            break
        except PlaywrightTimeoutError:
            continue
    _card_shows(page, match, timeout_ms=500)


PAGES = [
    "/live/",
    "/live/hall-open/",
    "/live/hall-open/tables/",
    "/live/hall-open/standings/",
    "/live/hall-open/bracket/",
    "/live/hall-open/projector/",
]


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_every_public_page_passes_axe(contexts: Any, played: Any, locale: str) -> None:
    match = played.match
    for number in (1, 2, 3):
        played.record(number)
    entry = match.seats.get(seat=0).entry_id
    pages = [*PAGES, f"/live/hall-open/players/{entry}/", f"/live/hall-open/matches/{match.pk}/"]
    axe = Axe()
    failures: dict[str, list[str]] = {}
    for viewport in (PHONE, DESKTOP):
        page = contexts(viewport=viewport, locale=locale).new_page()
        for path in pages:
            page.goto(path)
            page.wait_for_load_state("networkidle")
            results = axe.run(page)
            if results.violations_count:
                failures[f"{path} @ {viewport['width']}px"] = [
                    f"{v['id']}: {[n['target'] for n in v['nodes']][:3]}"
                    for v in results.response["violations"]
                ]
    assert not failures, json.dumps(failures, indent=1)


def test_spanish_follows_the_browser_and_the_switch(contexts: Any, played: Any) -> None:
    page = contexts(locale="es-ES").new_page()
    page.goto("/live/hall-open/standings/")
    assert page.locator("h1").inner_text().startswith("Clasificación")
    assert page.get_attribute("html", "lang") == "es"
    with page.expect_navigation():
        page.select_option("#lang-select", "en")
    assert page.locator("h1").inner_text().startswith("Standings")
