"""Confirmation at the table in a real browser (issue 15, "Done when"): a disputed block count
reaches the director's queue, and resolving it finalises the match and advances the bracket.

A four-player event under ``confirmation = match_end``, a two-round Swiss qualifying (auto
advance). Hands 1-5 are recorded through the API; the referee records the last hand, a block,
on their phone: the match is not final. Three players tap their names; the fourth disputes the
block count with their version. The director's dispute queue shows both versions; the director
replaces the recorded hand with the player's, with a reason: the match is finished, the action
log holds the reason, and round 2 is published.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from brackets import services as brackets
from brackets.models import Round, RoundMatch
from scoring.models import Hand, HandConfirmation, Match, ResultDispute, Seat
from scoring.services import hand_record, match_assign_referee
from tests.brackets.conftest import make_tournament
from tests.browser.conftest import DESKTOP, set_offline, tap_domino_hand
from tests.factories import director_of, scheduled_match
from tournament import services as tournament_services
from tournament.models import ActionLog
from tournament.pins import entry_check_in

FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}
NEXT = {"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 0}
RECORDED = [3, 10, 12, 9]  # the block the referee records: A wins it and the match (R31c)
CLAIMED = [2, 14, 12, 9]  # the count C's player says was right
# Entries of the phone's queue not answered yet.
WAITING = "#queue-list li[data-status='queued'], #queue-list li[data-status='sent']"


@pytest.fixture
def event(transactional_db: Any) -> dict[str, Any]:
    tournament, director = make_tournament(4, confirmation="match_end")
    stage = brackets.stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind="qualifying",
        rng_seed=7,
        swiss_rounds=2,
        cut_size=4,
        auto_advance=True,
    )
    brackets.stage_seed(stage=stage, actor=director, method="rating")
    rnd = brackets.round_publish(stage=stage, actor=director, expected_number=1)
    match = RoundMatch.objects.get(round=rnd).match
    role = tournament_services.referee_create(tournament=tournament, actor=director, username="t7")
    token = tournament_services.referee_token_issue(
        tournament=tournament, actor=director, user=role.user
    )
    match_assign_referee(match_id=match.pk, actor=director, referee=role.user)
    for number in range(1, 6):
        hand_record(
            match_id=match.pk,
            actor=director,
            expected_number=number,
            payload=FIRST if number == 1 else NEXT,
        )
    return {"t": tournament, "director": director, "match": match, "key": token.key, "stage": stage}  # type: ignore[attr-defined]


@pytest.mark.browser
def test_a_disputed_block_count_is_resolved_by_the_director(
    browser_context: Any, event: dict[str, Any], artifacts_dir: Any
) -> None:
    match: Match = event["match"]
    phone = browser_context().new_page()
    phone.goto(f"/ref/#{event['key']}")
    phone.wait_for_url(f"**/matches/{match.pk}/")

    # The referee records the last hand: a block A wins (R20).
    expect(phone.locator("#match-panel")).to_have_attribute("data-number", "6")
    phone.locator("#hand-form input[name='poser'][value='0'] + span").tap()
    phone.select_option("#pose-tile", "5-4")
    phone.locator("#hand-form input[name='end'][value='block'] + span").tap()
    for seat, count in enumerate(RECORDED):
        phone.fill(f"#count-{seat}", str(count))
    phone.locator("#confirm-hand").tap()

    # The result waits for the players: not final.
    expect(phone.locator("#submit-status")).to_contain_text("Hand 6 recorded", timeout=15_000)
    box = phone.locator("#table-confirm")
    expect(box).to_be_visible(timeout=15_000)
    expect(box.locator("#table-confirm-title")).to_contain_text("ended the match")
    # What they confirm, in words and every count (not only a hand number).
    result = box.locator("#table-confirm-result")
    expect(result).to_contain_text("wins the block with 3 (R20)")
    expect(result).to_contain_text("Counts: A 3 · B 10 · C 12 · D 9.")
    match.refresh_from_db()
    assert match.status == Match.Status.IN_PROGRESS
    assert match.confirmation_hold == "result"
    assert not Round.objects.filter(stage=event["stage"], number=2).exists()

    for seat in (0, 1, 3):
        box.locator(f"[data-confirm-seat='{seat}']").tap()
        expect(box.locator(f"[data-confirm-seat='{seat}']")).to_have_attribute(
            "aria-pressed", "true", timeout=15_000
        )
    # C's player disputes the count.
    box.locator("#dispute-open").tap()
    box.locator("#dispute-form input[name='dispute_seat'][value='2'] + span").tap()
    # The form starts as the recorded hand: sent unchanged with no note, it disputes nothing
    # and is refused on the phone, before it is queued or the match is frozen.
    box.locator("#dispute-submit").tap()
    expect(box.locator("#dispute-error")).to_contain_text("This is the recorded hand")
    expect(phone.locator("#queue-list li[data-kind='dispute']")).to_have_count(0)
    expect(phone.locator("#table-frozen")).to_be_hidden()
    for seat, count in enumerate(CLAIMED):
        box.locator(f"#dispute-count-{seat}").fill(str(count))
    box.locator("#dispute-note").fill("A had 2, not 3")
    box.locator("#dispute-submit").tap()
    expect(phone.locator("#table-frozen")).to_contain_text("disputed", timeout=15_000)
    # Stored once the phone's queue is empty (taps and the dispute are sent in order).
    expect(phone.locator("#queue-list li[data-kind='dispute']")).to_have_count(1)
    expect(phone.locator(WAITING)).to_have_count(0, timeout=15_000)
    phone.screenshot(path=artifacts_dir / "referee-dispute.png", full_page=True)
    match.refresh_from_db()
    assert match.confirmation_hold == "disputed"
    assert match.status == Match.Status.IN_PROGRESS
    assert ResultDispute.objects.filter(match=match, status="open").count() == 1

    # The director's dispute queue: both versions, resolved with a reason.
    desk = browser_context(viewport=DESKTOP, user=event["director"]).new_page()
    desk.goto(f"/director/tournaments/{event['t'].slug}/disputes/")
    card = desk.locator("section.dispute")
    expect(card).to_have_count(1)
    expect(card.locator(".version-recorded .counts")).to_have_text("3 · 10 · 12 · 9")
    expect(card.locator(".version-claimed .counts")).to_have_text("2 · 14 · 12 · 9")
    # What differs is said before the table (on a phone its columns scroll).
    expect(card.locator(".differs")).to_have_text("They differ on: Counts.")
    desk.screenshot(path=artifacts_dir / "director-dispute-queue.png", full_page=True)
    card.locator("input[name='reason']").fill("Counted again with both players: 2")
    # Replacing asks first: declined, nothing happens; accepted, the player's version stands.
    asked: list[str] = []

    def answer(accept: bool) -> Any:
        def handle(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()

        return handle

    desk.once("dialog", answer(False))
    card.get_by_role("button", name="Replace it with the player's version").click()
    expect(card).to_be_visible()
    assert ResultDispute.objects.filter(match=match, status="open").count() == 1
    desk.once("dialog", answer(True))
    card.get_by_role("button", name="Replace it with the player's version").click()
    expect(desk.locator("#no-disputes")).to_be_visible()
    assert len(asked) == 2
    assert "voided (kept in the history)" in asked[0]

    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.confirmation_hold == ""
    assert Hand.objects.get(match=match, number=6, void=False).counts == CLAIMED
    log = ActionLog.objects.get(verb="result.dispute.correct")
    assert log.reason == "Counted again with both players: 2"
    # Finished: the bracket advanced (auto advance publishes round 2).
    second = Round.objects.filter(stage=event["stage"], number=2).first()
    assert second is not None
    assert second.status == Round.Status.PUBLISHED


@pytest.fixture
def every_hand(transactional_db: Any) -> dict[str, Any]:
    tournament, director = make_tournament(4, confirmation="every_hand")
    match = scheduled_match(tournament)
    role = tournament_services.referee_create(tournament=tournament, actor=director, username="t8")
    token = tournament_services.referee_token_issue(
        tournament=tournament, actor=director, user=role.user
    )
    match_assign_referee(match_id=match.pk, actor=director, referee=role.user)
    return {"match": match, "key": token.key}  # type: ignore[attr-defined]


@pytest.mark.browser
def test_confirmations_queue_offline_with_the_hands(
    browser_context: Any, every_hand: dict[str, Any]
) -> None:
    """Every hand, offline: the players' taps wait on the phone after their hand; the next hand
    is offered only once everyone tapped; online, hands and taps are stored in order, once."""
    match: Match = every_hand["match"]
    context = browser_context()
    page = context.new_page()
    page.goto(f"/ref/#{every_hand['key']}")
    page.wait_for_url(f"**/matches/{match.pk}/")
    page.wait_for_function(
        "async () => !!navigator.serviceWorker.controller"
        " && !!(await caches.match(location.pathname))",
        polling=200,
    )
    page.reload()
    # The worker holds the reloaded page's copies again before the network goes (a copy being
    # rewritten is not there yet: the offline reload below failed so once, under load).
    expect(page.locator("#referee-app[data-offline-ready='1']")).to_have_count(1)
    set_offline(context, True)
    tap_domino_hand(page, FIRST, 1)
    box = page.locator("#table-confirm")
    expect(box).to_be_visible()
    expect(page.locator("#hand-form")).to_be_hidden()  # hand 2 waits for the players
    for seat in range(4):
        box.locator(f"[data-confirm-seat='{seat}']").tap()
        expect(box.locator(f"[data-confirm-seat='{seat}']")).to_be_disabled()
    expect(box).to_be_hidden()
    tap_domino_hand(page, NEXT, 2)
    expect(page.locator("#queue-list li")).to_have_count(6)  # hand 1, four taps, hand 2
    page.reload()  # still offline: the worker serves the page, the queue is kept
    expect(page.locator("#queue-list li")).to_have_count(6)
    assert not Hand.objects.filter(match=match).exists()

    set_offline(context, False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(page.locator("#submit-status")).to_contain_text("Hand 2 recorded", timeout=20_000)
    match.refresh_from_db()
    assert list(
        Hand.objects.filter(match=match).order_by("number").values_list("number", flat=True)
    ) == [1, 2]
    assert HandConfirmation.objects.filter(hand__match=match, hand__number=1).count() == 4
    assert match.confirmation_hold == "hand"  # hand 2 now waits for its taps
    expect(page.locator("#table-confirm")).to_be_visible()


@pytest.mark.browser
def test_a_wrong_pin_is_refused_and_the_player_taps_again(
    browser_context: Any, every_hand: dict[str, Any]
) -> None:
    match: Match = every_hand["match"]
    seat = Seat.objects.select_related("entry__tournament").get(match=match, seat=1)
    director = director_of(seat.entry.tournament)
    _, pin = entry_check_in(entry=seat.entry, actor=director, issue_pin=True)
    assert pin is not None
    wrong = f"{(int(pin) + 1) % 10000:04d}"
    page = browser_context().new_page()
    console: list[str] = []
    page.on("console", lambda msg: console.append(msg.text))
    page.goto(f"/ref/#{every_hand['key']}")
    page.wait_for_url(f"**/matches/{match.pk}/")
    tap_domino_hand(page, FIRST, 1)
    box = page.locator("#table-confirm")
    expect(box).to_be_visible(timeout=15_000)
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 recorded", timeout=15_000)
    # The PIN field sits in a form (browsers warn of a password field outside one), and Enter
    # in it neither reloads the page nor sends anything: a tap on the name confirms.
    box.locator("#confirm-pin").fill(wrong)
    page.evaluate("window.__same_page = true")
    box.locator("#confirm-pin").press("Enter")
    assert page.evaluate("window.__same_page") is True
    expect(box.locator("#confirm-pin")).to_have_value(wrong)
    assert not [m for m in console if "not contained in a form" in m]
    box.locator("[data-confirm-seat='1']").tap()
    # Refused: the tap is dropped by itself and the player may tap again at once (no Discard).
    expect(box.locator("#confirm-error")).to_contain_text("Wrong PIN for B", timeout=15_000)
    expect(page.locator("#queue-list li[data-kind='confirm']")).to_have_count(0)
    expect(page.locator("#queue-resolve")).to_be_hidden()
    assert not HandConfirmation.objects.filter(hand__match=match).exists()
    expect(box.locator("[data-confirm-seat='1']")).to_be_enabled(timeout=15_000)
    box.locator("#confirm-pin").fill(pin)
    box.locator("[data-confirm-seat='1']").tap()
    expect(box.locator("[data-confirm-seat='1']")).to_have_attribute(
        "aria-pressed", "true", timeout=15_000
    )
    expect(page.locator(WAITING)).to_have_count(0, timeout=15_000)
    confirmed = HandConfirmation.objects.get(hand__match=match, seat=1)
    assert confirmed.with_pin
