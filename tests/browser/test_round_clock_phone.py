"""The round clock (T2, T3) on the referee's phone (390 px) and the director's dashboard, and
the phone's live line once the match is over.

Bug: after "Start the clock" neither the referee's match page nor the dashboard showed the time
left or "Time!"; the phone kept saying "Live: updates as hands are recorded." after the match
ended. Now a clock started while the phone is open appears there within a poll (no websocket on
the test server: static/js/live.js polls and referee.js copies the clock from the panel), counts
down with the spectators' script (static/js/clock.js) and at zero says what T3 asks of the table;
the dashboard counts the same clock; a finished match says so on the live line.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from brackets.models import Round, RoundMatch
from brackets.services import round_clock_start, round_publish, stage_seed
from scoring.models import Match
from scoring.services import hand_record
from tests.brackets.factories_pages import tournament_with_stage
from tests.browser.conftest import DESKTOP, ContextFactory

pytestmark = [pytest.mark.browser]

POLL_SECONDS = 5
WITHIN_A_POLL_MS = (POLL_SECONDS + 2 + 4) * 1000
PHONE_390 = {"width": 390, "height": 844}
FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}
NEXT = {"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 0}


def _round_in_play() -> tuple[Any, Any, Round, int]:
    tournament, director, stage = tournament_with_stage(8, time_limit=1)
    stage_seed(stage=stage, actor=director, method="rating")
    round_publish(stage=stage, actor=director)
    rnd = Round.objects.get(stage=stage, number=1)
    match_id = (
        RoundMatch.objects.filter(round=rnd)
        .order_by("table_number")
        .values_list("match_id", flat=True)[0]
    )
    return tournament, director, rnd, match_id


@pytest.mark.django_db(transaction=True)
def test_a_clock_started_while_the_phone_is_open_counts_down_to_time(
    browser_context: ContextFactory, settings: Any
) -> None:
    settings.REFEREE_POLL_SECONDS = POLL_SECONDS
    tournament, director, rnd, match_id = _round_in_play()
    phone = browser_context(viewport=PHONE_390, user=director).new_page()
    phone.goto(f"/matches/{match_id}/")
    clock = phone.locator("#round-clock")
    expect(clock).to_contain_text("1 minute, not started")

    # The director starts the clock; 35 s of its minute have gone by (the test cannot wait a
    # minute). The 25 s left outlast a poll on a loaded machine, so the countdown is seen
    # before it reaches zero.
    round_clock_start(round=rnd, actor=director)
    Round.objects.filter(pk=rnd.pk).update(clock_started_at=timezone.now() - timedelta(seconds=35))
    expect(clock.locator(".clock")).to_have_text(
        re.compile(r"^0:[0-5]\d$"), timeout=WITHIN_A_POLL_MS
    )
    expect(clock).to_contain_text("(1 minute)")
    # At zero: what calling time means for the table (T3).
    expect(clock.locator(".clock")).to_have_text(
        "Time! Finish the hand in progress and record it: then the match stops (T3).",
        timeout=40_000,
    )
    box = clock.bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= 390  # it wraps on the phone, no sideways scroll

    # The director's dashboard counts the same clock with the same script.
    desk = browser_context(viewport=DESKTOP, user=director).new_page()
    desk.goto(f"/director/tournaments/{tournament.slug}/")
    expect(desk.locator(f"#round-clock-{rnd.pk} .clock")).to_have_text("Time!")


@pytest.mark.django_db(transaction=True)
def test_the_live_line_says_the_match_is_over(
    browser_context: ContextFactory, settings: Any
) -> None:
    settings.REFEREE_POLL_SECONDS = POLL_SECONDS
    _tournament, director, _rnd, match_id = _round_in_play()
    phone = browser_context(viewport=PHONE_390, user=director).new_page()
    phone.goto(f"/matches/{match_id}/")
    line = phone.locator("[data-live-status]")
    expect(line).not_to_contain_text("over")
    # Another device (the director) records the hands that end the match.
    number = 1
    while Match.objects.get(pk=match_id).status != Match.Status.FINISHED:
        hand_record(
            match_id=match_id,
            actor=director,
            expected_number=number,
            payload=FIRST if number == 1 else NEXT,
        )
        number += 1
    expect(phone.locator("#match-panel")).to_have_attribute(
        "data-status", "finished", timeout=WITHIN_A_POLL_MS
    )
    expect(line).to_have_text("This match is over: no more hands are recorded here.")
    # Opened again, it says so at once.
    phone.reload()
    expect(line).to_have_text("This match is over: no more hands are recorded here.")
