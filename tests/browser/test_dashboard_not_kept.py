"""The director dashboard's rows are never kept by the browser (``private, no-store``, docs/
security.md "What browsers keep") and still revalidate: the page's script keeps the ETag and
the rows, and takes a 304 as "unchanged" (static/js/dashboard.js)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from brackets.services import round_publish, stage_seed
from scoring.services import match_result_override
from tests.brackets.factories_pages import tournament_with_stage
from tests.browser.conftest import DESKTOP, ContextFactory


@pytest.fixture
def event(transactional_db: Any) -> dict[str, Any]:
    tournament, director, stage = tournament_with_stage(8, referees=0, slug="kept-open")
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    return {"t": tournament, "director": director, "round": rnd}


def _is_rows(response: Any) -> bool:
    return "/rows/" in response.url


def test_dashboard_rows_revalidate_without_a_stored_copy(
    browser_context: ContextFactory, live_server: Any, event: dict[str, Any]
) -> None:
    director, rnd = event["director"], event["round"]
    page = browser_context(viewport=DESKTOP, user=director).new_page()
    page.clock.install()
    page.goto(f"/director/tournaments/{event['t'].slug}/")
    rows = page.locator("#dashboard-rows tbody tr")
    expect(rows).to_have_count(2)
    # No websocket on the test server: the page polls (every 15 s) once its socket has
    # failed, which happens in real time, not on the page's fake clock; moving the clock
    # before that skipped the first poll (seen under two test workers).
    expect(page.locator("#dashboard")).to_have_attribute("data-live-state", "polling")
    with page.expect_response(_is_rows) as first_info:
        page.clock.fast_forward("00:16")
    first = first_info.value
    assert first.status == 200
    assert first.headers["cache-control"] == "private, no-store"
    etag = first.headers["etag"]
    with page.expect_response(_is_rows) as same_info:
        page.clock.fast_forward("00:16")
    same = same_info.value
    assert same.status == 304  # reached the script: nothing stored to answer it from
    assert same.request.headers.get("if-none-match") == etag
    assert same.headers["cache-control"] == "private, no-store"
    expect(rows).to_have_count(2)  # the rows it had are kept
    expect(page.locator("#refreshed-at")).not_to_contain_text("offline")
    # Something changes: the next poll brings the new rows.
    link = rnd.round_matches.order_by("table_number").first()
    match_result_override(
        match_id=link.match_id, actor=director, scores=[6, 4, 2, 0], reason="test"
    )
    with page.expect_response(_is_rows) as changed_info:
        page.clock.fast_forward("00:16")
    assert changed_info.value.status == 200
    expect(page.locator(f'#dashboard-rows tr[data-match="{link.match_id}"]')).to_contain_text(
        "Finished"
    )
