"""The referee's phone after a tester's walkthrough: refusals, taps, undo, disputes, posers.

- A player's PIN locked (429 ``pin_locked``) is a refusal, never retried, shown by the player's
  name; a real rate limit (429 ``throttled``) is still retried with the same key.
- A tap on a name is *pending* until the server takes it; a wrong PIN drops the tap with a
  message by the player, who may tap again at once.
- Undo is not offered while anything waits on the phone (README, "Conflicts and refusals").
- The dispute form shows only the fields of the chosen end and has its own PIN box.
- A poser the rules do not allow (R5-R10) is caught when tapped, naming the rule.
"""

from __future__ import annotations

import json
import time
from typing import Any, cast

import pytest
from playwright.sync_api import BrowserContext, Page, Route, expect

from core.exceptions import ApplicationError
from scoring.models import Hand, HandConfirmation, Match, Seat
from scoring.services import hand_record, match_assign_referee
from tests.brackets.conftest import make_tournament
from tests.browser.conftest import controlled_by_service_worker, set_offline, tap_domino_hand
from tests.factories import (
    TournamentFactory,
    director_of,
    match_in_progress,
    referee_of,
    scheduled_match,
)
from tournament import services as tournament_services
from tournament.models import Tournament
from tournament.pins import PIN_MAX_FAILURES, entry_check_in, pin_check
from tournament.services import referee_token_issue

FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}
NEXT = {"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 0}
WAITING = "#queue-list li[data-status='queued'], #queue-list li[data-status='sent']"


def _open(page: Page, key: str, match: Match) -> None:
    page.goto(f"/ref/#{key}")
    page.wait_for_url(f"**/matches/{match.pk}/")
    expect(page.locator(".scoreboard li")).to_have_count(4)


# -- undo while hands wait (README "Conflicts and refusals") -------------------------------------


@pytest.fixture
def plain_match(transactional_db: Any) -> dict[str, Any]:
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="wsod"))  # type: ignore[no-untyped-call]
    director = director_of(tournament)
    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee)
    token = referee_token_issue(tournament=tournament, actor=director, user=referee)
    return {"match": match, "key": token.key, "director": director}  # type: ignore[attr-defined]


