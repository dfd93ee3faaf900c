"""A referee enters a whole hand move by move on a 360 px phone, then a spectator replays it.

The hand is one the engine's bots played (seeded): the referee signs in through the
credential link (``/ref/#key``), opens the move-by-move page from the match page (a feature
table), taps the deal, tries a forced-pose mistake (the server names R11/R5), enters every
move (one by keyboard), records the hand through the ordinary endpoint, and a spectator steps
through the public replay (buttons, arrow keys, an aria-live announcement).
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any, cast

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from scoring.engine import Ruleset
from scoring.engine.deal import forced_opener
from scoring.engine.match import match_start
from scoring.engine.simulate import BOTS, simulate_hand
from scoring.models import Hand, Match
from scoring.services import hand_record
from tests.factories import (
    TableFactory,
    TournamentFactory,
    director_of,
    match_in_progress,
    referee_of,
    scheduled_match,
)
from tournament.models import Table, Tournament
from tournament.services import referee_token_issue

SEED = 11


@pytest.fixture
def feature_match(transactional_db: Any) -> dict[str, Any]:
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="wsod"))  # type: ignore[no-untyped-call]
    director = director_of(tournament)
    referee = referee_of(tournament, first_name="Rosa")
    match = match_in_progress(tournament, referee=referee)
    match.table = TableFactory(tournament=tournament, number=3, feature=True)
    match.save(update_fields=["table"])
    token = referee_token_issue(tournament=tournament, actor=director, user=referee)
    ruleset = Ruleset.from_json(match.ruleset)
    state = match_start(ruleset, 4, lot_winner=match.lot_winner)
    log, record = simulate_hand(
        ruleset, 4, state.next, random.Random(SEED), (BOTS["heuristic"],) * 4
    )
    return {"match": match, "token": token, "log": log, "record": record}


def _axe(page: Page) -> None:
    """axe-core finds no violation on the page as it stands (issue 13's bar)."""
    results = Axe().run(page)
    found = [
        f"{v['id']} ({v['impact']}) at {[n.get('target') for n in v['nodes']][:3]}"
        for v in results.response.get("violations", [])
    ]
    assert found == [], f"axe violations on {page.url}:\n" + "\n".join(found)


def _phone_layout(page: Page, selector: str) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the page scrolls sideways at 360 px ({width} px wide)"
    for box in [el.bounding_box() for el in page.locator(selector).all()]:
        if box is not None:
            assert box["height"] >= 44, f"{selector} is {box['height']} px tall (< 44)"
            assert box["width"] >= 44, f"{selector} is {box['width']} px wide (< 44)"


def _enter(page: Page, move: dict[str, Any], *, keyboard: bool = False) -> None:
    """Enter one move of a play log as the referee would."""
    if move["kind"] == "pass":
        page.locator("#move-pass").tap()
        return
    if move["kind"] == "draw":  # Draw, then the tile drawn (R16)
        page.locator("#move-draw").tap()
        page.locator(f"#draw-choice button[data-tile='{move['tile']}']").tap()
        return
    button = page.locator(f"#hand-tiles button[data-tile='{move['tile']}']")
    if keyboard:  # focus and Enter, as with a keyboard or a switch
        button.focus()
        page.keyboard.press("Enter")
    else:
        button.tap()
    if move["kind"] == "play" and page.locator("#end-choice").is_visible():
        page.locator(f"#end-choice button[data-end='{move['end']}']").tap()


@pytest.mark.browser
def test_referee_enters_a_hand_move_by_move_and_a_spectator_replays_it(
    browser_context: Any, feature_match: dict[str, Any], artifacts_dir: Path
) -> None:
    match: Match = feature_match["match"]
    log = feature_match["log"]
    data = log.to_dict()
    page = browser_context().new_page()  # 360 x 740, touch

    page.goto(f"/ref/#{feature_match['token'].key}")
    expect(page).to_have_url(re.compile(rf"/matches/{match.pk}/$"))
    page.get_by_role("link", name="Enter the hand move by move").tap()
    expect(page).to_have_url(re.compile(rf"/matches/{match.pk}/moves/$"))

    # 1. The deal: seats A-C tapped, D gets the last 7 tiles (every tile is dealt, R2).
    for seat in range(3):
        page.locator(f"#deal-seats button[data-seat='{seat}']").tap()
        for tile in data["deal"]["hands"][seat]:
            page.locator(f"#deal-grid button[data-tile='{tile}']").tap()
    expect(page.locator("#deal-seats button[data-seat='3']")).to_contain_text("(7/7)")
    expect(page.locator("#move-status")).to_contain_text("Tap Start play")
    _phone_layout(page, "#deal-grid button, #deal-seats button, #deal-done")
    page.screenshot(path=artifacts_dir / "moves-01-deal.png", full_page=True)
    _axe(page)
    page.locator("#deal-done").tap()

    # 2. A forced-pose mistake: the server refuses it and names the rule; nothing changes.
    holder, _ = forced_opener(log.deal)
    expect(page.locator("#turn-title")).to_contain_text("must pose 6-6")
    wrong = next(t for t in data["deal"]["hands"][holder] if t != "6-6")
    page.locator(f"#hand-tiles button[data-tile='{wrong}']").tap()
    error = page.locator("#move-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("forced pose (R5)")
    expect(error).to_contain_text("must pose 6-6")
    expect(error).to_contain_text("in tournament play (R11)")
    expect(page.locator("#move-list li")).to_have_count(0)
    page.screenshot(path=artifacts_dir / "moves-02-forced-pose.png", full_page=True)
    # Before the pose, the step back is to the deal (to correct a tile tapped to the wrong seat).
    page.get_by_role("button", name="Change the deal").tap()
    expect(page.locator("#deal-step")).to_be_visible()
    page.locator("#deal-done").tap()
    expect(page.locator("#turn-title")).to_contain_text("must pose 6-6")

    # 3. Every move of the hand, as the table played it.
    for i, move in enumerate(data["moves"]):
        _enter(page, move, keyboard=i == 1)
        expect(page.locator("#move-list li")).to_have_count(i + 1)
        expect(error).to_be_hidden()
        if i == 4:  # a slip of the finger: undo the move and enter it again
            page.locator("#move-undo").tap()
            expect(page.locator("#move-list li")).to_have_count(i)
            _enter(page, move)
            expect(page.locator("#move-list li")).to_have_count(i + 1)
        if i == 2:
            _phone_layout(page, "#hand-tiles button, #move-pass, #move-undo")
            page.screenshot(path=artifacts_dir / "moves-03-play.png", full_page=True)
            _axe(page)

    # 4. Record it through the ordinary hand endpoint.
    expect(page.locator("#done-step")).to_be_visible()
    record = feature_match["record"]
    if record.winner is not None and record.end.value == "domino":
        expect(page.locator("#done-result")).to_contain_text("dominoes")
    else:
        expect(page.locator("#done-result")).to_contain_text("Blocked")
    page.locator("#move-record").tap()
    expect(page.locator("#move-status")).to_contain_text("Hand 1 recorded")
    page.screenshot(path=artifacts_dir / "moves-04-recorded.png", full_page=True)
    hand = Hand.objects.get(match=match, void=False)
    assert hand.play_log == data
    assert (hand.poser, hand.end, hand.winner) == (record.poser, record.end.value, record.winner)
    replay_url = page.locator("#replay-link").get_attribute("href")
    assert replay_url is not None
    assert replay_url.endswith(f"/matches/{match.pk}/hands/1/replay/")

    # 5. A spectator (no sign-in) replays it, step by step.
    viewer = browser_context().new_page()
    viewer.goto(replay_url)
    step = viewer.locator("#replay-step")
    expect(step).to_have_attribute("aria-live", "polite")
    expect(step).to_contain_text("The deal")
    expect(viewer.locator("#replay-seats li")).to_have_count(4)
    total = len(data["moves"])
    # The arrow keys step as soon as the page opens, before anything is focused (user test).
    viewer.keyboard.press("ArrowRight")
    expect(step).to_contain_text(f"Move 1 of {total}")
    viewer.keyboard.press("ArrowLeft")
    expect(step).to_contain_text("The deal")
    viewer.get_by_role("button", name="Forward").tap()
    expect(step).to_contain_text(f"Move 1 of {total}")
    expect(step).to_contain_text("poses 6-6")
    expect(viewer.locator("#replay-line li")).to_have_count(1)
    viewer.get_by_role("button", name="Forward").tap()
    viewer.get_by_role("button", name="Back").tap()
    expect(step).to_contain_text(f"Move 1 of {total}")
    viewer.get_by_role("button", name="End").tap()
    expect(step).to_contain_text(f"Move {total} of {total}")
    expect(viewer.get_by_role("button", name="Forward")).to_be_disabled()
    viewer.get_by_role("button", name="Back").focus()
    viewer.keyboard.press("ArrowLeft")
    expect(step).to_contain_text(f"Move {total - 1} of {total}")
    _phone_layout(viewer, ".replay-controls button")
    viewer.screenshot(path=artifacts_dir / "moves-05-replay.png", full_page=True)
    _axe(viewer)


@pytest.mark.browser
def test_move_entry_and_replay_in_spanish(
    browser_context: Any, feature_match: dict[str, Any], artifacts_dir: Path
) -> None:
    """The director's view of the entry page (with the feature switch) and the replay, in
    Spanish, pass axe; the switch turns the table off and back on."""
    match: Match = feature_match["match"]
    log = feature_match["log"]
    director = match.tournament.roles.get(role="director").user
    hand_record(
        match_id=match.pk,
        actor=director,
        expected_number=1,
        payload={"play_log": log.to_dict()},
    )
    page = browser_context(locale="es-ES", user=director).new_page()
    page.goto(f"/matches/{match.pk}/moves/")
    toggle = page.locator("#feature-toggle")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(toggle).to_contain_text("Mesa destacada: sí")
    toggle.tap()
    expect(page.locator("#feature-toggle")).to_have_attribute("aria-pressed", "false")
    table = Table.objects.get(pk=match.table_id)
    assert table.feature is False
    expect(page.locator("#deal-step")).to_contain_text("El reparto")  # directors always may
    _axe(page)
    page.screenshot(path=artifacts_dir / "moves-06-director-es.png", full_page=True)
    viewer = browser_context(locale="es-ES").new_page()
    viewer.goto(f"/live/{match.tournament.slug}/matches/{match.pk}/hands/1/replay/")
    expect(viewer.locator("#replay-step")).to_contain_text("El reparto")
    viewer.get_by_role("button", name="Adelante").tap()
    expect(viewer.locator("#replay-step")).to_contain_text("sale con 6-6")
    _axe(viewer)


@pytest.mark.browser
def test_a_two_player_hand_with_draws_from_the_boneyard(
    browser_context: Any, transactional_db: Any, artifacts_dir: Path
) -> None:
    """7 tiles each from the full set, the other 14 a draw boneyard (R2, R16): both hands are
    tapped (no auto-fill), the forced pose may fall back to the highest double (R5), and each
    draw names the tile drawn."""
    tournament = cast(
        Tournament,
        TournamentFactory(  # type: ignore[no-untyped-call]
            ruleset_preset="wsod", ruleset_overrides={"deal": "seven", "boneyard": "draw"}
        ),
    )
    director = director_of(tournament)
    match = match_in_progress(tournament, n_players=2)
    ruleset = Ruleset.from_json(match.ruleset)
    state = match_start(ruleset, 2, lot_winner=match.lot_winner)
    for seed in range(1, 200):
        log, _record = simulate_hand(
            ruleset, 2, state.next, random.Random(seed), (BOTS["heuristic"],) * 2
        )
        if any(m.kind.value == "draw" for m in log.moves):
            break
    data: Any = log.to_dict()
    assert data["deal"]["boneyard"] == "draw"
    page = browser_context(user=director).new_page()
    page.goto(f"/matches/{match.pk}/moves/")
    for seat in range(2):
        page.locator(f"#deal-seats button[data-seat='{seat}']").tap()
        for tile in data["deal"]["hands"][seat]:
            page.locator(f"#deal-grid button[data-tile='{tile}']").tap()
    page.locator("#deal-done").tap()
    expect(page.locator("#move-draw")).to_be_visible()
    for i, move in enumerate(data["moves"]):
        _enter(page, move)
        expect(page.locator("#move-list li")).to_have_count(i + 1)
        expect(page.locator("#move-error")).to_be_hidden()
    expect(page.locator("#done-step")).to_be_visible()
    page.locator("#move-record").tap()
    expect(page.locator("#move-status")).to_contain_text("Hand 1 recorded")
    page.screenshot(path=artifacts_dir / "moves-07-draws.png", full_page=True)
    assert Hand.objects.get(match=match).play_log == data


@pytest.mark.browser
def test_the_lot_winner_poses_the_first_hand_under_lot_then_rotate(
    browser_context: Any, transactional_db: Any
) -> None:
    """``block``: 5 tiles each, the rest sleep (R2); hand 1 is posed freely by whoever won the
    lot (R6): the referee picks that seat, and recording the hand starts the match with it."""
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="block"))  # type: ignore[no-untyped-call]
    director = director_of(tournament)
    match = scheduled_match(tournament)
    ruleset = Ruleset.from_json(tournament.ruleset)
    state = match_start(ruleset, 4, lot_winner=2)
    log, _record = simulate_hand(ruleset, 4, state.next, random.Random(3), (BOTS["heuristic"],) * 4)
    data: Any = log.to_dict()
    page = browser_context(user=director).new_page()
    page.goto(f"/matches/{match.pk}/moves/")
    for seat in range(4):
        page.locator(f"#deal-seats button[data-seat='{seat}']").tap()
        for tile in data["deal"]["hands"][seat]:
            page.locator(f"#deal-grid button[data-tile='{tile}']").tap()
    page.locator("#deal-done").tap()
    page.locator("#lot-choice button[data-seat='2']").tap()
    expect(page.locator("#lot-choice button[data-seat='2']")).to_have_attribute(
        "aria-pressed", "true"
    )
    for i, move in enumerate(data["moves"]):
        _enter(page, move)
        expect(page.locator("#move-list li")).to_have_count(i + 1)
        expect(page.locator("#move-error")).to_be_hidden()
    expect(page.locator("#lot-choice")).to_be_hidden()
    page.locator("#move-record").tap()
    expect(page.locator("#move-status")).to_contain_text("Hand 1 recorded")
    match.refresh_from_db()
    assert (match.status, match.lot_winner) == (Match.Status.IN_PROGRESS, 2)
