"""Under "every hand" confirmation (issue 15) a dispute of the hand that ended the match is a
dispute of the match's result, as under "match end": the referee's phone keeps the final
scores, the winner and the six-love line on screen and its heading says the hand is
disputed (it used to fall back to "each player taps their name to confirm it", with the
final scores gone, while the match was frozen)."""

from __future__ import annotations

import re
from typing import cast

import pytest
from playwright.sync_api import Page, expect

from scoring import confirmation
from scoring.models import Match
from scoring.services import hand_record
from tests.factories import TournamentFactory, director_of, match_in_progress
from tournament import services as tournament_services
from tournament.context import RefereeActor
from tournament.models import Tournament

pytestmark = [pytest.mark.browser, pytest.mark.embedded]

FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}
NEXT = {"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 0}


@pytest.mark.django_db(transaction=True)
def test_a_disputed_last_hand_keeps_the_final_scores_on_the_phone(page: Page) -> None:
    t = cast(Tournament, TournamentFactory(confirmation="every_hand"))  # type: ignore[no-untyped-call]
    director = director_of(t)
    role = tournament_services.referee_create(tournament=t, actor=director, username="eh-ref")
    token = tournament_services.referee_token_issue(tournament=t, actor=director, user=role.user)
    match: Match = match_in_progress(t, referee=role.user)
    referee = RefereeActor.of(token)
    for number in range(1, 7):  # A wins six hands: 6-0-0-0, the match (R31c)
        hand_record(
            match_id=match.pk,
            actor=referee,
            expected_number=number,
            payload=FIRST if number == 1 else NEXT,
        )
        if number < 6:
            for seat in range(4):
                confirmation.hand_confirm(
                    match_id=match.pk, actor=referee, number=number, seat=seat
                )
    confirmation.hand_dispute(
        match_id=match.pk,
        actor=referee,
        number=6,
        seat=1,
        claimed={**NEXT, "winner": 1},
        note="B dominoed",
    )
    page.goto(f"/ref/#{token.key}")
    expect(page).to_have_url(re.compile(rf"/matches/{match.pk}/$"))
    box = page.locator("#table-confirm")
    expect(box.locator("#table-confirm-title")).to_have_text(
        "Hand 6 ended the match: a player disputes it."
    )
    expect(box.locator("#table-frozen")).to_contain_text("Hand 6 is disputed")
    final = box.locator("#table-confirm-final")
    expect(final).to_be_visible()
    expect(final).to_contain_text("Final scores")
    expect(final).to_contain_text("6")
    expect(final).to_contain_text("Six-love")
    # Nobody taps while the match is frozen.
    for button in box.locator("[data-confirm-seat]").all():
        expect(button).to_be_disabled()
