"""axe-core finds no violation on the pairs-event pages (issue 17), in both languages: the
spectator standings and projector by partnership, the director's partnerships page and the
referee page of a partnership match."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from brackets import services
from brackets.models import RoundMatch
from tests.brackets.pairs_helpers import decide_round, make_pairs_tournament, pairs_stages
from tests.browser.conftest import DESKTOP, ContextFactory
from tests.browser.test_accessibility import LANGUAGES, PHONE_390, _check


@pytest.mark.browser
@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_axe_finds_no_violation_on_pairs_pages(
    browser_context: ContextFactory, transactional_db: Any, artifacts_dir: Path, language: str
) -> None:
    t, d, _ = make_pairs_tournament(4, slug=f"axe-pairs-{language}")
    q, _k = pairs_stages(t, d, swiss_rounds=2, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    decide_round(r1, d)
    services.round_close(round=r1, actor=d)
    r2 = services.round_publish(stage=q, actor=d)
    match_id = RoundMatch.objects.filter(round=r2).values_list("match_id", flat=True)[0]
    locale = LANGUAGES[language]
    s = t.slug
    spectator = browser_context(viewport=PHONE_390, locale=locale, reduced_motion="reduce")
    found = _check(
        spectator.new_page(),
        [f"/live/{s}/standings/", f"/live/{s}/projector/", f"/live/{s}/tables/"],
        artifacts_dir,
        f"pairs-public-{language}",
    )
    director = browser_context(viewport=DESKTOP, locale=locale, user=d).new_page()
    found += _check(
        director,
        [f"/director/tournaments/{s}/pairs/", f"/matches/{match_id}/"],
        artifacts_dir,
        f"pairs-director-{language}",
    )
    assert found == [], "axe violations:\n" + "\n".join(found)
