"""Confirmation at the table, offline: the players tapped their names for hand 1 while the
phone had no connection; meanwhile the director undid hand 1 and recorded it again with
another winner. When the connection returns the queued taps must not confirm the new hand
(nobody at the table saw it): each names the hand it saw and is refused (409 hand_changed),
the phone shows the hand as it stands now and the players tap again."""

from __future__ import annotations

from typing import Any, cast

import pytest
from playwright.sync_api import BrowserContext, expect

from scoring.models import Hand, HandConfirmation, Match
from scoring.services import hand_record, hand_void_last
from tests.browser.conftest import set_offline
from tests.factories import TournamentFactory, director_of, match_in_progress
from tournament import services as tournament_services
from tournament.models import Tournament

FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}
AGAIN = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 1}


@pytest.fixture
def table(transactional_db: Any) -> dict[str, Any]:
    tournament = cast(Tournament, TournamentFactory(confirmation="every_hand"))  # type: ignore[no-untyped-call]
    director = director_of(tournament)
    role = tournament_services.referee_create(tournament=tournament, actor=director, username="rc")
    token = tournament_services.referee_token_issue(
        tournament=tournament, actor=director, user=role.user
    )
    match = match_in_progress(tournament, referee=role.user)
    hand_record(match_id=match.pk, actor=director, expected_number=1, payload=FIRST)
    return {"match": match, "key": token.key, "director": director}  # type: ignore[attr-defined]


@pytest.mark.browser
@pytest.mark.embedded
def test_taps_queued_for_a_hand_recorded_again_are_refused(
    browser_context: Any, table: dict[str, Any]
) -> None:
    match: Match = table["match"]
    context: BrowserContext = browser_context()
    phone = context.new_page()
    phone.goto(f"/ref/#{table['key']}")
    phone.wait_for_url(f"**/matches/{match.pk}/")
    box = phone.locator("#table-confirm")
    expect(box).to_be_visible(timeout=15_000)
    expect(box.locator("#table-confirm-result")).to_contain_text("A · ")
    expect(box.locator("#table-confirm-result")).to_contain_text("dominoes")

    set_offline(context, True)
    for seat in range(4):
        box.locator(f"[data-confirm-seat='{seat}']").tap()
    expect(phone.locator("#queue-list li[data-kind='confirm']")).to_have_count(4)

    # Meanwhile, at the director's desk: hand 1 undone and recorded with another winner.
    hand_void_last(
        match_id=match.pk, actor=table["director"], reason="wrong winner", expected_number=1
    )
    again = hand_record(
        match_id=match.pk, actor=table["director"], expected_number=1, payload=AGAIN
    ).hand

    set_offline(context, False)
    phone.evaluate("window.dispatchEvent(new Event('online'))")
    expect(box.locator("#confirm-error")).to_contain_text(
        "was changed since the players saw it", timeout=20_000
    )
    # Nothing was counted for the new hand, and the phone now shows it (B dominoed).
    assert not HandConfirmation.objects.filter(hand=again).exists()
    expect(box.locator("#table-confirm-result")).to_contain_text("B · ", timeout=15_000)
    match.refresh_from_db()
    assert match.confirmation_hold == "hand"
    # The players confirm the hand they now see.
    box.locator("[data-confirm-seat='0']").tap()
    expect(box.locator("[data-confirm-seat='0']")).to_have_attribute(
        "aria-pressed", "true", timeout=15_000
    )
    assert HandConfirmation.objects.filter(hand=again, seat=0).exists()
    assert Hand.objects.filter(match=match, void=True).count() == 1
