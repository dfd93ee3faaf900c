"""A partnership out of the event (T7, T10) on the director's Partnerships page, in a real
browser on a 390 px phone: its row says why it is out and offers no substitute form (T11);
the partnership whose one player withdrew still offers one, and the substitution goes
through."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import ContextFactory
from tests.browser.test_page_widths import PHONE_390, page_width
from tests.pages.test_pairs_substitute_out import REASONS, members, out_field
from tournament.models import PartnershipMember


@pytest.mark.browser
def test_a_partnership_out_of_the_event_shows_why_and_no_substitute_form(
    browser_context: ContextFactory, transactional_db: Any, artifacts_dir: Path
) -> None:
    f = out_field()
    phone = browser_context(viewport=PHONE_390, user=f.director).new_page()
    phone.goto(f"/director/tournaments/{f.tournament.slug}/pairs/")
    for attr, (_code, reason) in REASONS.items():
        pair = getattr(f, attr)
        row = phone.locator(f"#pair-{pair.pk}")
        assert row.locator("form[action$='/substitute/']").count() == 0, attr
        assert phone.locator(f"#no-substitute-{pair.pk}").inner_text().startswith(reason)
    assert phone.locator("form[id^=substitute-form-]").count() == 1
    assert page_width(phone) <= 390
    phone.screenshot(path=artifacts_dir / "pairs-substitute-out-390.png", full_page=True)
    form = phone.locator(f"#substitute-form-{f.one_withdrawn.pk}")
    leaving = members(f.one_withdrawn)[1]
    form.locator("select[name=leaving]").select_option(str(leaving.pk))
    form.locator("input[name=player]").fill("Suplente Dos")
    form.locator("input[name=reason]").fill("withdrew after round 1")
    form.locator("button[type=submit]").click()
    phone.wait_for_load_state()
    assert "Substitute recorded" in phone.locator(".messages").inner_text()
    assert PartnershipMember.objects.filter(
        partnership=f.one_withdrawn, left_at__isnull=True, entry__player__name="Suplente Dos"
    ).exists()
