"""A pairs forfeit, then its substitute (T7, T11), in a real browser on a 390 px phone: the
round page links the partnership that forfeited to its row on the Partnerships page, which
offers the form only on the rows the service takes one for and says why on the others; the
substitution goes through, and no page scrolls sideways."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.brackets.pairs_helpers import round_with_a_forfeit
from tests.browser.conftest import ContextFactory
from tests.browser.test_page_widths import PHONE_390, page_width
from tournament.models import PartnershipMember


@pytest.mark.browser
def test_the_partnership_that_forfeited_names_a_substitute_from_the_round_page(
    browser_context: ContextFactory, transactional_db: Any, artifacts_dir: Path
) -> None:
    r = round_with_a_forfeit()
    no_show = r.forfeited.seats.get(seat=0).entry
    phone = browser_context(viewport=PHONE_390, user=r.director).new_page()
    phone.goto(f"/director/tournaments/{r.tournament.slug}/rounds/{r.round.pk}/")
    assert phone.locator("a[id^=substitute-pair-]").count() == 2  # the bye, the forfeit
    phone.locator(f"#substitute-pair-{r.forfeiting.pk}").click()
    phone.wait_for_url(f"**/pairs/#pair-{r.forfeiting.pk}")
    row = phone.locator(f"#pair-{r.forfeiting.pk}")
    for pair in r.playing:
        reason = phone.locator(f"#no-substitute-{pair.pk}")
        assert reason.inner_text() == "Has a match still to play: substitute when it is over (T11)."
        assert phone.locator(f"#pair-{pair.pk} form[action$='/substitute/']").count() == 0
    assert phone.locator("form[id^=substitute-form-]").count() == 3
    assert page_width(phone) <= 390
    phone.screenshot(path=artifacts_dir / "pairs-substitute-390.png", full_page=True)
    form = row.locator(f"#substitute-form-{r.forfeiting.pk}")
    form.locator("select[name=leaving]").select_option(str(no_show.pk))
    form.locator("input[name=player]").fill("Suplente Uno")
    form.locator("input[name=reason]").fill("no-show at table 1")
    form.locator("button[type=submit]").click()
    phone.wait_for_load_state()
    assert "Substitute recorded" in phone.locator(".messages").inner_text()
    assert "Suplente Uno" in phone.locator(f"#pair-{r.forfeiting.pk}").inner_text()
    assert PartnershipMember.objects.filter(
        partnership=r.forfeiting, left_at__isnull=True, entry__player__name="Suplente Uno"
    ).exists()
    assert page_width(phone) <= 390
