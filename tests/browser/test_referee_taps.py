"""A double tap on "Record hand" and the forced pose on the referee's phone (QA pass).

* Two clicks in the same instant, a realistic double tap 120 ms apart, and a tap just after
  the form was reset for the next hand: one hand is recorded, one request is sent, and the page
  shows the confirmation and no error (before: a red "The match changed on another device…",
  or "Choose the tile that was posed." / "Tap who dominoed." for the freshly cleared form).
* A same-key replay (the answer was lost, the page sent the same submission again and the
  server answered ``Idempotent-Replayed: true``) is shown as the success it is.
* A forced pose (R5: hand 1, a replay with no leader) offers only 6-6, already chosen, on the
  server's panel and on the panel the phone draws from hands waiting offline; a free pose offers
  every tile. The server still refuses a wrong tile (tests/scoring).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, Request, Response, expect

from scoring.models import Hand, Match
from tests.browser.conftest import controlled_by_service_worker, set_offline
from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of
from tournament.models import Tournament
from tournament.services import referee_token_issue

PHONE_390 = {"width": 390, "height": 844}
# Every tile of the double-six set, as the form lists them (highest first).
TILES = [f"{h}-{low}" for h in range(6, -1, -1) for low in range(h, -1, -1)]


@pytest.fixture
def table(transactional_db: Any) -> dict[str, Any]:
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="wsod"))  # type: ignore[no-untyped-call]
    director = director_of(tournament)
    referee = referee_of(tournament, first_name="Rosa")
    match = match_in_progress(tournament, referee=referee)
    token = referee_token_issue(tournament=tournament, actor=director, user=referee)
    return {"match": match, "token": token}


def _open(context: BrowserContext, table: dict[str, Any]) -> tuple[Page, list[str]]:
    """The referee's phone on its match, and the hand POSTs it sends (their keys)."""
    page = context.new_page()
    posts: list[str] = []

    def on_request(request: Request) -> None:
        hands = f"/matches/{table['match'].pk}/hands/"
        if request.method == "POST" and request.url.endswith(hands):
            posts.append(request.headers.get("idempotency-key", ""))

    page.on("request", on_request)
    page.goto(f"/ref/#{table['token'].key}")
    page.wait_for_url(f"**/matches/{table['match'].pk}/")
    return page, posts


def _tap(page: Page, group: str, seat: int) -> None:
    page.locator(f"#hand-form input[name='{group}'][value='{seat}'] + span").tap()


def _domino(page: Page, poser: int, tile: str | None, winner: int) -> None:
    _tap(page, "poser", poser)
    if tile is not None:
        page.select_option("#pose-tile", tile)
    page.locator("#hand-form input[name='end'][value='domino'] + span").tap()
    _tap(page, "winner", winner)


def _spot(button: Locator) -> tuple[float, float]:
    """Where a finger taps the button: its centre, read before the first tap. The second tap
    of a double tap goes to that spot, not to the element: under load the page may be
    redrawing the panel then (CI: "Locator.tap: Element is not visible" for a tap aimed at
    the button), and a finger does not wait for it."""
    box = button.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def _no_error_shown(page: Page) -> None:
    expect(page.locator("#form-error")).to_be_hidden()
    expect(page.locator(".field-error:visible")).to_have_count(0)
    expect(page.locator("#submit-status")).not_to_have_class("status error")


def _tile_options(page: Page) -> list[str]:
    values = page.locator("#pose-tile option").evaluate_all("os => os.map(o => o.value)")
    return [str(v) for v in values]


def _stored(match: Match) -> int:
    return Hand.objects.filter(match=match, void=False).count()


@pytest.mark.browser
def test_a_double_tap_records_one_hand_and_shows_no_false_error(
    browser_context: Any, table: dict[str, Any], artifacts_dir: Path
) -> None:
    match: Match = table["match"]
    page, posts = _open(browser_context(viewport=PHONE_390), table)
    button = page.locator("#confirm-hand")

    # Two clicks in the same instant (one event loop turn): one request, no 409.
    _domino(page, 2, None, 2)  # hand 1: forced 6-6, already chosen; C dominoes
    button.evaluate("b => { b.click(); b.click(); }")
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 recorded.")
    page.wait_for_timeout(800)  # the answer to a second request would be in by now
    _no_error_shown(page)
    assert len(posts) == 1
    assert _stored(match) == 1
    page.screenshot(path=artifacts_dir / "referee-double-click.png")

    # A realistic double tap, 120 ms apart: the second tap must not submit the next hand's
    # freshly cleared form ("Choose the tile that was posed.", "Tap who dominoed.").
    _domino(page, 2, "5-5", 0)  # hand 2: C won hand 1 and poses (R7); A dominoes
    spot = _spot(button)
    button.tap()
    page.wait_for_timeout(120)
    page.touchscreen.tap(*spot)  # a finger taps the same spot, whatever the page drew there
    expect(page.locator("#submit-status")).to_contain_text("Hand 2 recorded.")
    page.wait_for_timeout(800)
    _no_error_shown(page)
    assert len(posts) == 2
    assert _stored(match) == 2
    expect(page.locator("#match-panel")).to_have_attribute("data-number", "3")
    page.screenshot(path=artifacts_dir / "referee-double-tap.png")

    # A tap a moment late, right after the form was reset for hand 4: ignored as well.
    _domino(page, 0, "4-4", 1)  # hand 3: A poses (R7); B dominoes
    spot = _spot(button)
    button.tap()
    expect(page.locator("#submit-status")).to_contain_text("Hand 3 recorded.")
    page.touchscreen.tap(*spot)
    page.wait_for_timeout(800)
    _no_error_shown(page)
    assert len(posts) == 3
    assert _stored(match) == 3

    # After that moment the button works as always, and an incomplete form still says why.
    expect(button).to_be_enabled()
    button.tap()
    expect(page.locator(".field-error[data-error-for='pose_tile']")).to_contain_text(
        "Choose the tile that was posed."
    )
    # The focus goes to the first field to correct (the pose tile comes before the winner),
    # not left on the Record button.
    expect(page.locator("#pose-tile")).to_be_focused()
    expect(page.locator("#pose-tile")).to_have_attribute("aria-invalid", "true")
    assert len(posts) == 3
    _domino(page, 1, "3-3", 3)
    button.tap()
    expect(page.locator("#submit-status")).to_contain_text("Hand 4 recorded.")
    assert len(set(posts)) == len(posts) == 4  # one key per hand
    assert _stored(match) == 4


