"""Filling the referee phone's hand form the way a referee taps it (shared by the browser tests)."""

from __future__ import annotations

from playwright.sync_api import Page

from scoring.engine.record import EndKind, HandRecord


def fill_hand_form(page: Page, record: HandRecord) -> None:
    """Tap the poser, pick the pose tile and tap the end (winner, or type the counts)."""
    page.locator(f"#hand-form input[name='poser'][value='{record.poser}'] + span").tap()
    page.select_option("#pose-tile", str(record.pose_tile))
    if record.end is EndKind.DOMINO:
        page.locator("#hand-form input[name='end'][value='domino'] + span").tap()
        page.locator(f"#hand-form input[name='winner'][value='{record.winner}'] + span").tap()
    else:
        page.locator("#hand-form input[name='end'][value='block'] + span").tap()
        assert record.counts is not None
        for seat, count in enumerate(record.counts):
            page.fill(f"#count-{seat}", str(count))
