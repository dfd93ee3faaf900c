"""A director signs in, seeds the first stage, previews and publishes round 1, and sees it on
the round page and the dashboard; then prints the table sheets with the referees' QR codes.

Screenshots of the seeding list, the preview and the table sheets (print media) go to
``test-artifacts/``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from brackets.models import Round, RoundMatch, Stage, StageEntry
from brackets.services import stage_create
from tests.brackets.conftest import make_tournament
from tests.browser.conftest import DESKTOP, ContextFactory
from tournament.models import Entry, RefereeToken

PASSWORD = "correct horse battery"


@pytest.fixture
def event(transactional_db: Any) -> dict[str, Any]:
    tournament, director = make_tournament(
        10, clubs=4, referees=2, name="Caribbean Open", slug="caribbean-open"
    )
    # The login page is the admin's (LOGIN_URL), which signs in staff accounts only.
    director.is_staff = True
    director.set_password(PASSWORD)
    director.save()
    stage = stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind=Stage.Kind.QUALIFYING,
        swiss_rounds=3,
        cut_size=4,
        rng_seed=11,
        round_time_limit=45,
        auto_advance=True,
    )
    return {"t": tournament, "director": director, "stage": stage}


def seed_names(page: Page) -> list[str]:
    return [n.strip() for n in page.locator("#seed-rows .player-name").all_inner_texts()]


def test_director_seeds_previews_publishes(
    browser_context: ContextFactory, live_server: Any, artifacts_dir: Path, event: dict[str, Any]
) -> None:
    slug, stage = event["t"].slug, event["stage"]
    page = browser_context(viewport=DESKTOP).new_page()

    # Signing in: the stages page sends an anonymous visitor to the login form and back.
    page.goto(f"/director/tournaments/{slug}/stages/")
    expect(page).to_have_url(re.compile(r"/login/\?next="))
    page.fill("#id_username", event["director"].username)
    page.fill("#id_password", PASSWORD)
    page.locator("input[type=submit], button[type=submit]").first.click()
    expect(page).to_have_url(f"{live_server.url}/director/tournaments/{slug}/stages/")
    expect(page.locator("h2", has_text="Stage 1: Qualifying")).to_be_visible()

    # Seeding by rating, then one manual move with the arrows (saved once).
    page.get_by_role("link", name="Seeding list").click()
    page.locator("#seed-rating").click()
    expect(page.locator(".messages")).to_contain_text("Seeded 10 players by rating.")
    names = seed_names(page)
    assert names[:3] == ["P0000", "P0001", "P0002"]
    expect(page.locator("#table-plan")).to_contain_text("1 table of 4, 2 tables of 3")
    page.get_by_role("button", name="Move P0002 up").click()
    expect(page.locator("#order-status")).to_contain_text("Unsaved changes")
    assert seed_names(page)[:3] == ["P0000", "P0002", "P0001"]
    expect(page.locator("#seed-rows tr").nth(1).locator(".seed-no")).to_have_text("2")
    page.fill("#reorder-reason", "P0002 won the regional final")
    page.locator("#save-order").click()
    expect(page.locator(".messages")).to_contain_text("Seed order saved.")
    assert seed_names(page)[:3] == ["P0000", "P0002", "P0001"]
    order = list(
        StageEntry.objects.filter(stage=stage)
        .order_by("seed")
        .values_list("entry__player__name", flat=True)
    )
    assert order[:3] == ["P0000", "P0002", "P0001"]
    page.screenshot(path=str(artifacts_dir / "director_seeding.png"), full_page=True)

    # Preview: nothing is stored yet.
    page.locator(".stage-subnav").get_by_role("link", name="Next round").click()
    expect(page.locator("h1")).to_have_text("Preview: Qualifying round 1")
    cards = page.locator("#preview-tables .table-card")
    expect(cards).to_have_count(3)
    first_table = cards.nth(0)
    expect(first_table.locator(".seat-letter")).to_have_text(["A", "B", "C", "D"])
    expect(first_table.locator(".referee")).not_to_contain_text("—")
    assert Round.objects.filter(stage=stage).count() == 0
    previewed = [
        [n.strip() for n in cards.nth(i).locator(".seat-name").all_inner_texts()] for i in range(3)
    ]
    page.screenshot(path=str(artifacts_dir / "director_preview.png"), full_page=True)

    # Publish: the round page shows the tables as previewed.
    page.locator("#publish").click()
    expect(page.locator(".messages")).to_contain_text("Round 1 of Qualifying is published.")
    expect(page.locator("#finished-count")).to_have_text("0 of 3 tables finished")
    rows = page.locator("#round-tables tbody tr")
    expect(rows).to_have_count(3)
    rnd = Round.objects.get(stage=stage, number=1)
    stored = [
        [s.entry.player.name for s in link.match.seats.order_by("seat")]
        for link in RoundMatch.objects.filter(round=rnd)
        .select_related("match")
        .order_by("table_number")
    ]
    assert stored == previewed
    page.locator("#start-clock").click()
    expect(page.locator(".clock-remaining")).to_have_text(re.compile(r"^4[45]:\d\d$"))
    page.screenshot(path=str(artifacts_dir / "director_round.png"), full_page=True)

    # The dashboard lists the round's matches.
    page.locator(".director-nav").get_by_role("link", name="Dashboard").click()
    dashboard = page.locator("#dashboard-rows")
    expect(dashboard.locator("tbody tr")).to_have_count(3)  # 10 players: tables of 4, 3, 3
    expect(dashboard.locator("h2").first).to_contain_text("Round 1")
    for name in previewed[0]:
        expect(dashboard).to_contain_text(name)

    # Table sheets: one sheet per table with the TABLE's QR code (issue 15); referees' links
    # issued here are listed once on screen, never on a printed sheet.
    page.goto(f"/director/tournaments/{slug}/rounds/{rnd.pk}/sheets/")
    page.locator("#issue-links").click()
    expect(page.locator(".messages")).to_contain_text(
        "Issued 2 referee links: hand each to its referee now"
    )
    sheets = page.locator("article.sheet")
    expect(sheets).to_have_count(3)
    expect(sheets.nth(0).locator("svg.qr")).to_be_visible()
    expect(sheets.nth(0).locator(".seat-name")).to_have_text(previewed[0])
    token = RefereeToken.objects.filter(
        role__user_id=rnd.round_matches.get(table_number=1).match.referee_id
    ).latest("created_at")
    # Shown once, in the fragment (never in a path that reaches a log); only the hash is kept.
    expect(page.locator("#issued-links")).to_contain_text(f"/ref/#{token.prefix}.")
    expect(sheets.nth(0).locator(".sheet-link")).to_contain_text(f"/t/{slug}/table/1/")
    expect(sheets.nth(0)).not_to_contain_text(token.prefix)
    page.emulate_media(media="print")
    expect(page.locator(".director-nav")).to_be_hidden()
    page.screenshot(path=str(artifacts_dir / "director_sheets_print.png"), full_page=True)
    page.locator("article.sheet").nth(0).screenshot(
        path=str(artifacts_dir / "director_sheet_table1.png")
    )
    # Printed, each table is a page of its own.
    pdf = page.pdf(path=str(artifacts_dir / "director_sheets.pdf"), format="A4")
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 3
    expect(sheets.nth(1).locator(".sheet-hint")).to_contain_text("A → B → C.")


def test_round_page_follows_the_tables(
    browser_context: ContextFactory, live_server: Any, event: dict[str, Any]
) -> None:
    """The round page refreshes its tables while the round is in play (no reload)."""
    from brackets.services import round_publish, stage_seed
    from scoring.services import match_result_override

    director, stage = event["director"], event["stage"]
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    page = browser_context(viewport=DESKTOP, user=director).new_page()
    page.clock.install()
    page.goto(f"/director/tournaments/{event['t'].slug}/rounds/{rnd.pk}/")
    expect(page.locator("#finished-count")).to_have_text("0 of 3 tables finished")
    page.evaluate("window.__same_page = true")
    link = rnd.round_matches.get(table_number=1)
    match_result_override(
        match_id=link.match_id, actor=director, scores=[6, 4, 2, 0], reason="test"
    )
    page.clock.fast_forward("00:25")
    expect(page.locator("#finished-count")).to_have_text("1 of 3 tables finished")
    expect(page.locator(f"#match-{link.match_id} .tag")).to_have_text("Finished")
    assert page.evaluate("window.__same_page === true")  # updated in place, not reloaded


def test_csv_import_report_then_import_valid_rows(
    browser_context: ContextFactory, live_server: Any, artifacts_dir: Path, event: dict[str, Any]
) -> None:
    page = browser_context(viewport=DESKTOP, user=event["director"]).new_page()
    page.goto(f"/director/tournaments/{event['t'].slug}/players/import/")
    csv = (
        "name,nickname,country,club,rating\n"
        "Ana Rivera,La Maestra,PR,Club Bayamón,1830\n"
        ",,XX,,fast\n"
        "José Pérez,,DO,Santo Domingo Dominó,1712\n"
        "Ana Rivera,,,club bayamón,\n"
    )
    page.set_input_files(
        "#id_file",
        files=[{"name": "players.csv", "mimeType": "text/csv", "buffer": csv.encode()}],
    )
    page.locator("#id_check_in").check()
    page.get_by_role("button", name="Check and import").click()
    report = page.locator("#import-report")
    expect(report).to_contain_text("2 bad rows")
    expect(report.locator("tbody tr")).to_have_count(4)
    expect(report.locator("tr[data-row='3'][data-field='country']")).to_contain_text("'XX'")
    expect(report.locator("tr[data-row='5'][data-field='name']")).to_contain_text("Repeats row 2")
    page.screenshot(path=str(artifacts_dir / "director_import_report.png"), full_page=True)
    before = Entry.objects.filter(tournament=event["t"]).count()
    page.locator("#import-valid").click()
    expect(page.locator(".messages")).to_contain_text(
        "Imported 2 players (2 new, 0 known), checked in; "
        "skipped 2 bad rows (spreadsheet rows 3, 5)."
    )
    entries = Entry.objects.filter(tournament=event["t"]).select_related("player")
    assert entries.count() == before + 2
    ana = entries.get(player__name="Ana Rivera")
    assert (ana.player.club, ana.checked_in) == ("Club Bayamón", True)


def test_stage_form_shows_the_settings_of_the_chosen_kind(
    browser_context: ContextFactory, live_server: Any, event: dict[str, Any]
) -> None:
    page = browser_context(viewport=DESKTOP, user=event["director"]).new_page()
    page.goto(f"/director/tournaments/{event['t'].slug}/stages/")
    kind = page.locator("#id_kind")
    expect(kind).to_have_value("qualifying")
    expect(page.locator("#id_swiss_rounds")).to_be_visible()
    expect(page.locator("#id_advance_per_table")).to_be_hidden()
    kind.select_option("knockout")
    expect(page.locator("#id_swiss_rounds")).to_be_hidden()
    expect(page.locator("#id_advance_per_table")).to_be_visible()
    kind.select_option("final")
    expect(page.locator("#id_final_table_size")).to_be_visible()
    # A knockout after a cut of 4 with a final of 4 is the final table itself: created.
    page.get_by_role("button", name="Create stage").click()
    expect(page.locator(".messages")).to_contain_text("Stage 2 created as stage 2")
    second = page.locator("section.stage", has=page.locator("h2", has_text="Stage 2:"))
    expect(second).to_contain_text("Final table")


def test_pairs_seeding_arrows_move_a_partnership(
    browser_context: ContextFactory, live_server: Any, transactional_db: Any
) -> None:
    """A pairs stage's seeding list (T9): the arrows on a partnership's first row move both
    partners past a whole partnership, and the saved order keeps them together."""
    from django.db import transaction

    from brackets import services
    from tests.brackets.pairs_helpers import make_pairs_tournament, pairs_stages
    from tournament.partnerships import partnership_list

    t, d, _ = make_pairs_tournament(3)
    q, _ = pairs_stages(t, d, swiss_rounds=2, cut_size=2, auto_advance=False)
    with transaction.atomic():
        services.stage_seed(stage=q, actor=d, method="rating")
    a, b, c = ([e for e, *_ in v.players] for v in partnership_list(tournament_id=t.pk))
    d.set_password(PASSWORD)
    d.save()
    page = browser_context(viewport=DESKTOP).new_page()
    page.goto(f"/director/tournaments/{t.slug}/stages/{q.pk}/seeding/")
    page.fill("#id_username", d.username)
    page.fill("#id_password", PASSWORD)
    page.locator("input[type=submit], button[type=submit]").first.click()
    rows = page.locator("#seed-rows tr")
    expect(rows).to_have_count(6)
    expect(rows.nth(2).locator(".js-move")).to_have_count(2)
    expect(rows.nth(3).locator(".js-move")).to_have_count(0)
    rows.nth(2).locator(".js-move[data-dir=up]").click()
    shown = [int(x) for x in rows.evaluate_all("rs => rs.map(r => r.dataset.entry)")]
    assert shown == [*b, *a, *c]
    expect(page.locator("#order-status")).to_contain_text("Unsaved changes")
    # One seed per partnership (T8 over partnerships), on its first row: b is #1 now, a #2.
    # (The partner's row says it to screen readers only.)
    cells = page.locator("#seed-rows .seed-no")
    shown = "cs => cs.map(c => [c.textContent.trim(), !!c.querySelector('.visually-hidden')])"
    assert cells.evaluate_all(shown) == [
        ["1", False],
        ["1", True],
        ["2", False],
        ["2", True],
        ["3", False],
        ["3", True],
    ]
    page.locator("#save-order").click()
    expect(page.locator(".messages")).to_contain_text("Seed order saved.")
    stored = list(
        StageEntry.objects.filter(stage=q).order_by("seed").values_list("entry_id", flat=True)
    )
    assert stored == [*b, *a, *c]