@pytest.mark.browser
@pytest.mark.embedded
def test_undo_is_not_offered_while_a_hand_waits_on_the_phone(
    browser_context: Any, plain_match: dict[str, Any]
) -> None:
    match: Match = plain_match["match"]
    hand_record(match_id=match.pk, actor=plain_match["director"], expected_number=1, payload=FIRST)
    context: BrowserContext = browser_context()
    page = context.new_page()
    _open(page, plain_match["key"], match)
    expect(page.locator("#undo summary")).to_have_text("Undo hand 1")

    set_offline(context, True)
    tap_domino_hand(page, NEXT, 2)
    expect(page.locator("#submit-status")).to_contain_text("Hand 2 is saved on this phone")
    # Hand 1 is not the table's last hand any more: no Undo until the queue is empty.
    expect(page.locator("#undo")).to_be_hidden()

    set_offline(context, False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(page.locator("#submit-status")).to_contain_text("Hand 2 recorded", timeout=20_000)
    expect(page.locator("#undo")).to_be_visible()
    expect(page.locator("#undo summary")).to_have_text("Undo hand 2")
    assert Hand.objects.filter(match=match, void=False).count() == 2


# -- a rate limit (429 throttled) ----------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.embedded
def test_a_rate_limit_is_retried_with_the_same_key_after_its_retry_after(
    browser_context: Any, plain_match: dict[str, Any]
) -> None:
    """The server's first answer is a 429 ``throttled`` asking to wait 3 s: the phone sends the
    hand again with the same key, not before those 3 s (its own back-off would be 1 s), and
    the hand is stored once."""
    match: Match = plain_match["match"]
    # No service worker: it never answers a POST, but a page it controls sent the hand past
    # the context's route once (0 requests seen, the hand recorded), under two test workers.
    page = browser_context(service_workers="block").new_page()
    _open(page, plain_match["key"], match)
    sent: list[tuple[float, str | None]] = []

    def limited(route: Route) -> None:
        sent.append((time.monotonic(), route.request.headers.get("idempotency-key")))
        if len(sent) > 1:
            route.continue_()
            return
        route.fulfill(
            status=429,
            headers={"Retry-After": "3", "Content-Type": "application/json"},
            body=json.dumps({"error": {"code": "throttled", "message": "Slow down."}}),
        )

    page.context.route(f"**/api/matches/{match.pk}/hands/", limited)
    tap_domino_hand(page, FIRST, 1)
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 recorded", timeout=20_000)
    assert len(sent) == 2
    (first, key), (second, again) = sent
    assert key
    assert again == key
    assert second - first >= 2.9
    assert Hand.objects.filter(match=match, void=False).count() == 1


# -- a player's PIN: locked, wrong, pending (confirmation at the table) --------------------------


@pytest.fixture
def every_hand(transactional_db: Any) -> dict[str, Any]:
    tournament, director = make_tournament(4, confirmation="every_hand")
    match = scheduled_match(tournament)
    role = tournament_services.referee_create(tournament=tournament, actor=director, username="rf")
    token = tournament_services.referee_token_issue(
        tournament=tournament, actor=director, user=role.user
    )
    match_assign_referee(match_id=match.pk, actor=director, referee=role.user)
    seat = Seat.objects.select_related("entry").get(match=match, seat=1)
    entry, pin = entry_check_in(entry=seat.entry, actor=director, issue_pin=True)
    return {"match": match, "key": token.key, "pin": pin, "entry": entry}  # type: ignore[attr-defined]


def _label(match: Match, seat: int) -> str:
    player = Seat.objects.select_related("entry__player").get(match=match, seat=seat).entry.player
    return f"{'ABCD'[seat]} · {player.name}"


@pytest.mark.browser
@pytest.mark.embedded
def test_a_locked_pin_is_refused_once_and_the_table_goes_on(
    browser_context: Any, every_hand: dict[str, Any]
) -> None:
    match: Match = every_hand["match"]
    entry = every_hand["entry"]
    for _ in range(PIN_MAX_FAILURES):  # five wrong PINs: the player's PIN is locked (429)
        with pytest.raises(ApplicationError):
            pin_check(entry, "0000" if every_hand["pin"] != "0000" else "1111", 1)
    page = browser_context().new_page()
    posts: list[str] = []
    page.on(
        "request",
        lambda r: (
            posts.append(r.url) if r.method == "POST" and "/confirmations/" in r.url else None
        ),
    )
    _open(page, every_hand["key"], match)
    tap_domino_hand(page, FIRST, 1)
    box = page.locator("#table-confirm")
    expect(box).to_be_visible(timeout=15_000)
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 recorded", timeout=15_000)

    box.locator("#confirm-pin").fill(every_hand["pin"])
    box.locator("[data-confirm-seat='1']").tap()
    error = box.locator("#confirm-error")
    expect(error).to_have_text(
        f"Too many wrong PINs for {_label(match, 1)}: ask the director.", timeout=15_000
    )
    page.wait_for_timeout(4_000)  # the old page resent every ~3 s
    assert len(posts) == 1
    expect(page.locator("#submit-status")).not_to_contain_text("retrying")
    expect(page.locator(WAITING)).to_have_count(0)
    expect(page.locator("#queue-resolve")).to_be_hidden()
    # The block stays usable for the others; no hand 2 is offered.
    expect(box).to_be_visible()
    expect(box.locator("#dispute-open")).to_be_visible()
    expect(page.locator("#hand-form")).to_be_hidden()
    expect(box.locator("[data-confirm-seat='1']")).to_have_attribute("aria-pressed", "false")
    box.locator("[data-confirm-seat='2']").tap()
    expect(box.locator("[data-confirm-seat='2']")).to_have_attribute(
        "aria-pressed", "true", timeout=15_000
    )
    assert list(
        HandConfirmation.objects.filter(hand__match=match).values_list("seat", flat=True)
    ) == [2]


@pytest.mark.browser
@pytest.mark.embedded
def test_a_tap_is_pending_until_answered_and_a_wrong_pin_is_dropped(
    browser_context: Any, every_hand: dict[str, Any]
) -> None:
    match: Match = every_hand["match"]
    pin: str = every_hand["pin"]
    wrong = f"{(int(pin) + 1) % 10000:04d}"
    page = browser_context().new_page()
    _open(page, every_hand["key"], match)
    tap_domino_hand(page, FIRST, 1)
    box = page.locator("#table-confirm")
    expect(box).to_be_visible(timeout=15_000)
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 recorded", timeout=15_000)

    held: list[Any] = []
    controlled_by_service_worker(page)  # as on a phone: see the helper
    page.context.route("**/confirmations/", lambda route: held.append(route))
    box.locator("#confirm-pin").fill(wrong)
    seat = box.locator("[data-confirm-seat='1']")
    seat.tap()
    # On its way: pending, not confirmed (no green tick before the server said yes).
    expect(seat).to_have_class("confirm-seat is-pending")
    expect(seat).to_have_attribute("aria-pressed", "false")
    expect(seat).to_be_disabled()
    page.wait_for_function("() => true")
    assert len(held) == 1
    held[0].continue_()
    page.context.unroute("**/confirmations/")

    # Refused: dropped from the queue by itself, the reason by the names; tap again at once.
    expect(box.locator("#confirm-error")).to_have_text(
        f"Wrong PIN for {_label(match, 1)}: try again.", timeout=15_000
    )
    expect(page.locator("#queue-list li[data-status='refused']")).to_have_count(0)
    expect(page.locator("#queue-resolve")).to_be_hidden()
    expect(seat).to_be_enabled()
    expect(seat).to_have_attribute("aria-pressed", "false")
    assert not HandConfirmation.objects.filter(hand__match=match).exists()
    box.locator("#confirm-pin").fill(pin)
    seat.tap()
    expect(seat).to_have_attribute("aria-pressed", "true", timeout=15_000)
    expect(box.locator("#confirm-error")).to_be_hidden()
    expect(page.locator(WAITING)).to_have_count(0, timeout=15_000)
    assert HandConfirmation.objects.get(hand__match=match, seat=1).with_pin


# -- the dispute form ------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.embedded
def test_the_dispute_form_shows_what_applies_and_asks_for_the_pin(
    browser_context: Any, every_hand: dict[str, Any]
) -> None:
    match: Match = every_hand["match"]
    page = browser_context().new_page()
    _open(page, every_hand["key"], match)
    tap_domino_hand(page, FIRST, 1)
    box = page.locator("#table-confirm")
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 recorded", timeout=15_000)
    box.locator("#dispute-open").tap()
    # Prefilled from the record (a domino): who dominoed, no counts.
    expect(box.locator("#dispute-winner")).to_be_visible()
    expect(box.locator("#dispute-counts")).to_be_hidden()
    box.locator("#dispute-form input[name='dispute_end'][value='block'] + span").tap()
    expect(box.locator("#dispute-winner")).to_be_hidden()
    expect(box.locator("#dispute-counts")).to_be_visible()
    expect(box.locator("#dispute-pin")).to_be_visible()

    box.locator("#dispute-form input[name='dispute_seat'][value='1'] + span").tap()
    for seat, count in enumerate([3, 10, 12, 9]):
        box.locator(f"#dispute-count-{seat}").fill(str(count))
    box.locator("#dispute-submit").tap()
    error = box.locator("#dispute-error")
    expect(error).to_have_text(
        f"{_label(match, 1)} has a PIN: type it in this form to send the dispute.",
        timeout=15_000,
    )
    expect(error).not_to_contain_text("confirms")
    expect(box.locator("#dispute-form")).to_be_visible()  # the player's version is kept
    expect(box.locator("#dispute-count-1")).to_have_value("10")
    box.locator("#dispute-pin").fill(every_hand["pin"])
    box.locator("#dispute-submit").tap()
    expect(page.locator("#table-frozen")).to_contain_text("disputed", timeout=15_000)
    expect(page.locator(WAITING)).to_have_count(0, timeout=15_000)
    match.refresh_from_db()
    assert match.confirmation_hold == "disputed"


# -- who poses (R5-R10), as the referee taps -------------------------------------------------------


@pytest.mark.browser
@pytest.mark.embedded
def test_a_poser_the_rules_refuse_is_caught_when_tapped(
    browser_context: Any, plain_match: dict[str, Any]
) -> None:
    match: Match = plain_match["match"]
    hand_record(match_id=match.pk, actor=plain_match["director"], expected_number=1, payload=FIRST)
    page = browser_context().new_page()
    _open(page, plain_match["key"], match)
    expect(page.locator("#match-panel")).to_have_attribute("data-number", "2")
    button = page.locator("#confirm-hand")
    error = page.locator(".field-error[data-error-for='poser']")
    # A won hand 1, so A poses hand 2 (R7): tapping B warns before anything is sent.
    page.locator("#hand-form input[name='poser'][value='1'] + span").tap()
    expect(error).to_be_visible()
    expect(error).to_have_text(f"{_label(match, 0)} must pose this hand. (R7)")
    expect(button).to_be_disabled()
    page.select_option("#pose-tile", "5-4")
    page.locator("#hand-form input[name='winner'][value='1'] + span").tap()
    expect(page.locator("#confirm-summary")).not_to_contain_text("dominoes")
    expect(button).to_be_disabled()
    # Corrected: the warning goes and the hand is recorded.
    page.locator("#hand-form input[name='poser'][value='0'] + span").tap()
    expect(error).to_be_hidden()
    expect(button).to_be_enabled()
    button.tap()
    expect(page.locator("#submit-status")).to_contain_text("Hand 2 recorded", timeout=15_000)
    assert Hand.objects.get(match=match, number=2).poser == 0


@pytest.mark.browser
def test_a_forced_pose_accepts_any_poser(browser_context: Any, plain_match: dict[str, Any]) -> None:
    """R5: whoever held 6-6 poses, so no seat is warned (the pose tile is what is forced)."""
    match: Match = plain_match["match"]
    page = browser_context().new_page()
    _open(page, plain_match["key"], match)
    page.locator("#hand-form input[name='poser'][value='2'] + span").tap()
    expect(page.locator(".field-error[data-error-for='poser']")).to_be_hidden()
    expect(page.locator("#confirm-hand")).to_be_enabled()
