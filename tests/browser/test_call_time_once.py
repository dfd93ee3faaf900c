"""Calling time (T3) on the director's round page is confirmed once.

Bug (testers): the form asked twice, its "Yes, call time" tick and then a browser confirm()
with the same question. Now the tick is the one confirmation (the server requires it, also
without JavaScript); the reason is kept in the action log.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Dialog, expect

from brackets.models import Stage
from brackets.services import round_publish, stage_create, stage_seed
from scoring.models import Match
from scoring.services import hand_record, match_start
from tests.brackets.conftest import make_tournament
from tests.browser.conftest import DESKTOP, ContextFactory
from tournament.models import ActionLog


@pytest.mark.embedded
def test_calling_time_takes_one_confirmation(
    browser_context: ContextFactory, transactional_db: Any, artifacts_dir: Path
) -> None:
    tournament, director = make_tournament(8, referees=2)
    stage = stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind=Stage.Kind.QUALIFYING,
        swiss_rounds=2,
        rng_seed=7,
        round_time_limit=30,
        auto_advance=False,
    )
    stage_seed(stage=stage, actor=director)
    rnd = round_publish(stage=stage, actor=director)
    playing = Match.objects.filter(round_link__round=rnd).order_by("pk").first()
    assert playing is not None
    match_start(match_id=playing.pk, actor=director, lot_winner=0)
    hand_record(
        match_id=playing.pk,
        actor=director,
        expected_number=1,
        payload={"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 1},
    )

    page = browser_context(viewport=DESKTOP, user=director).new_page()
    asked: list[str] = []

    def dismiss(dialog: Dialog) -> None:  # a second question would stop the call here
        asked.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismiss)
    page.goto(f"/director/tournaments/{tournament.slug}/rounds/{rnd.pk}/")
    page.locator("#call-time summary").click()
    page.fill("#call-reason", "Hall closes at ten")

    # Without the tick nothing happens: the tick is the confirmation.
    page.locator("#call-time-submit").click()
    page.wait_for_timeout(300)
    rnd.refresh_from_db()
    assert rnd.time_called_at is None

    page.check("#call-confirm")
    page.screenshot(path=artifacts_dir / "call-time-once.png", full_page=True)
    page.locator("#call-time-submit").click()
    expect(page.locator(".messages")).to_contain_text("Time called (T3): 2 matches ended on time.")
    assert asked == []
    rnd.refresh_from_db()
    assert rnd.time_called_at is not None
    ended = Match.objects.filter(round_link__round=rnd).values_list("status", "end_reason")
    assert set(ended) == {("finished", "time")}
    log = ActionLog.objects.get(tournament=tournament, verb="round.call_time")
    assert log.reason == "Hall closes at ten"
    expect(page.locator("#clock")).to_contain_text("Time was called at")
