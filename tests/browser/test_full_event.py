"""A whole 13-player event through the product's own pages (issue 13, "Done when").

The director signs in, creates the tournament (preset and two overrides on the settings
form: a short target of 3 keeps the run to a few minutes), opens registration on the
lifecycle page, creates two referees on the referees page and reads each credential link
once, imports 13 players by CSV, creates a qualifying stage (2 rounds, top 4 go on) and a
final table, seeds, previews and publishes (publishing the first round makes the tournament
running); the two referees open their links (``/ref/#<prefix>.<secret>``) on phones and
record every hand on the referee page (the first hand starts each match); the director
records a forfeit in round 1 (T7) and calls time once in round 2 (T3); advancing shows the
next round's preview before publishing (auto-advance is off); the final table is played and
the champion is on the spectator pages.

The only set-up outside the pages is the director's own account (an operator's job). The
test runs on PostgreSQL + Redis and on the embedded default (``make pytest-embedded``:
SQLite file database, in-memory channel layer, so the pages fall back to polling).

``UPDATE_DOCS_IMG=1`` writes the screenshots of docs/director-guide.md to docs/img/;
otherwise they go to test-artifacts/.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from playwright.sync_api import BrowserContext, Page, expect

from scoring.engine import Ruleset
from scoring.engine.record import EndKind, HandRecord
from scoring.engine.simulate import simulate_match
from scoring.models import Match
from tests.browser.conftest import ContextFactory
from tournament.models import Tournament

pytestmark = [pytest.mark.slow, pytest.mark.embedded]

PASSWORD = "correct horse battery"
SLUG = "island-open"
# A short match (R30: first to 3) keeps 13 players, every table and both stages, in a few
# minutes per database; a match needs at least 3 hands, so two hands leave it open for T3.
TARGET = 3
RULESET = Ruleset.from_preset("wsod", {"tie_value": "flat2", "target": TARGET})
PLAYERS = [
    ("Ana Rivera", "PR", "Bayamón", 1830),
    ("José Pérez", "DO", "Santo Domingo", 1712),
    ("Luz Ortiz", "PR", "Ponce", 1690),
    ("Marcos Díaz", "CU", "Habana", 1675),
    ("Rosa Méndez", "PR", "Bayamón", 1660),
    ("Iván Cruz", "DO", "Santiago", 1640),
    ("Elena Soto", "PR", "Carolina", 1622),
    ("Pedro Vega", "CU", "Habana", 1610),
    ("Carmen Ruiz", "DO", "Santo Domingo", 1598),
    ("Tomás León", "PR", "Ponce", 1580),
    ("Sofía Ramos", "CU", "Matanzas", 1566),
    ("Andrés Gil", "PR", "Carolina", 1550),
    ("Nora Castro", "DO", "Santiago", 1530),
]


def _img_dir() -> Path:
    if os.environ.get("UPDATE_DOCS_IMG") == "1":
        path = Path(settings.BASE_DIR) / "docs" / "img"
    else:
        path = Path(settings.BASE_DIR) / "test-artifacts" / "guide"
    path.mkdir(parents=True, exist_ok=True)
    return path


def shot(page: Page, name: str) -> None:
    """A small screenshot (CSS pixels, the visible viewport only) for the director guide."""
    page.screenshot(path=_img_dir() / f"{name}.png", scale="css")


def accept_dialogs(page: Page) -> None:
    page.on("dialog", lambda dialog: dialog.accept())


def messages(page: Page) -> str:
    return " ".join(page.locator(".messages").all_inner_texts())


# -- the referee's phone --------------------------------------------------------------------


def tap(page: Page, group: str, seat: int) -> None:
    page.locator(f"#hand-form input[name='{group}'][value='{seat}'] + span").tap()


def fill_hand(page: Page, record: HandRecord) -> None:
    tap(page, "poser", record.poser)
    page.select_option("#pose-tile", str(record.pose_tile))
    if record.end is EndKind.DOMINO:
        page.locator("#hand-form input[name='end'][value='domino'] + span").tap()
        assert record.winner is not None
        tap(page, "winner", record.winner)
    else:
        page.locator("#hand-form input[name='end'][value='block'] + span").tap()
        assert record.counts is not None
        for seat, count in enumerate(record.counts):
            page.fill(f"#count-{seat}", str(count))


def record_hands(page: Page, match_id: int, seed: int, *, limit: int | None = None) -> int:
    """Open the match on the referee's phone and record the simulator's hands (all of them,
    or the first ``limit``). Returns how many hands were recorded."""
    page.goto(f"/matches/{match_id}/")
    n_players = page.locator(".scoreboard li").count()
    assert n_players in (2, 3, 4)
    start = int(page.locator("#match-panel").get_attribute("data-number") or "1")
    assert start == 1, "a match is played from its first hand"
    sim = simulate_match(RULESET, n_players, seed)
    records = sim.records if limit is None else sim.records[:limit]
    for number, record in enumerate(records, start=1):
        expect(page.locator("#match-panel")).to_have_attribute("data-number", str(number))
        fill_hand(page, record)
        page.locator("#confirm-hand").tap()
        expect(page.locator("#submit-status")).to_contain_text(f"Hand {number} recorded")
    if limit is None:
        expect(page.locator(".result-card")).to_be_visible()
    return len(records)


# -- the director's desk --------------------------------------------------------------------


def open_matches(desk: Page) -> list[tuple[int, int]]:
    """(match id, referee user id) of every table still playing on the round page."""
    out = []
    for row in desk.locator("#round-rows tr[id^='match-']").all():
        status = row.get_attribute("class") or ""
        if "status-finished" in status or "status-void" in status:
            continue
        match_id = int((row.get_attribute("id") or "").split("-")[1])
        referee = row.locator("select[name='referee']").input_value()
        out.append((match_id, int(referee)))
    return out


def play_open_tables(
    desk: Page, phones: dict[int, Page], seed: int, *, except_match: int | None = None
) -> None:
    round_url = desk.url.split("#")[0]
    while True:
        desk.goto(round_url)
        todo = [(m, r) for m, r in open_matches(desk) if m != except_match]
        if not todo:
            return
        for match_id, referee in todo:
            record_hands(phones[referee], match_id, seed + match_id)


def next_round_or_stage(desk: Page) -> str:
    """From a finished round page: close it, then preview and publish what follows (or end
    the stage). Returns "round", "stage" or "done"."""
    if desk.locator("#close-round").count():
        desk.locator("#close-round").click()
        expect(desk.locator(".messages")).to_contain_text("closed")
    if desk.locator("#advance-round").count():
        desk.locator("#advance-round").click()
    elif desk.get_by_role("link", name="Preview the next round").count():
        desk.get_by_role("link", name="Preview the next round").click()
    if desk.locator("#publish").count():
        return "round"
    if desk.get_by_role("button", name=re.compile("End the stage")).count():
        desk.get_by_role("button", name=re.compile("End the stage")).first.click()
        return "stage"
    return "done"


@pytest.fixture
def director(transactional_db: Any) -> Any:
    # The director's own account is the one set-up outside the pages (an operator's job).
    user = get_user_model().objects.create_user(
        username="director", password=PASSWORD, first_name="Dana"
    )
    user.user_permissions.add(Permission.objects.get(codename="add_tournament"))
    return user


def test_a_13_player_event_from_start_to_champion(
    browser_context: ContextFactory, live_server: Any, director: Any
) -> None:
    desk_context: BrowserContext = browser_context(viewport={"width": 1100, "height": 760})
    desk = desk_context.new_page()
    accept_dialogs(desk)

    # 1. Sign in and create the tournament (preset wsod, one override: replays flat 2, R26).
    desk.goto("/director/")
    desk.fill("#id_username", "director")
    desk.fill("#id_password", PASSWORD)
    desk.locator("button[type=submit], input[type=submit]").first.click()
    desk.locator("#new-tournament").click()
    desk.fill("#id_name", "Island Open")
    desk.fill("#id_slug", SLUG)
    desk.fill("#id_venue", "Club Bayamón")
    desk.select_option("#id_ruleset_preset", "wsod")
    expect(desk.locator("#id_rule_tie_value option").first).to_contain_text(
        "preset: One more per tie (escalate)"
    )
    desk.select_option("#id_rule_tie_value", "flat2")
    desk.fill("#id_rule_target", str(TARGET))
    desk.locator("#id_ruleset_preset").scroll_into_view_if_needed()
    desk.evaluate("window.scrollBy(0, -40)")
    shot(desk, "01-new-tournament")
    # An invalid combination is refused on its field, naming the rule.
    desk.select_option("#id_rule_boneyard", "draw")
    desk.locator("#save-tournament").click()
    expect(desk.locator("[data-field='rule_boneyard'] .field-error")).to_contain_text("R2")
    desk.select_option("#id_rule_boneyard", "")
    desk.locator("#save-tournament").click()
    expect(desk).to_have_url(re.compile(rf"/director/tournaments/{SLUG}/stages/$"))
    tournament = Tournament.objects.get(slug=SLUG)
    assert Ruleset.from_json(tournament.ruleset) == RULESET

    # Lifecycle: open registration (the event becomes public; play starts with round 1).
    desk.goto(f"/director/tournaments/{SLUG}/lifecycle/")
    expect(desk.locator("#status")).to_have_text("Draft")
    desk.select_option("#status-next", "registration")
    desk.fill("#status-reason", "Entries open")
    desk.locator("#status-next ~ button[type=submit]").click()
    expect(desk.locator("#status")).to_have_text("Registration")

    # Two referees on the referees page; each credential link is shown once, read it then.
    desk.get_by_role("link", name="Referees").first.click()
    links: list[str] = []
    for username, display in (("ref-rosa", "Rosa"), ("ref-luis", "Luis")):
        desk.fill("#ref-username", username)
        desk.fill("#ref-display", display)
        desk.get_by_role("button", name="Create referee").click()
        expect(desk.locator("body")).to_contain_text("Referee created")
        desk.locator("tr", has_text=username).get_by_role("button", name="Issue credential").click()
        expect(desk.locator("#issued-h")).to_contain_text(display)  # the name people know
        link = desk.locator("#issued-link").inner_text()
        assert re.fullmatch(r"(https?://[^/]+)?/ref/#[\w-]+\.[\w-]+", link), link
        links.append(link)
        desk.goto(f"/director/tournaments/{SLUG}/referees/")  # shown once: now the prefix only
        expect(desk.locator("#issued-link")).to_have_count(0)
    assert len(set(links)) == 2

    # 2. Import the 13 players by CSV, checked in.
    csv_path = _img_dir().parent / "island-open.csv"
    csv_path.write_text(
        "name,country,club,rating\n"
        + "".join(f"{n},{c},{club},{r}\n" for n, c, club, r in PLAYERS),
        encoding="utf-8",
    )
    desk.goto(f"/director/tournaments/{SLUG}/stages/")
    desk.locator(".director-nav").get_by_role("link", name="Players", exact=True).click()
    desk.set_input_files("#id_file", str(csv_path))
    desk.check("#id_check_in")
    desk.locator("#import-form button[type=submit]").click()
    expect(desk.locator(".messages")).to_contain_text("Imported 13 players")
    shot(desk, "02-import")

    # 3. Stages: qualifying (2 Swiss rounds, top 4 go on) and the final table; manual mode.
    desk.get_by_role("link", name="Stages & rounds").click()
    desk.fill("#id_name", "Qualifying")
    desk.select_option("#id_kind", "qualifying")
    desk.fill("#id_swiss_rounds", "2")
    desk.fill("#id_cut_size", "4")
    desk.fill("#id_rng_seed", "7")
    desk.uncheck("#id_auto_advance")
    desk.locator("#new-stage button[type=submit]").click()
    expect(desk.locator("h2", has_text="Qualifying")).to_be_visible()
    desk.fill("#id_name", "Final")
    desk.select_option("#id_kind", "final")
    desk.uncheck("#id_auto_advance")
    desk.locator("#new-stage button[type=submit]").click()
    expect(desk.locator("h2", has_text="Final")).to_be_visible()
    shot(desk, "03-stages")

    # 4. Seed by rating, preview round 1 (4 tables: one of 4, three of 3, T1), publish.
    desk.get_by_role("link", name="Seeding list").first.click()
    desk.locator("#seed-rating").click()
    expect(desk.locator(".messages")).to_contain_text("Seeded 13 players")
    desk.get_by_role("link", name="Stages & rounds").click()
    desk.get_by_role("link", name="Preview next round").first.click()
    expect(desk.locator("#preview-tables section")).to_have_count(4)
    shot(desk, "04-preview")
    desk.locator("#publish").click()
    expect(desk.locator(".messages")).to_contain_text("Round 1 of Qualifying is published")
    round1_url = desk.url
    desk.goto(f"/director/tournaments/{SLUG}/lifecycle/")
    expect(desk.locator("#status")).to_have_text("Running")

    # 5. Each referee opens their link on a phone; the match list shows their own tables only.
    desk.goto(round1_url)
    referee_of_match = dict(open_matches(desk))
    assert len(set(referee_of_match.values())) == 2, referee_of_match
    by_user: dict[int, Page] = {}
    for link in links:
        phone = browser_context().new_page()
        # The link names the configured public address; the phone opens it on the test server.
        phone.goto(re.sub(r"^https?://[^/]+", "", link))
        expect(phone).to_have_url(re.compile(r"/referee/"))
        phone.goto(f"/referee/?tournament={SLUG}")
        hrefs = phone.locator("a[href^='/matches/']").evaluate_all(
            "l => l.map(a => a.getAttribute('href'))"
        )
        mine = {referee_of_match[int(h.strip("/").split("/")[1])] for h in hrefs}
        assert len(mine) == 1, mine
        by_user[mine.pop()] = phone
    assert set(by_user) == set(referee_of_match.values())
    first_phone = by_user[min(by_user)]
    shot(first_phone, "05-referee-matches")

    # 6. Round 1: a forfeit at the 4-player table before play (T7), then every hand.
    desk.goto(round1_url)
    four = desk.locator("#round-rows tr").filter(has=desk.locator("ol.seats li:nth-child(4)"))
    forfeit_link = four.first.locator("a[id^='forfeit-']")
    forfeit_link.click()
    desk.select_option("#id_seat", "3")
    desk.fill("#id_reason", "Did not arrive by the start of the round")
    desk.locator("#action-next").click()
    expect(desk.locator("#confirm-box")).to_contain_text("0\u20136 loss (T7)")
    shot(desk, "06-forfeit-confirm")
    desk.locator("#action-confirm").click()
    expect(desk.locator(".messages")).to_contain_text("forfeits")
    expect(desk.locator("#round-rows")).to_contain_text("continuation (T7)")
    play_open_tables(desk, by_user, seed=100)
    shot(first_phone, "07-referee-hand")
    desk.goto(round1_url)
    expect(desk.locator("#round-rows tr.status-finished")).to_have_count(5)
    shot(desk, "08-round-finished")

    # 7. Advance: the preview of round 2 (who sits where), then publish.
    assert next_round_or_stage(desk) == "round"
    expect(desk.locator("h1")).to_contain_text("Preview")
    shot(desk, "09-advance-preview")
    desk.locator("#publish").click()
    expect(desk.locator(".messages")).to_contain_text("Round 2 of Qualifying is published")
    round2_url = desk.url

    # 8. Round 2: one table plays two hands, the others finish; the director calls time (T3).
    slow_match, slow_ref = open_matches(desk)[0]
    record_hands(by_user[slow_ref], slow_match, seed=200 + slow_match, limit=2)
    play_open_tables(desk, by_user, seed=200, except_match=slow_match)
    desk.goto(round2_url)
    # The dashboard (pushed; polling here, as the test server has no websockets).
    desk.goto(f"/director/tournaments/{SLUG}/")
    expect(desk.locator("section.round-group.current h2")).to_contain_text("Round 2")
    shot(desk, "10-dashboard")
    desk.goto(round2_url)
    desk.locator("#call-time summary").click()
    expect(desk.locator("#call-time input[name='sudden_death']")).to_have_count(1)
    desk.fill("#call-reason", "Round time is over")
    desk.check("#call-confirm")
    shot(desk, "11-call-time")
    desk.locator("#call-time-submit").click()
    expect(desk.locator(".messages")).to_contain_text("Time called (T3): 1 match")

    # 9. End of qualifying (and any play-off for the cut, T6), then the final table.
    stage_done = False
    for _ in range(6):
        step = next_round_or_stage(desk)
        if step == "round":
            desk.locator("#publish").click()
            play_open_tables(desk, by_user, seed=300)
            desk.goto(desk.url)
            continue
        stage_done = True  # "stage": ended here; "done": the advance ended it (T6)
        break
    assert stage_done, "qualifying ends and seeds the final"
    desk.goto(f"/director/tournaments/{SLUG}/stages/")
    desk.get_by_role("link", name="Preview next round").last.click()
    expect(desk.locator("#preview-tables section")).to_have_count(1)
    desk.locator("#publish").click()
    final_url = desk.url
    play_open_tables(desk, by_user, seed=400)
    desk.goto(final_url)
    assert next_round_or_stage(desk) in ("stage", "done")

    # 10. The champion on the spectator pages (a phone, not signed in): the winner of the
    # final table heads the final placings.
    final = Match.objects.filter(round_link__round__stage__name="Final").get()
    assert final.status == Match.Status.FINISHED
    assert final.end_reason == Match.EndReason.NORMAL
    winner = final.seats.get(seat=final.winner_seat).entry.player.name
    fan = browser_context().new_page()
    fan.goto(f"/live/{SLUG}/standings/")
    # The final stage shows the final table's result, champion first (not four level rows).
    expect(fan.locator(".final-table-result li").first).to_contain_text(winner)
    fan.goto(f"/live/{SLUG}/bracket/")
    placings = fan.locator(".placing-list li")
    expect(placings.first).to_have_text(winner)
    shot(fan, "12-champion")
