"""The director's walkthrough fixes in a real browser (Chromium): a withdrawal that forfeits a
table in play asks to confirm first (T7), the round page offers the referee links its tables
lack, the seeding list before seeding counts who is checked in, and the final table's preview
warns of nothing it could avoid (T8). Screenshots go to test-artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from brackets import services
from brackets.models import RoundMatch, StageEntry
from brackets.services import round_publish, stage_seed
from scoring.models import Match, Seat
from scoring.services import hand_record, match_start
from tests.brackets.conftest import make_tournament
from tests.brackets.factories_pages import tournament_with_stage
from tests.browser.conftest import DESKTOP, ContextFactory

# Also in the embedded run (SQLite): these are the pages of `make demo`.
pytestmark = pytest.mark.embedded

FIRST_HAND = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}
NEXT_HAND = {"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 0}


@pytest.fixture
def world(transactional_db: Any) -> dict[str, Any]:
    tournament, director, stage = tournament_with_stage(
        8, referees=2, name="Walk Cup", slug="walk-cup", auto_advance=False
    )
    return {"t": tournament, "d": director, "stage": stage}


def test_withdrawing_a_player_in_play_is_confirmed_first(
    browser_context: ContextFactory, world: dict[str, Any], artifacts_dir: Path
) -> None:
    t, d, stage = world["t"], world["d"], world["stage"]
    page = browser_context(viewport=DESKTOP, user=d).new_page()
    seeding = f"/director/tournaments/{t.slug}/stages/{stage.pk}/seeding/"

    # Before seeding: who is checked in, not "check players in".
    page.goto(seeding)
    expect(page.locator("#nobody-seeded")).to_have_text("8 players are checked in: seed the stage.")

    stage_seed(stage=stage, actor=d, method="rating")
    rnd = round_publish(stage=stage, actor=d)
    first = RoundMatch.objects.filter(round=rnd).order_by("table_number").first()
    assert first is not None
    match_start(match_id=first.match_id, actor=d, lot_winner=0)
    hand_record(match_id=first.match_id, actor=d, expected_number=1, payload=FIRST_HAND)
    seat = Seat.objects.select_related("entry__player").get(match_id=first.match_id, seat=1)
    name = seat.entry.player.name

    page.goto(seeding)
    row = page.locator(f"tr[data-entry='{seat.entry_id}']")
    row.screenshot(path=artifacts_dir / "director-withdraw-row.png")
    # The row's "Withdraw…" is a link: its page says what follows before the reason is asked.
    row.get_by_role("link", name=f"Withdraw {name}").click()

    box = page.locator("#confirm-box")
    expect(box).to_contain_text(
        f"Table {first.table_number} (in play): the match is forfeited (T7)."
    )
    expect(box).to_contain_text("play on at this table in a continuation match, from love")
    expect(box).to_contain_text(f"{name}'s line for that match: a 0\u20136 loss")
    # The reason is asked for before anything is done (required: an empty one is not sent).
    page.locator("#withdraw-confirm").click()
    expect(page.locator("#withdraw-reason")).to_be_focused()
    page.get_by_label("Reason").fill("Flight home")
    page.screenshot(path=artifacts_dir / "director-withdraw-confirm.png", full_page=True)
    assert StageEntry.objects.get(stage=stage, entry_id=seat.entry_id).status == "active"

    page.locator("#withdraw-confirm").click()
    expect(page.locator(".messages")).to_contain_text(f"{name} withdrawn (T7).")
    expect(page.locator(".messages")).to_contain_text(f"Table {first.table_number}")
    page.screenshot(path=artifacts_dir / "director-withdraw-done.png")
    assert StageEntry.objects.get(stage=stage, entry_id=seat.entry_id).status == "withdrawn"
    assert Match.objects.get(pk=first.match_id).end_reason == Match.EndReason.FORFEIT

    # The others play on at the continuation (T7): withdrawing one of them forfeits it.
    other = Seat.objects.select_related("entry__player").get(match_id=first.match_id, seat=2)
    row = page.locator(f"tr[data-entry='{other.entry_id}']")
    row.get_by_role("link", name=f"Withdraw {other.entry.player.name}").click()
    # ... their continuation match, not started yet.
    expect(page.locator("#confirm-box")).to_contain_text(
        f"Table {first.table_number} (not started yet): the match is forfeited (T7)."
    )


def test_the_round_page_offers_the_referee_links_its_tables_lack(
    browser_context: ContextFactory, world: dict[str, Any], artifacts_dir: Path
) -> None:
    t, d, stage = world["t"], world["d"], world["stage"]
    stage_seed(stage=stage, actor=d, method="rating")
    rnd = round_publish(stage=stage, actor=d)
    page = browser_context(viewport=DESKTOP, user=d).new_page()
    page.goto(f"/director/tournaments/{t.slug}/rounds/{rnd.pk}/")
    notice = page.locator("#referee-links")
    expect(notice).to_contain_text("2 referees of this round's tables have no referee link yet")
    expect(notice.locator("#round-referees-page")).to_have_attribute(
        "href", f"/director/tournaments/{t.slug}/referees/"
    )
    page.screenshot(path=artifacts_dir / "director-round-referee-links.png", full_page=True)
    page.locator("#round-issue-links").click()
    expect(page.locator("#issued-links .referee-link")).to_have_count(2)
    page.goto(f"/director/tournaments/{t.slug}/rounds/{rnd.pk}/")
    expect(page.locator("#round-tables")).to_be_visible()
    expect(page.locator("#referee-links")).to_have_count(0)


def test_the_final_table_preview_warns_of_nothing_it_cannot_avoid(
    browser_context: ContextFactory, transactional_db: Any, artifacts_dir: Path
) -> None:
    t, d = make_tournament(4, clubs=1)
    k = services.stage_create(
        tournament=t, actor=d, name="Final", kind="knockout", rng_seed=3, auto_advance=False
    )
    services.stage_seed(stage=k, actor=d, method="rating")
    page = browser_context(viewport=DESKTOP, user=d).new_page()
    page.goto(f"/director/tournaments/{t.slug}/stages/{k.pk}/preview/")
    expect(page.locator("#publish")).to_have_text("Publish the final table")
    expect(page.locator("#warnings")).to_have_count(0)
    page.screenshot(path=artifacts_dir / "director-final-preview-one-club.png", full_page=True)

    # Played to the end (seat A wins 6-0): the stage ends by itself; the log says the places.
    rnd = services.round_publish(stage=k, actor=d)
    match_id = RoundMatch.objects.get(round=rnd).match_id
    page.goto(f"/stats/{t.slug}/")
    expect(page.locator("#leaders-finished-only")).to_have_text(
        "Nobody is on a board yet: only finished matches count, so the boards fill in as "
        "matches end."
    )
    match_start(match_id=match_id, actor=d, lot_winner=0)
    for number in range(1, 7):
        payload = FIRST_HAND if number == 1 else NEXT_HAND
        hand_record(match_id=match_id, actor=d, expected_number=number, payload=payload)
    champion = Seat.objects.select_related("entry__player").get(match_id=match_id, seat=0)
    page.goto(f"/director/tournaments/{t.slug}/log/")
    finish = page.locator("tr[data-verb='stage.finish']")
    expect(finish).to_contain_text(f"Final placings: 1. {champion.entry.player.name};")
    expect(finish).not_to_contain_text("Out of the stage")
    page.screenshot(path=artifacts_dir / "director-log-final-placings.png")
    page.goto(f"/stats/{t.slug}/")
    expect(page.locator("#leaders-finished-only")).to_have_text(
        "Only finished matches count: a match in play counts once it ends."
    )


def test_creating_a_tournament_says_what_comes_next(
    browser_context: ContextFactory, transactional_db: Any, artifacts_dir: Path
) -> None:
    from tests.factories import UserFactory

    boss = UserFactory(is_superuser=True, is_staff=True)
    page = browser_context(viewport=DESKTOP, user=boss).new_page()
    page.goto("/director/new/")
    page.fill("#id_name", "Harbour Open")
    page.locator("#id_name").press("Enter")
    expect(page.locator(".messages")).to_contain_text(
        "Harbour Open created, in draft: only its directors see it until you open "
        "registration on the Lifecycle page. Next: create its first stage below, then add "
        "the players on the Players page."
    )
    page.screenshot(path=artifacts_dir / "director-tournament-created.png")
