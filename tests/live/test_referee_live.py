"""The referee's phone follows its match live (Playwright + Chromium against a real ASGI server).

The referee page rides on the spectators' live client (static/js/live.js, ``data-apply="page"``):
the match's websocket and versions say when the match changed, and the page reads its panel
again through the referee's own read. When the director changes the match under the referee
(undoes a hand with a reason, resolves a dispute), the phone shows the new state and says what
changed within a few seconds, without a reload, keeping what the referee typed for the next
hand.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from scoring.confirmation import dispute_resolve, hand_dispute
from scoring.engine import Ruleset
from scoring.engine.simulate import simulate_match
from scoring.models import Match
from scoring.services import hand_record, hand_void_last
from tests.browser.conftest import (  # noqa: F401  (fixtures reused from the shared module)
    CHROMIUM_ARGS,
    browser,
    playwright_instance,
)
from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of
from tests.live.conftest import AsgiServer
from tournament.models import Tournament
from tournament.services import referee_token_issue

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}
SOON_MS = 5_000  # "within a few seconds": an event, a re-read of the panel


@pytest.fixture
def phone(browser: Browser, asgi_server: AsgiServer) -> Iterator[BrowserContext]:  # noqa: F811
    errors: list[str] = []
    context = browser.new_context(
        base_url=asgi_server.url, viewport=PHONE, is_mobile=True, has_touch=True
    )
    context.set_default_timeout(10_000)
    context.on("page", lambda p: p.on("pageerror", lambda exc: errors.append(str(exc))))
    yield context
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def _table(confirmation: str = Tournament.Confirmation.OFF) -> dict[str, Any]:
    tournament = TournamentFactory(ruleset_preset="wsod", confirmation=confirmation)
    director = director_of(tournament)
    referee = referee_of(tournament, first_name="Rosa", last_name="Méndez")
    match = match_in_progress(tournament, referee=referee)
    token = referee_token_issue(tournament=tournament, actor=director, user=referee)
    sim = simulate_match(Ruleset.from_json(match.ruleset), match.n_players, 43)
    records = []
    for record in sim.records:
        payload = record.to_dict()
        payload.pop("sporting", None)
        records.append(payload)
    return {"match": match, "director": director, "key": token.key, "records": records}


def _record(table: dict[str, Any], number: int) -> None:
    hand_record(
        match_id=table["match"].pk,
        actor=table["director"],
        expected_number=number,
        payload=table["records"][number - 1],
    )


def _open(phone: BrowserContext, table: dict[str, Any]) -> Page:
    page = phone.new_page()
    page.goto(f"/ref/#{table['key']}")
    expect(page).to_have_url(re.compile(rf"/matches/{table['match'].pk}/$"))
    # Following the match's live socket (the same one the spectators' match page uses).
    expect(page.locator("#live")).to_have_attribute("data-live-state", "live")
    expect(page.locator("[data-live-status]")).to_contain_text("Live")
    page.wait_for_load_state("networkidle")
    page.evaluate("window.__sameDocument = true")
    return page


def _tap(page: Page, group: str, value: object) -> None:
    page.locator(f"#hand-form input[name='{group}'][value='{value}'] + span").tap()


@pytest.mark.django_db(transaction=True)
def test_an_undo_by_the_director_shows_at_once_and_keeps_what_the_referee_typed(
    phone: BrowserContext,
) -> None:
    table = _table()
    match: Match = table["match"]
    for number in (1, 2, 3):
        _record(table, number)
    page = _open(phone, table)
    panel = page.locator("#match-panel")
    expect(panel).to_have_attribute("data-number", "4")

    # The referee starts hand 4: a block, two counts typed.
    _tap(page, "end", "block")
    page.fill("#count-0", "12")
    page.fill("#count-2", "7")

    # The director undoes hand 3 with a reason, from their own device.
    hand_void_last(match_id=match.pk, actor=table["director"], reason="wrong winner tapped")

    status = page.locator("#submit-status")
    expect(status).to_contain_text(
        "The director undid hand 3 (reason: wrong winner tapped).", timeout=SOON_MS
    )
    expect(panel).to_have_attribute("data-number", "3")
    expect(page.locator("#confirm-hand")).to_have_text("Record hand 3")
    expect(page.locator(".hands tr.void")).to_have_count(1)
    # What the referee typed is still on the form, now for hand 3, and the page says so.
    expect(status).to_contain_text("What you typed is kept for hand 3")
    # Said by the Record button too: the referee is down in the form, the status line is not
    # on the screen.
    expect(page.locator(".confirm-bar #changed-note")).to_contain_text(
        "The director undid hand 3 (reason: wrong winner tapped)."
    )
    expect(page.locator("#changed-note")).to_be_in_viewport()
    expect(page.locator("#hand-form input[name='end'][value='block']")).to_be_checked()
    expect(page.locator("#count-0")).to_have_value("12")
    expect(page.locator("#count-2")).to_have_value("7")
    # The referee was typing in C's count: the keyboard stays there.
    assert page.evaluate("document.activeElement.id") == "count-2"
    assert page.evaluate("window.__sameDocument") is True  # no reload

    # A hand recorded elsewhere with nothing typed comes in quietly (the scores move on).
    page.locator("#reset-form").tap()
    expect(page.locator("#count-0")).to_have_value("")
    _record(table, 3)
    expect(panel).to_have_attribute("data-number", "4", timeout=SOON_MS)
    expect(status).to_be_hidden()  # the undo's words went with the state they explained
    assert page.evaluate("window.__sameDocument") is True


@pytest.mark.django_db(transaction=True)
def test_a_resolved_dispute_unfreezes_the_phone_at_once(phone: BrowserContext) -> None:
    table = _table(confirmation=Tournament.Confirmation.EVERY_HAND)
    match: Match = table["match"]
    _record(table, 1)
    # C's player disputes hand 1 (what differs is in the note): the match is frozen.
    hand_dispute(
        match_id=match.pk,
        actor=table["director"],
        number=1,
        seat=2,
        claimed=dict(table["records"][0]),
        note="the pose was not the 6-6",
    )
    page = _open(phone, table)
    frozen = page.locator("#table-frozen")
    expect(frozen).to_contain_text("Hand 1 is disputed")
    expect(page.locator("#hand-form")).to_be_hidden()

    dispute_resolve(
        match_id=match.pk,
        actor=table["director"],
        decision="uphold",
        reason="Both neighbours saw it",
    )
    status = page.locator("#submit-status")
    expect(status).to_contain_text(
        "The director resolved the dispute on hand 1: you can record hand 2.", timeout=SOON_MS
    )
    expect(frozen).to_be_hidden()
    expect(page.locator("#table-confirm")).to_be_hidden()
    expect(page.locator("#hand-form")).to_be_visible()
    expect(page.locator("#match-panel")).to_have_attribute("data-number", "2")
    # The director's decision and reason, as the panel words it.
    expect(page.locator("#dispute-decision")).to_contain_text("Both neighbours saw it")
    assert page.evaluate("window.__sameDocument") is True