@pytest.mark.browser
def test_a_same_key_replay_is_shown_as_success(browser_context: Any, table: dict[str, Any]) -> None:
    match: Match = table["match"]
    page, posts = _open(browser_context(viewport=PHONE_390), table)
    replayed: list[str] = []

    def on_response(response: Response) -> None:
        if response.request.method == "POST" and "/hands/" in response.url:
            replayed.append(response.headers.get("idempotent-replayed", ""))

    page.on("response", on_response)

    def lose_the_first_answer(route: Any) -> None:
        if len(posts) == 1:
            route.fetch()  # the server records the hand ...
            route.abort("connectionreset")  # ... and its answer never reaches the phone
        else:
            route.continue_()

    controlled_by_service_worker(page)  # as on a phone: see the helper
    page.context.route(f"**/api/matches/{match.pk}/hands/", lose_the_first_answer)
    _domino(page, 2, None, 2)
    page.locator("#confirm-hand").tap()
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 recorded.")
    _no_error_shown(page)
    assert len(posts) == 2
    assert posts[0] == posts[1]  # the same submission, the same key
    assert replayed == ["true"]
    assert _stored(match) == 1
    expect(page.locator("#match-panel")).to_have_attribute("data-number", "2")


@pytest.mark.browser
def test_a_forced_pose_offers_only_the_forced_tile(
    browser_context: Any, table: dict[str, Any], artifacts_dir: Path
) -> None:
    match: Match = table["match"]
    context: BrowserContext = browser_context(viewport=PHONE_390)
    page, _posts = _open(context, table)

    # Hand 1 is a forced pose (R5, R6): 6-6 alone, already chosen; another tile cannot be.
    expect(page.locator("#forced-mark")).to_be_visible()
    assert _tile_options(page) == ["6-6"]
    expect(page.locator("#pose-tile")).to_have_value("6-6")
    with pytest.raises(Exception, match="did not find some options"):
        page.select_option("#pose-tile", "5-5", timeout=1000)
    page.locator("#pose-tile").scroll_into_view_if_needed()
    page.screenshot(path=artifacts_dir / "referee-forced-tile.png")

    # Offline: hand 1 ties (A and B share the lowest count), so hand 2 is a replay with no
    # leader, a forced pose again, drawn by the phone from the queued hand: 6-6 alone.
    set_offline(context, True)
    _tap(page, "poser", 2)
    page.locator("#hand-form input[name='end'][value='block'] + span").tap()
    for seat, count in enumerate((4, 4, 9, 11)):
        page.fill(f"#count-{seat}", str(count))
    page.locator("#confirm-hand").tap()
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 is saved on this phone")
    expect(page.locator("#match-panel")).to_have_attribute("data-number", "2")
    expect(page.locator("#forced-mark")).to_be_visible()
    assert _tile_options(page) == ["6-6"]
    expect(page.locator("#pose-tile")).to_have_value("6-6")

    # Hand 2 (offline): B holds 6-6 and A dominoes; hand 3 is A's free pose: every tile.
    _domino(page, 1, None, 0)
    page.locator("#confirm-hand").tap()
    expect(page.locator("#submit-status")).to_contain_text("Hand 2 is saved on this phone")
    expect(page.locator("#forced-mark")).to_be_hidden()
    assert _tile_options(page) == ["", *TILES]
    expect(page.locator("#pose-tile")).to_have_value("")

    # Online: both stored; the server's panel of hand 3 offers every tile too.
    set_offline(context, False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(page.locator("#submit-status")).to_contain_text("Hand 2 recorded", timeout=20_000)
    assert _stored(match) == 2
    expect(page.locator("#match-panel")).to_have_attribute("data-number", "3")
    assert _tile_options(page) == ["", *TILES]
